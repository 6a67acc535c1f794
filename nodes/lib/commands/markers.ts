// Recognising command markers in a device's `:inbox`. Where the real service puts the marker name
// in `elems`, and whether it names the command it answers, is not public (docs/api-notes.md,
// Markers), so the name counts anywhere in `elems`, as a key or as a value, at any depth, and so
// does the id of the command it answers, whatever shape the server's ids have. Configuration-push
// markers and every other inbox event are not command markers.
import type { DeviceEvent } from "../api/types";

export const MARKERS = ["COMMAND_START", "COMMAND_COMPLETE", "COMMAND_FAULT"] as const;
export type MarkerName = (typeof MARKERS)[number];

const MARKER_SET: ReadonlySet<string> = new Set(MARKERS);
/**
 * Strings that are an event id of a known shape: the hosted service's (`e` and 24 hex digits) or
 * a UUID. Only used to tell that a marker names some command that is not ours; our own commands'
 * ids are matched whatever their shape.
 */
const ID_SHAPES =
  /\be[0-9a-f]{24}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;
/**
 * The characters ids are made of, for the token rule. How a marker refers to its command is not
 * public (docs/api-notes.md, Markers), and ids seen are `e` + hex, UUIDs, short numbers and names
 * like `cmd-42`. So an id found inside a longer string counts only as a whole token: the
 * characters on both sides are none of these. `cmd 7 done` and `id=7` name 7; `17`, `7.1`,
 * `cmd-7` and `cmd-421` do not name 7 or `cmd-42`. `.` counts as an id character so that `7.1`
 * never completes 7: a missed match ends a wait on timeout, a false one on complete.
 */
const ID_CHAR = /[\p{L}\p{N}_.-]/u;
/** The tokens of a string: its runs of id characters. */
const ID_TOKENS = /[\p{L}\p{N}_.-]+/gu;
/** Bounds the walk over a hostile or huge elems object. */
const MAX_DEPTH = 8;
const MAX_VISITS = 500;
/** Characters of one string searched for ids: a marker's strings are short. */
const MAX_CHARS = 4096;

/** A command marker as the poller handles it: the event, its name and the strings it holds. */
export interface Marker {
  readonly event: DeviceEvent;
  readonly name: MarkerName;
  /**
   * Every key and string value of its elems, at any depth (bounded), and every finite number as
   * its decimal text: a server with integer ids may write `"ref": 17`, which names command 17 as
   * surely as `"ref": "17"` does. Unseen, it sent the marker to the oldest wait by date (issue 28).
   */
  readonly strings: readonly string[];
}

/** The command marker this event carries, or undefined when it carries none. */
export function markerOf(event: DeviceEvent): Marker | undefined {
  let name: MarkerName | undefined;
  const strings: string[] = [];
  let visits = 0;
  const visit = (text: string): void => {
    if (name === undefined && MARKER_SET.has(text)) name = text as MarkerName;
    else strings.push(text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text);
  };
  const go = (v: unknown, depth: number): void => {
    if (++visits > MAX_VISITS) return;
    if (typeof v === "string") {
      visit(v);
      return;
    }
    if (typeof v === "number") {
      // Whole numbers in plain digits: String(1e21) is "1e+21", whose "21" would be a token.
      if (Number.isInteger(v)) strings.push(BigInt(v).toString());
      else if (Number.isFinite(v)) strings.push(String(v));
      return;
    }
    if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return;
    for (const key of Object.keys(v)) {
      visit(key);
      go((v as Record<string, unknown>)[key], depth + 1);
    }
  };
  go(event.elems, 0);
  return name === undefined ? undefined : { event, name, strings };
}

/**
 * True when `s[i, i + length)` is a whole token of `s`: no id character touches it. A `.` after it
 * that ends the string or comes before a character that is not of an id is the end of a sentence
 * (`done 7.`), not part of a longer id (`7.1`).
 */
export function isWholeToken(s: string, i: number, length: number): boolean {
  const before = i > 0 ? s[i - 1] : undefined;
  let after = s[i + length];
  if (after === ".") {
    const next = s[i + length + 1];
    if (next === undefined || !ID_CHAR.test(next)) after = undefined;
  }
  return (
    (before === undefined || !ID_CHAR.test(before)) && (after === undefined || !ID_CHAR.test(after))
  );
}

/** True when `s` is `id`, or holds it as a whole token (see ID_CHAR). */
export function holdsId(s: string, id: string): boolean {
  if (id === "") return false;
  if (s === id) return true;
  for (let i = s.indexOf(id); i >= 0; i = s.indexOf(id, i + 1)) {
    if (isWholeToken(s, i, id.length)) return true;
  }
  return false;
}

/** The tokens of `s` (runs of id characters), for telling which look like ids. */
export function tokensOf(s: string): string[] {
  return s.match(ID_TOKENS) ?? [];
}

/**
 * Whether `event` is a marker that names command `id` (as text or a number, as a whole token).
 * A result taken from a marker that does not was matched by its date alone (a server whose
 * markers name no command): outputs say so (matchedBy "date"), since two identical commands
 * answered out of order swap their results there (issue 35, item 10).
 */
export function namesCommand(event: DeviceEvent, id: string | null | undefined): boolean {
  if (!id) return false;
  const marker = markerOf(event);
  return marker !== undefined && marker.strings.some((s) => holdsId(s, id));
}

/** True when one of the marker's strings holds an id of a known shape. */
export function namesSomeId(marker: Marker): boolean {
  return marker.strings.some((s) => ID_SHAPES.test(s));
}

/**
 * Finds, among the marker's strings, one that is or holds as a whole token (isWholeToken) a key
 * of a map of ids, at a cost that does not depend on how many ids the map holds: an exact lookup
 * per string, then a lookup per substring of each length the map's ids have (one or two lengths in
 * practice).
 */
export class IdIndex<T> {
  private readonly map = new Map<string, T>();
  /** How many ids of each length are in the map. */
  private readonly lengths = new Map<number, number>();

  get size(): number {
    return this.map.size;
  }

  get(id: string): T | undefined {
    return this.map.get(id);
  }

  set(id: string, value: T): void {
    if (!this.map.has(id)) this.lengths.set(id.length, (this.lengths.get(id.length) ?? 0) + 1);
    this.map.set(id, value);
  }

  delete(id: string): void {
    if (!this.map.delete(id)) return;
    const n = (this.lengths.get(id.length) ?? 1) - 1;
    if (n === 0) this.lengths.delete(id.length);
    else this.lengths.set(id.length, n);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** The value of the first id that one of the strings is, or else holds as a whole token. */
  find(strings: readonly string[]): T | undefined {
    if (this.map.size === 0) return undefined;
    for (const s of strings) {
      const hit = this.map.get(s);
      if (hit !== undefined) return hit;
    }
    for (const s of strings) {
      for (const length of this.lengths.keys()) {
        if (length === 0 || length >= s.length) continue;
        for (let i = 0; i + length <= s.length; i++) {
          // `7` inside `17`, `cmd-42` inside `cmd-421`: part of another id, not this one.
          if (!isWholeToken(s, i, length)) continue;
          const hit = this.map.get(s.slice(i, i + length));
          if (hit !== undefined) return hit;
        }
      }
    }
    return undefined;
  }
}
