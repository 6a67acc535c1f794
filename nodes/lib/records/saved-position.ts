// The position of edge-watch-events as saved in a context store, checked field by field when it is
// read back. The store is a file a user can edit or half-write: a date in the far future would
// hold back every event, a list of a million ids would size the first read (issue 19). A record
// that fails is dropped by the caller with a warning naming the field, and the watch starts anew.
import type { Position } from "../events/position";
import { MAX_READ_EVENTS } from "../events/stream-watcher";

export interface SavedPosition extends Position {
  /** The stream the position belongs to: a changed Stream property starts afresh. */
  stream: string;
}

/** How far ahead of our clock a server's creation date may be. */
const CLOCK_SLACK_MS = 24 * 60 * 60 * 1000;

export type CheckedPosition = { ok: true; saved: SavedPosition } | { ok: false; field: string };

export function checkSavedPosition(value: unknown, now: number): CheckedPosition {
  const bad = (field: string): CheckedPosition => ({ ok: false, field });
  if (typeof value !== "object" || value === null || Array.isArray(value)) return bad("record");
  const { stream, date, ids } = value as Record<string, unknown>;
  if (typeof stream !== "string" || stream.trim() === "") return bad("stream");
  if (date !== null && !(typeof date === "number" && date >= 0 && date <= now + CLOCK_SLACK_MS))
    return bad("date");
  // Ids of the events handled at `date`: at most one read's worth, none without a date.
  if (
    !Array.isArray(ids) ||
    ids.length > MAX_READ_EVENTS ||
    (date === null && ids.length > 0) ||
    !ids.every((id) => typeof id === "string" && id !== "")
  )
    return bad("ids");
  return { ok: true, saved: { stream, date, ids: ids as string[] } };
}
