// Reading a stream page by page with `start`, as an async iterator whose next() fetches one page.
// Events are newest first and new ones can land at the top while we page, pushing events we have
// already read into the next page: those are skipped, by creation date (newer than the last one
// read) and by the ids of the previous page, so memory stays bounded by the page size.
//
// Every listing ends. A full page with nothing new can be events pushed down by as many landing on
// top while we read: the read goes on past it. Two such pages in a row are a server that ignores
// `start` (it answered the same page every time, and a listing in `all` once never ended), and the
// end, as for the inbox poll (inbox-watch.ts). A server that hands out one new event per full page
// would still make Max events cost a request each: the pages are bounded too, at twice what Max
// events needs plus two.
import type { DeviceEvent, PageQuery } from "../api/types";

export type FetchPage = (page: PageQuery) => Promise<DeviceEvent[]>;

/** Why a listing stopped before a short page or Max events: the server's paging made no progress. */
export type StopReason = "no-progress" | "max-pages";

/** The most requests a listing of `maxEvents` events with pages of `limit` makes. */
export function maxPagesFor(maxEvents: number, limit: number): number {
  return 2 * Math.ceil(maxEvents / limit) + 2;
}

export interface PageRead {
  events: DeviceEvent[];
  /** Index of the page's first event in the stream, as requested. */
  start: number;
  /** Requests made so far, this one included. */
  page: number;
  /** Events the server returned, duplicates included. */
  received: number;
  /** Whether a full page came back, so more may follow. */
  full: boolean;
  /** Set on the last page when the listing stopped though the page was full. */
  stopped?: StopReason;
}

export async function* pages(
  fetch: FetchPage,
  first: PageQuery,
  maxEvents: number,
): AsyncGenerator<PageRead> {
  let start = first.start;
  let emitted = 0;
  let previousIds = new Set<string>();
  let oldest: number | undefined;
  const maxPages = maxPagesFor(maxEvents, first.limit);
  // Full pages in a row with no event new to this listing.
  let stale = 0;
  for (let page = 1; ; page++) {
    const events = await fetch({ limit: first.limit, start });
    const ids = new Set<string>();
    const fresh: DeviceEvent[] = [];
    for (const e of events) {
      ids.add(e.id);
      const repeated = previousIds.has(e.id) || (oldest !== undefined && e.creationDate > oldest);
      if (!repeated && emitted + fresh.length < maxEvents) fresh.push(e);
    }
    emitted += fresh.length;
    const last = fresh.at(-1);
    if (last && typeof last.creationDate === "number") oldest = last.creationDate;
    const full = events.length >= first.limit;
    stale = fresh.length === 0 ? stale + 1 : 0;
    const stopped: StopReason | undefined =
      !full || emitted >= maxEvents
        ? undefined
        : stale >= 2
          ? "no-progress"
          : page >= maxPages
            ? "max-pages"
            : undefined;
    yield {
      events: fresh,
      start,
      page,
      received: events.length,
      full,
      ...(stopped ? { stopped } : {}),
    };
    if (!full || emitted >= maxEvents || stopped) return;
    previousIds = ids;
    start += events.length;
  }
}
