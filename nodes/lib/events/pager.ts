// Reading a stream page by page with `start`, as an async iterator whose next() fetches one page.
// Events are newest first and new ones can land at the top while we page, pushing events we have
// already read into the next page: those are skipped, by creation date (newer than the last one
// read) and by the ids of the previous page, so memory stays bounded by the page size.
import type { DeviceEvent, PageQuery } from "../api/types";

export type FetchPage = (page: PageQuery) => Promise<DeviceEvent[]>;

export interface PageRead {
  events: DeviceEvent[];
  /** Index of the page's first event in the stream, as requested. */
  start: number;
  /** Events the server returned, duplicates included. */
  received: number;
  /** Whether a full page came back, so more may follow. */
  full: boolean;
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
  for (;;) {
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
    yield { events: fresh, start, received: events.length, full };
    if (!full || emitted >= maxEvents) return;
    previousIds = ids;
    start += events.length;
  }
}
