// Recognising command markers in a device's `:inbox`. Where the real service puts the marker name
// in `elems`, and whether it names the command it answers, is not public (docs/api-notes.md,
// Markers), so the name counts anywhere in `elems`, as a key or as a value, at any depth, and an
// id counts anywhere too. Configuration-push markers and every other inbox event are not command
// markers.
import type { DeviceEvent } from "../api/types";

export const MARKERS = ["COMMAND_START", "COMMAND_COMPLETE", "COMMAND_FAULT"] as const;
export type MarkerName = (typeof MARKERS)[number];

const MARKER_SET: ReadonlySet<string> = new Set(MARKERS);
/** An event id of the real service: `e` and 24 lowercase hex digits. */
const EVENT_ID = /\be[0-9a-f]{24}\b/g;
/** Bounds the walk over a hostile or huge elems object. */
const MAX_DEPTH = 8;
const MAX_VISITS = 500;

function walk(value: unknown, visit: (text: string) => boolean): boolean {
  let visits = 0;
  const go = (v: unknown, depth: number): boolean => {
    if (++visits > MAX_VISITS) return false;
    if (typeof v === "string") return visit(v);
    if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return false;
    for (const [key, child] of Object.entries(v)) {
      if (visit(key) || go(child, depth + 1)) return true;
    }
    return false;
  };
  return go(value, 0);
}

/** The command marker this event carries, if any. */
export function markerOf(event: DeviceEvent): MarkerName | undefined {
  let found: MarkerName | undefined;
  walk(event.elems, (text) => {
    if (MARKER_SET.has(text)) found = text as MarkerName;
    return found !== undefined;
  });
  return found;
}

/** Every event id mentioned in the event's elems (not its own id). */
export function idsIn(event: DeviceEvent): string[] {
  const ids: string[] = [];
  walk(event.elems, (text) => {
    for (const m of text.matchAll(EVENT_ID)) ids.push(m[0]);
    return false;
  });
  return ids;
}
