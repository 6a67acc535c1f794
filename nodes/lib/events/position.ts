// Where a watch stands in a stream, and the pure rules that decide which listed events are new.
// A position is a creation date plus the ids of the events already handled at that instant: ids
// alone would grow without bound, a date alone would drop the events that share the millisecond of
// the last one handled (a burst from one device often does).
//
// The spec shows lists newest first and promises nothing about the order inside one creation
// date. So events are put in time order by creationDate, and within one date by the server's
// listing order reversed; nothing else about a page's order is relied upon.
import type { DeviceEvent } from "../api/types";

export interface Position {
  /** Creation date of the newest event handled; null when the stream was empty. */
  date: number | null;
  /** Ids of the handled events created at `date`. */
  ids: string[];
}

/** What a watch has seen of a stream in one read, newest first as listed, duplicates removed. */
export interface Listing {
  events: DeviceEvent[];
  /**
   * The oldest creation date listed (Infinity when none), as the server listed it: how far down
   * the stream the read went. An event re-dated since it was first listed is placed at its first
   * date, but listed where its new date puts it.
   */
  oldest: number;
  /** The newest creation date listed (-Infinity when none). */
  newest: number;
  /** The stream's end was reached: an empty page came back. */
  ended: boolean;
}

/** True when `event` comes after `pos`. */
export function isAfter(event: DeviceEvent, pos: Position, ids: ReadonlySet<string>): boolean {
  if (pos.date === null) return true;
  return event.creationDate > pos.date || (event.creationDate === pos.date && !ids.has(event.id));
}

/**
 * Whether the listing shows that nothing between `pos` and the listing's oldest event is missing:
 * an event at or before the position is listed. Without one, the stream dropped what lay between
 * (more events than its capacity) or the read stopped at its bound: a gap.
 */
export function reaches(listing: Listing, pos: Position, ids: ReadonlySet<string>): boolean {
  if (pos.date === null) return listing.ended;
  const date = pos.date;
  return listing.events.some(
    (e) => e.creationDate < date || (e.creationDate === date && ids.has(e.id)),
  );
}

/** Oldest first: by creation date, and within one date the listing's order reversed. */
export function chronological(newestFirst: readonly DeviceEvent[]): DeviceEvent[] {
  return newestFirst
    .slice()
    .reverse()
    .sort((a, b) => a.creationDate - b.creationDate);
}

/**
 * The position after handling `handled` (already in time order): the newest handled date with
 * the ids of every listed event at that date (a listed event at that date that was not handled,
 * as with `last`, is one we chose to skip), plus the old ids when the date did not move.
 */
export function advance(
  pos: Position | null,
  handled: readonly DeviceEvent[],
  listing: Listing,
): Position {
  const last = handled.at(-1);
  const date = last === undefined ? (pos?.date ?? null) : last.creationDate;
  if (date === null) return { date: null, ids: [] };
  const ids = new Set(pos !== null && pos.date === date ? pos.ids : []);
  for (const e of listing.events) if (e.creationDate === date) ids.add(e.id);
  return { date, ids: [...ids] };
}

/** The position of "everything listed is old": the newest date and its ids, or an empty stream. */
export function headOf(listing: Listing): Position {
  if (listing.events.length === 0) return { date: null, ids: [] };
  const date = listing.newest;
  return { date, ids: listing.events.filter((e) => e.creationDate === date).map((e) => e.id) };
}
