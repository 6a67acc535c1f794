// One read per stream per interval, shared by every watch on that stream through one account: 200
// watch nodes on 100 streams cost the API 100 reads per interval, at the shortest interval among
// each stream's watches. Owned by the account, like the inbox poller.
//
// A read lists the stream from the top, newest first, a page at a time, until every watch on it
// has what it needs (an event older than its position, or the stream's end), at most
// MAX_READ_EVENTS events. Each watch then gets the events after its own position, oldest first,
// and its new position. A read either completes for everyone or changes nothing, so a failed or
// truncated page never moves a position past an event that was not delivered; and since every
// read starts at the top again, events pushed from one page into the next while paging are seen
// twice and dropped by id, never missed.
//
// An event is placed by the creation date it had when this stream was first read with it in it: a
// server that changed an event's creationDate at every read once made every watch deliver it
// again each interval, flagged as a gap with a warning each time. The dates of the last 1,000
// events listed are remembered per stream (not per watch) for the process (known-dates.ts), so a
// redeploy keeps them; an event re-dated after that many newer ones, or after a restart, is
// delivered once more.
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import { timerDelay } from "../api/timer-delay";
import type { DeviceEvent } from "../api/types";
import { eventIdOf } from "./event-id";
import { advance, chronological, headOf, isAfter, reaches } from "./position";
import { knownDatesOf } from "./known-dates";
import type { KnownDates } from "./known-dates";
import type { Listing, Position } from "./position";

/** A stream by id or, through the documented `GET /event?path=` fall-back, by path. */
export interface StreamRef {
  streamId?: string;
  path?: string;
}

/** Where a watch starts: a saved position, the stream's head, or its newest `count` events. */
export type StartFrom =
  { kind: "position"; position: Position } | { kind: "new" } | { kind: "last"; count: number };

export interface ReadResult {
  /** The events after the watch's position, oldest first. */
  events: DeviceEvent[];
  position: Position;
  /** The position is new (the watch started, or events were handed over): save it. */
  moved: boolean;
  /** Events between the old position and the first of `events` are gone (see reaches()). */
  gap: boolean;
  /** The read listed an event with another creationDate than when it was first listed. */
  redated: boolean;
}

export interface Watch {
  readonly intervalMs: number;
  /** The node this watch is for, shown in the editor's sidebar. */
  readonly nodeId?: string;
  /** After every successful read, also one that found nothing new. */
  onRead(result: ReadResult): void;
  /**
   * True while the events cannot be handed on (Node-RED is deploying): a read that found new
   * events for this watch leaves its position as it was, and a later read hands them on.
   */
  holding?(): boolean;
  /**
   * A read failed. `lasting` (credentials or stream refused): the watch has been removed. Else the
   * next read comes in `retryInMs`.
   */
  onError(err: EdgeError, lasting: boolean, retryInMs: number): void;
}

/** What the editor's sidebar shows of one watched stream: numbers and codes, no event contents. */
export interface WatchView {
  stream: string;
  nodes: string[];
  intervalMs: number;
  /** Date.now() of the last read that succeeded. */
  lastRead: number | undefined;
  /** The newest creation date the reads listed. */
  lastEvent: number | undefined;
  delivered: number;
  gaps: number;
  state: "reading" | "backing-off" | "stopped";
  /** Why it backs off or stopped: the error's code and HTTP status. */
  reason: { code: string; status: number | undefined } | undefined;
  /** When the next read comes, while backing off. */
  retryAt: number | undefined;
}

/** Watched streams listed for the sidebar, and stopped ones kept for it, per account. */
const MAX_VIEWS = 50;

/** The first page is small: between two reads of a quiet stream, few events arrive. */
const FIRST_PAGE = 10;
/** Later pages, in a burst. Real clients used limits up to 10,000; 100 is safe for any server. */
const PAGE = 100;
/** The bound of one read: past it the rest is reported as a gap. */
export const MAX_READ_EVENTS = 10_000;
const MAX_BACKOFF_MS = 60_000;

/** An event's elems as JSON, what tells an id reused for another event (known-dates.ts). */
function elemsOf(e: DeviceEvent): string {
  try {
    return JSON.stringify(e.elems);
  } catch {
    return "";
  }
}

/** Refusals that the next read would meet again: the watch stops until the next deploy. */
export function isLasting(err: EdgeError): boolean {
  return (
    err.code === "auth" ||
    err.code === "not-found" ||
    err.code === "bad-config" ||
    err.status === 400 ||
    err.status === 410
  );
}

class Entry {
  removed = false;
  constructor(
    readonly watch: Watch,
    public from: StartFrom,
  ) {}
}

/** What `entry` still needs from a listing before the read may stop. */
function satisfied(entry: Entry, l: Listing): boolean {
  if (l.ended) return true;
  const from = entry.from;
  switch (from.kind) {
    case "position":
      return from.position.date !== null && l.oldest < from.position.date;
    case "new":
      return l.oldest < l.newest;
    case "last":
      return l.events.length >= from.count && l.oldest < l.newest;
  }
}

function resolve(entry: Entry, listing: Listing, redated: boolean): ReadResult {
  const from = entry.from;
  if (from.kind === "new") {
    return { events: [], position: headOf(listing), moved: true, gap: false, redated };
  }
  if (from.kind === "last") {
    const events = chronological(listing.events.slice(0, from.count));
    return { events, position: advance(null, events, listing), moved: true, gap: false, redated };
  }
  const pos = from.position;
  const ids = new Set(pos.ids);
  const events = chronological(listing.events.filter((e) => isAfter(e, pos, ids)));
  return {
    events,
    position: events.length > 0 ? advance(pos, events, listing) : pos,
    moved: events.length > 0,
    gap: events.length > 0 && !reaches(listing, pos, ids),
    redated,
  };
}

class StreamWatch {
  private readonly entries = new Set<Entry>();
  /** Watches added while a read runs: they join the next one, which starts right after. */
  private joining: Entry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private stopped = false;
  private failures = 0;
  /** When the current or last read was due: reads keep to this grid, late timers do not add up. */
  private lastDue = -Infinity;
  private due = -Infinity;
  private readonly controller = new AbortController();
  private readonly call: CallOptions;
  /** Each event's creation date when first listed by this runtime (known-dates.ts). */
  private readonly knownDates: KnownDates;
  /** The current read met an event whose creationDate changed. */
  private redated = false;
  reads = 0;
  /** Its view when a lasting refusal stopped it, with the nodes it had. */
  stopView: WatchView | undefined;
  /** Kept up as reads end (a few assignments each), turned into a WatchView only when asked. */
  readonly stats: Omit<WatchView, "stream" | "nodes" | "intervalMs"> = {
    lastRead: undefined,
    lastEvent: undefined,
    delivered: 0,
    gaps: 0,
    state: "reading",
    reason: undefined,
    retryAt: undefined,
  };

  constructor(
    private readonly client: EdgeClient,
    private readonly stream: StreamRef,
    private readonly onIdle: () => void,
  ) {
    // The poll lane: served before commands but with a start window of its own, so that a
    // hundred watched streams neither wait behind a command backlog nor use up its budget.
    this.call = { signal: this.controller.signal, lane: "poll" };
    const ref = stream.streamId !== undefined ? `id:${stream.streamId}` : `path:${stream.path}`;
    this.knownDates = knownDatesOf(`${client.origin} ${ref}`);
  }

  add(watch: Watch, from: StartFrom): Entry {
    const entry = new Entry(watch, from);
    if (this.reading) this.joining.push(entry);
    else {
      this.entries.add(entry);
      this.readSoon();
    }
    return entry;
  }

  remove(entry: Entry): void {
    entry.removed = true;
    this.entries.delete(entry);
    this.joining = this.joining.filter((e) => e !== entry);
    if (this.entries.size === 0 && this.joining.length === 0) this.stop();
  }

  view(): WatchView {
    const nodes: string[] = [];
    for (const e of [...this.entries, ...this.joining])
      if (e.watch.nodeId !== undefined && nodes.length < MAX_VIEWS) nodes.push(e.watch.nodeId);
    return {
      stream: this.stream.path ?? this.stream.streamId ?? "",
      nodes,
      intervalMs: this.entries.size + this.joining.length > 0 ? this.interval() : 0,
      ...this.stats,
    };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.controller.abort();
    this.onIdle();
  }

  /** A method, not a field read: the compiler must not assume it unchanged across an await. */
  private isStopped(): boolean {
    return this.stopped;
  }

  private interval(): number {
    let ms = Infinity;
    for (const e of this.entries) ms = Math.min(ms, e.watch.intervalMs);
    for (const e of this.joining) ms = Math.min(ms, e.watch.intervalMs);
    return ms;
  }

  /** A watch was added: read now (its start must be taken when it starts), once per tick. */
  private readSoon(): void {
    if (this.reading || this.stopped) return;
    clearTimeout(this.timer);
    this.due = performance.now();
    this.timer = setTimeout(() => void this.read(), 0);
  }

  private schedule(extraMs: number): void {
    if (this.reading || this.stopped || this.entries.size === 0) return;
    clearTimeout(this.timer);
    const now = performance.now();
    // Start to start, on the grid of the first read: a slow read or a late timer does not stretch
    // the next interval. After a long stall the grid starts again from now.
    let due = this.lastDue + this.interval() + extraMs;
    if (due < now - this.interval()) due = now;
    this.due = due;
    this.timer = setTimeout(() => void this.read(), timerDelay(due - now));
  }

  private page(start: number, limit: number): Promise<DeviceEvent[]> {
    const page = { start, limit };
    return this.stream.streamId !== undefined
      ? this.client.listEvents(this.stream.streamId, page, this.call)
      : this.client.listEventsByPath(this.stream.path ?? "", page, this.call);
  }

  /** Pages from the top until every entry is satisfied, the stream ends or the bound is hit. */
  private async list(group: Entry[]): Promise<Listing> {
    const listing: Listing = { events: [], oldest: Infinity, newest: -Infinity, ended: false };
    // The date each re-dated event is listed at now: how far down the read went (listing.oldest)
    // is where the server lists an event, not where it is placed. An event re-dated to the top,
    // placed at its first date, once ended a read above events it never listed, and the watch
    // went past them without msg.gap (the redates property, seed 1 path 2).
    const listedDate = new Map<DeviceEvent, number>();
    const seen = new Set<string>();
    // Enough for one request in the usual case: a position's page must reach past the events that
    // share its date, and `last` N must see N + 1.
    let wanted = FIRST_PAGE;
    for (const { from } of group) {
      if (from.kind === "last") wanted = Math.max(wanted, from.count + 1);
      if (from.kind === "position")
        wanted = Math.max(wanted, from.position.ids.length + FIRST_PAGE);
    }
    let limit = Math.min(wanted, PAGE);
    let start = 0;
    // Full pages in a row with no event new to this read. One can be a page's worth of events
    // landing on top while we page; two are a server that ignores `start` and answers its first
    // page every time, which once kept a read asking for it forever, delivering nothing.
    let stale = 0;
    // Events of later pages that do not join on to what the read listed so far (see joins). Kept
    // aside until a page joins on again; dropped from the listing if none does.
    let floating: DeviceEvent[] = [];
    for (;;) {
      const page = await this.page(start, limit);
      const before = seen.size;
      const fresh: DeviceEvent[] = [];
      // A later page joins on when it lists an event this read listed already or one older than
      // the oldest listed: it goes on down the stream. Each later page starts at the last event
      // of the page before (below), so one that goes on down lists it, however many events
      // landed on top meanwhile, short of a page. One that does neither was listed after the
      // stream dropped, by its capacity, everything the read had reached and what lay below
      // (capacity property seed 20261128, path 47: a page at start 10 listed events newer than
      // the whole first page, and the events between the two, dropped or pushed up, were taken
      // as delivered, without msg.gap). Dates alone cannot tell: a device clock of one-second
      // resolution dates both pages alike (seed 77, path 584).
      let joins = listing.events.length === 0;
      for (const listed of page) {
        // An event without an id or a date cannot be placed: it is skipped, not guessed at.
        const id = eventIdOf(listed.id);
        if (id === undefined || typeof listed.creationDate !== "number") continue;
        if (seen.has(id)) {
          // Listed again, pushed down: it joins on only if it is no floating event itself.
          if (!floating.some((f) => f.id === id)) joins = true;
          continue;
        }
        seen.add(id);
        const e = id === listed.id ? listed : { ...listed, id };
        const placed = this.placed(e);
        if (placed !== e) listedDate.set(placed, e.creationDate);
        if (e.creationDate < listing.oldest) joins = true;
        fresh.push(placed);
      }
      if (joins) {
        for (const placed of [...floating, ...fresh]) {
          listing.events.push(placed);
          listing.oldest = Math.min(listing.oldest, listedDate.get(placed) ?? placed.creationDate);
          listing.newest = Math.max(listing.newest, placed.creationDate);
        }
        floating = [];
      } else floating.push(...fresh);
      // `limit` is a maximum: a shorter page is the end of the stream, as for edge-list-events.
      // Reached through pages that never joined on, it is not the end of what the read listed:
      // the next read, from the top, finds the events of those pages again, or reports a gap.
      if (page.length < limit) {
        listing.ended = floating.length === 0;
        return listing;
      }
      if (group.every((e) => satisfied(e, listing))) return listing;
      if (seen.size >= MAX_READ_EVENTS) return listing;
      // As at the bound, what lies past the listing is reported as a gap.
      stale = seen.size === before ? stale + 1 : 0;
      if (stale >= 2) return listing;
      // One event back: the page before's last, by which the next page shows it joins on.
      start += page.length - 1;
      limit = PAGE;
    }
  }

  /** The event at the date it was first listed with (a copy when the server changed it). */
  private placed(e: DeviceEvent): DeviceEvent {
    const known = this.knownDates.first(e.id, e.creationDate, () => elemsOf(e));
    if (known === e.creationDate) return e;
    this.redated = true;
    return { ...e, creationDate: known };
  }

  /** Each watch gets its part of a completed read; one that throws does not keep the others'. */
  private hand(group: Entry[], listing: Listing): void {
    for (const entry of group) {
      if (entry.removed || this.isStopped()) continue;
      const result = resolve(entry, listing, this.redated);
      if (result.events.length > 0 && entry.watch.holding?.()) continue;
      entry.from = { kind: "position", position: result.position };
      this.stats.delivered += result.events.length;
      if (result.gap) this.stats.gaps++;
      try {
        entry.watch.onRead(result);
      } catch {
        // The watch's own failure (its node reports it); the read itself succeeded.
      }
    }
  }

  private async read(): Promise<void> {
    this.timer = undefined;
    if (this.stopped || this.reading || this.entries.size === 0) return;
    this.reading = true;
    this.lastDue = this.due;
    this.reads++;
    this.redated = false;
    const group = [...this.entries];
    let extra = 0;
    try {
      const listing = await this.list(group);
      this.failures = 0;
      const stats = this.stats;
      stats.lastRead = Date.now();
      if (listing.newest > (stats.lastEvent ?? -Infinity)) stats.lastEvent = listing.newest;
      stats.state = "reading";
      stats.reason = stats.retryAt = undefined;
      this.hand(group, listing);
    } catch (caught) {
      if (this.isStopped()) return;
      const err =
        caught instanceof EdgeError
          ? caught
          : new EdgeError("network", { origin: this.client.origin, detail: String(caught) });
      if (isLasting(err)) {
        const all = [...this.entries, ...this.joining];
        this.stats.state = "stopped";
        this.stats.reason = { code: err.code, status: err.status };
        this.stats.retryAt = undefined;
        this.stopView = this.view();
        this.stop();
        for (const entry of all) entry.watch.onError(err, true, 0);
        return;
      }
      this.failures++;
      // The backoff, or the pause the server asked for when longer (capped where it is parsed,
      // retry.ts): a read never comes sooner than a Retry-After allows.
      extra = Math.max(
        Math.min(this.interval() * 2 ** (this.failures - 1), MAX_BACKOFF_MS),
        err.retryAfterMs ?? 0,
      );
      const retryIn = this.interval() + extra;
      this.stats.state = "backing-off";
      this.stats.reason = { code: err.code, status: err.status };
      this.stats.retryAt = Date.now() + retryIn;
      for (const entry of group) if (!entry.removed) entry.watch.onError(err, false, retryIn);
    } finally {
      this.reading = false;
      if (!this.isStopped()) {
        const joined = this.joining;
        this.joining = [];
        for (const e of joined) this.entries.add(e);
        if (joined.length > 0 && extra === 0) this.readSoon();
        else this.schedule(extra);
      }
    }
  }
}

/** Owned by the account: every stream being watched through it. */
export class StreamWatcher {
  private readonly watches = new Map<string, StreamWatch>();
  /** Streams a lasting refusal stopped, newest last, so the sidebar can say why (MAX_VIEWS). */
  private readonly stoppedViews: WatchView[] = [];

  constructor(private readonly client: EdgeClient) {}

  /** Starts handing the stream's new events to `watch`; the returned function stops it. */
  watch(stream: StreamRef, watch: Watch, from: StartFrom): () => void {
    const key = stream.streamId !== undefined ? `id:${stream.streamId}` : `path:${stream.path}`;
    let w = this.watches.get(key);
    if (!w) {
      const created = new StreamWatch(this.client, stream, () => {
        if (this.watches.get(key) === created) this.watches.delete(key);
        if (created.stopView) {
          this.stoppedViews.push(created.stopView);
          if (this.stoppedViews.length > MAX_VIEWS) this.stoppedViews.shift();
        }
      });
      this.watches.set(key, created);
      w = created;
    }
    const shared = w;
    const entry = shared.add(watch, from);
    return () => {
      shared.remove(entry);
    };
  }

  /** The watched streams, then the stopped ones, at most MAX_VIEWS, with the total count. */
  list(): { total: number; rows: WatchView[] } {
    const rows: WatchView[] = [];
    for (const w of this.watches.values()) {
      if (rows.length >= MAX_VIEWS) break;
      rows.push(w.view());
    }
    for (const v of this.stoppedViews) if (rows.length < MAX_VIEWS) rows.push(v);
    return { total: this.watches.size + this.stoppedViews.length, rows };
  }

  /** Streams being read right now (for tests and the benchmark). */
  get size(): number {
    return this.watches.size;
  }

  /** Reads started since each stream's watch began, summed (for tests and the benchmark). */
  get reads(): number {
    let n = 0;
    for (const w of this.watches.values()) n += w.reads;
    return n;
  }

  close(): void {
    for (const w of [...this.watches.values()]) w.stop();
    this.watches.clear();
  }
}
