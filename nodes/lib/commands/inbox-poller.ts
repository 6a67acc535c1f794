// One poll per inbox per interval, shared by every await on that inbox through one account: 50
// awaits on a device cost the API what one does. Polls go through the rate limiter's poll lane,
// so a backlog of commands never delays them.
//
// Each poll reads the newest events, page after page, until it reaches what the previous polls
// read (or events older than every pending wait), so no marker is skipped however many arrive
// between two polls, as long as the server still holds them: past the stream's capacity the
// server has dropped the oldest, and the watch reports an overrun. A poll that fails leaves
// everything as it was; the next one reads the same events again.
//
// Which wait a marker belongs to (docs/api-notes.md, Markers): the wait whose command id is, or
// is contained in, one of the marker's strings (keys or values, any depth), found through an
// index by command id, so the cost does not grow with the number of waits. A marker that names an
// id, but of no pending wait, belongs to none of them: it waits, unclaimed, for a wait that may
// start a moment later (a delay node between send and await, an answer that came after the device
// acted), or for the oldest wait without a command id created at or before it. A marker that
// names no id at all belongs to the oldest wait created at or before it. Every marker goes to
// exactly one wait.
import type { CallOptions, EdgeClient } from "../api/client";
import type { EdgeError } from "../api/errors";
import type { DeviceEvent } from "../api/types";
import { IdIndex, markerOf, namesSomeId } from "./markers";
import type { Marker, MarkerName } from "./markers";

/** An inbox by stream id or, through the documented fall-back, by stream path. */
export interface InboxRef {
  streamId?: string;
  path?: string;
}

/** Told about the inbox as a whole; one per node, shared by its waits. */
export interface InboxObserver {
  /** A poll failed for a passing reason (the waits stay), or, with undefined, worked again. */
  onReadState(err: EdgeError | undefined): void;
  /** More events arrived between two polls than the server kept: markers may have been lost. */
  onOverrun(): void;
}

export interface Wait {
  /** The command's event id, when the server returned it. */
  readonly commandId: string | undefined;
  /** Markers created before this (server time, ms) are not for this command. */
  readonly since: number;
  readonly intervalMs: number;
  readonly observer?: InboxObserver;
  onMarker(event: DeviceEvent, marker: MarkerName): void;
  /** A poll was refused for good (unknown inbox, credentials): the wait must end with this error. */
  onError(err: EdgeError): void;
  /**
   * The read asked for by `finalRead()` is done: it started after the request and succeeded, or
   * the inbox could not be read `FINAL_TRIES` times (then with the last error).
   */
  onFinalRead(err: EdgeError | undefined): void;
}

/** What `watch()` returns: one object per wait. */
export interface WatchHandle {
  /** Stops delivering markers to the wait. */
  stop(): void;
  /** Reads the inbox once more as soon as possible, then calls the wait's onFinalRead. */
  finalRead(): void;
}

const FIRST_PAGE = 100;
const NEXT_PAGE = 500;
/** The largest capacity the service allowed a stream: no poll reads more than this. */
const MAX_EVENTS_PER_POLL = 100_000;
/** Unclaimed markers, and the ids of events already read, are kept this long after the read. */
const RETAIN_MS = 10 * 60_000;
/** At most this many unclaimed markers per inbox; past it the oldest read are dropped. */
const MAX_UNCLAIMED = 10_000;
/** Ids of ended waits remembered, so their late markers go to nobody else. */
const MAX_ENDED = 10_000;
/** A final read that fails this many times gives up. */
const FINAL_TRIES = 3;
/** Strings longer than this are not indexed but searched, when a wait starts. */
const MAX_INDEXED = 512;

/** Refusals that another try will not change. Anything else (5xx, 429, resets, timeouts, answers
 * that are not the API's, a full queue) passes. */
function isLasting(err: EdgeError): boolean {
  return (
    err.code === "auth" ||
    err.code === "not-found" ||
    err.code === "bad-config" ||
    err.status === 401 ||
    err.status === 403 ||
    err.status === 404 ||
    err.status === 410
  );
}

/** A string's shape: hex digits, other letters, the rest as is. Ids of one server share one. */
function shapeOf(s: string): string {
  return s.replace(/[0-9a-f]/gi, "h").replace(/[g-z]/gi, "a");
}

function dateOf(e: DeviceEvent): number {
  return typeof e.creationDate === "number" && Number.isFinite(e.creationDate)
    ? e.creationDate
    : Date.now();
}

class Entry implements WatchHandle {
  /** The list of all waits, oldest `since` first. */
  prev: Entry | undefined;
  next: Entry | undefined;
  /** The list of waits without a command id, oldest first. */
  prevNoId: Entry | undefined;
  nextNoId: Entry | undefined;
  /** The next wait with the same command id. */
  sameId: Entry | undefined;
  active = true;
  /** performance.now() of a final read request, or -1. */
  finalAfter = -1;
  finalTries = 0;

  constructor(
    readonly watch: InboxWatch,
    readonly wait: Wait,
  ) {}

  stop(): void {
    this.watch.remove(this);
  }

  finalRead(): void {
    this.watch.requestFinal(this);
  }
}

interface Unclaimed {
  readonly marker: Marker;
  readonly date: number;
  readonly readAt: number;
  /** Names some id (not of a pending wait): only a wait with that id, or one without id, takes it. */
  readonly named: boolean;
  claimed: boolean;
  /** Lengths of the substrings it is indexed by. */
  readonly lengths: Set<number>;
}

/** Markers read and given to no wait yet, findable by the strings they hold and by date. */
class UnclaimedMarkers {
  /** In read order, for the age and count bounds. */
  private readonly items = new Set<Unclaimed>();
  private readonly byString = new Map<string, Set<Unclaimed>>();
  private readonly long = new Set<Unclaimed>();
  /** By date, oldest first, for the rule of markers without a known id. */
  private byDate: Unclaimed[] = [];
  private claimedInByDate = 0;

  get size(): number {
    return this.items.size;
  }

  add(item: Unclaimed, lengths: ReadonlySet<number>): void {
    this.items.add(item);
    for (const key of this.keysOf(item, lengths, true)) this.indexKey(key, item);
    let i = this.byDate.length;
    // Indexes below are within the array's bounds, which the compiler cannot see.
    while (i > 0 && (this.byDate[i - 1] as Unclaimed).date > item.date) i--;
    this.byDate.splice(i, 0, item);
    for (const oldest of this.items) {
      if (this.items.size <= MAX_UNCLAIMED) break;
      this.drop(oldest);
    }
  }

  /** Adds the substrings of a newly seen id length to the index. */
  indexLength(length: number): void {
    const only = new Set([length]);
    for (const item of this.items) {
      for (const key of this.keysOf(item, only, false)) this.indexKey(key, item);
    }
  }

  /** Drops what was read more than RETAIN_MS ago. */
  expire(now: number): void {
    for (const item of this.items) {
      if (now - item.readAt < RETAIN_MS) break;
      this.drop(item);
    }
  }

  /** The unclaimed markers that hold `id`, oldest first. */
  withId(id: string): Unclaimed[] {
    const found = [...(this.byString.get(id) ?? [])];
    for (const item of this.long) {
      if (item.marker.strings.some((s) => s.length > MAX_INDEXED && s.includes(id)))
        found.push(item);
    }
    return found.sort((a, b) => a.date - b.date);
  }

  /** Unclaimed markers created at or after `since`, oldest first, named ones only if asked. */
  since(since: number, named: boolean): Unclaimed[] {
    let lo = 0;
    let hi = this.byDate.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.byDate[mid] as Unclaimed).date < since) lo = mid + 1;
      else hi = mid;
    }
    const out: Unclaimed[] = [];
    for (let i = lo; i < this.byDate.length; i++) {
      const item = this.byDate[i] as Unclaimed;
      if (!item.claimed && (named || !item.named)) out.push(item);
    }
    return out;
  }

  /** Takes the marker out: it was handed to a wait, or dropped. */
  drop(item: Unclaimed): void {
    if (item.claimed) return;
    item.claimed = true;
    this.items.delete(item);
    this.long.delete(item);
    for (const key of this.keysOf(item, item.lengths, true)) {
      const set = this.byString.get(key);
      set?.delete(item);
      if (set?.size === 0) this.byString.delete(key);
    }
    if (++this.claimedInByDate * 2 > this.byDate.length) {
      this.byDate = this.byDate.filter((i) => !i.claimed);
      this.claimedInByDate = 0;
    }
  }

  private indexKey(key: string, item: Unclaimed): void {
    let set = this.byString.get(key);
    if (!set) this.byString.set(key, (set = new Set()));
    set.add(item);
  }

  /**
   * The marker's strings (when `whole`) and their substrings of the given lengths, which become
   * the item's; strings too long to index are searched instead, when a wait starts.
   */
  private keysOf(item: Unclaimed, lengths: ReadonlySet<number>, whole: boolean): Set<string> {
    const keys = new Set<string>();
    for (const s of item.marker.strings) {
      if (s.length > MAX_INDEXED) {
        if (!item.claimed) this.long.add(item);
        continue;
      }
      if (whole) keys.add(s);
      for (const length of lengths) {
        for (let i = 0; length > 0 && i + length < s.length; i++) keys.add(s.slice(i, i + length));
      }
    }
    if (lengths !== item.lengths) for (const l of lengths) item.lengths.add(l);
    return keys;
  }
}

class InboxWatch {
  private head: Entry | undefined;
  private tail: Entry | undefined;
  private headNoId: Entry | undefined;
  private tailNoId: Entry | undefined;
  private count = 0;
  private readonly byId = new IdIndex<Entry>();
  private readonly ended = new IdIndex<number>();
  private readonly idLengths = new Set<number>();
  private readonly idShapes = new Set<string>();
  private readonly intervals = new Map<number, number>();
  private readonly unclaimed = new UnclaimedMarkers();
  /** Ids of events read, with their creation date and when they were read. */
  private readonly seen = new Map<string, { d: number; r: number }>();
  /** Events created before this were forgotten: never read again. */
  private horizon = -Infinity;
  /** Every event created since this was read (as far as the server still held it). */
  private coveredFrom = Infinity;
  private newestRead = -Infinity;
  private lastPrune = 0;
  private timer: NodeJS.Timeout | undefined;
  private linger: NodeJS.Timeout | undefined;
  private polling = false;
  private pollAgain = false;
  private lastStart = -Infinity;
  private retryAfterMs = 0;
  private failing: EdgeError | undefined;
  private controller: AbortController | undefined;
  private finals = 0;
  private closed = false;

  constructor(
    private readonly client: EdgeClient,
    private readonly inbox: InboxRef,
    private readonly onIdle: () => void,
  ) {}

  get waiting(): number {
    return this.count;
  }

  add(wait: Wait): Entry {
    const entry = new Entry(this, wait);
    clearTimeout(this.linger);
    this.linger = undefined;
    this.insert(entry);
    this.intervals.set(wait.intervalMs, (this.intervals.get(wait.intervalMs) ?? 0) + 1);
    const id = wait.commandId;
    if (id !== undefined && id !== "") {
      if (!this.idLengths.has(id.length)) {
        this.idLengths.add(id.length);
        this.unclaimed.indexLength(id.length);
      }
      if (this.idShapes.size < 100) this.idShapes.add(shapeOf(id));
      const first = this.byId.get(id);
      if (first) {
        let last = first;
        while (last.sameId) last = last.sameId;
        last.sameId = entry;
      } else this.byId.set(id, entry);
    }
    this.claim(entry);
    if (entry.active) this.schedule();
    return entry;
  }

  remove(entry: Entry): void {
    if (!entry.active) return;
    entry.active = false;
    if (entry.finalAfter >= 0) this.finals--;
    this.unlink(entry);
    const n = (this.intervals.get(entry.wait.intervalMs) ?? 1) - 1;
    if (n === 0) this.intervals.delete(entry.wait.intervalMs);
    else this.intervals.set(entry.wait.intervalMs, n);
    const id = entry.wait.commandId;
    if (id !== undefined && id !== "") {
      const first = this.byId.get(id);
      if (first === entry) {
        if (entry.sameId) this.byId.set(id, entry.sameId);
        else {
          this.byId.delete(id);
          this.ended.set(id, Date.now());
          if (this.ended.size > MAX_ENDED) {
            for (const oldest of this.ended.keys()) {
              this.ended.delete(oldest);
              break;
            }
          }
        }
      } else {
        for (let e = first; e; e = e.sameId) {
          if (e.sameId === entry) {
            e.sameId = entry.sameId;
            break;
          }
        }
      }
    }
    if (this.count === 0) this.idle();
  }

  requestFinal(entry: Entry): void {
    if (!entry.active) return;
    if (entry.finalAfter < 0) this.finals++;
    entry.finalAfter = performance.now();
    entry.finalTries = 0;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.poll();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.linger);
    this.timer = undefined;
    this.controller?.abort();
  }

  /** No wait left: stop polling, but keep what was read for a while (a wait may start soon). */
  private idle(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.controller?.abort();
    this.failing = undefined;
    this.linger = setTimeout(() => {
      if (this.count === 0) this.onIdle();
    }, RETAIN_MS);
    this.linger.unref();
  }

  private insert(entry: Entry): void {
    this.count++;
    const since = entry.wait.since;
    // Waits mostly start in the order of their commands: walk back from the newest, unless the
    // wait is older than all (commands replayed newest first).
    let after = this.head && since < this.head.wait.since ? undefined : this.tail;
    while (after && after.wait.since > since) after = after.prev;
    entry.prev = after;
    entry.next = after ? after.next : this.head;
    if (entry.next) entry.next.prev = entry;
    else this.tail = entry;
    if (after) after.next = entry;
    else this.head = entry;
    if (entry.wait.commandId === undefined) {
      let a = this.headNoId && since < this.headNoId.wait.since ? undefined : this.tailNoId;
      while (a && a.wait.since > since) a = a.prevNoId;
      entry.prevNoId = a;
      entry.nextNoId = a ? a.nextNoId : this.headNoId;
      if (entry.nextNoId) entry.nextNoId.prevNoId = entry;
      else this.tailNoId = entry;
      if (a) a.nextNoId = entry;
      else this.headNoId = entry;
    }
  }

  private unlink(entry: Entry): void {
    this.count--;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    if (entry.wait.commandId === undefined) {
      if (entry.prevNoId) entry.prevNoId.nextNoId = entry.nextNoId;
      else this.headNoId = entry.nextNoId;
      if (entry.nextNoId) entry.nextNoId.prevNoId = entry.prevNoId;
      else this.tailNoId = entry.prevNoId;
      entry.prevNoId = entry.nextNoId = undefined;
    }
  }

  /** A new wait takes the unclaimed markers that are its own, by the rules of a live marker. */
  private claim(entry: Entry): void {
    if (this.unclaimed.size === 0) return;
    const id = entry.wait.commandId;
    if (id !== undefined && id !== "") {
      for (const item of this.unclaimed.withId(id)) {
        if (!entry.active) return;
        this.unclaimed.drop(item);
        this.hand(entry, item.marker);
      }
    }
    // Unclaimed markers without a known id had no wait created at or before them; this one is.
    for (const item of this.unclaimed.since(entry.wait.since, id === undefined)) {
      if (!entry.active) return;
      this.unclaimed.drop(item);
      this.hand(entry, item.marker);
    }
  }

  private hand(entry: Entry, marker: Marker): void {
    entry.wait.onMarker(marker.event, marker.name);
  }

  private dispatch(marker: Marker, date: number, now: number): void {
    const byId = this.byId.find(marker.strings);
    if (byId) {
      this.hand(byId, marker);
      return;
    }
    // A late marker of a wait that has ended belongs to nobody else.
    if (this.ended.find(marker.strings) !== undefined) return;
    const named =
      namesSomeId(marker) ||
      (this.idShapes.size > 0 && marker.strings.some((s) => this.idShapes.has(shapeOf(s))));
    const oldest = named ? this.headNoId : this.head;
    if (oldest && oldest.wait.since <= date) {
      this.hand(oldest, marker);
      return;
    }
    this.unclaimed.add(
      { marker, date, readAt: now, named, claimed: false, lengths: new Set() },
      this.idLengths,
    );
  }

  private interval(): number {
    let ms = Infinity;
    for (const i of this.intervals.keys()) ms = Math.min(ms, i);
    return ms === Infinity ? 1000 : ms;
  }

  private schedule(): void {
    if (this.closed || this.polling || this.count === 0) return;
    if (this.pollAgain || this.finals > 0) {
      // A final read waits for nothing but the rate limiter.
      const due = this.finalDue();
      if (due) {
        this.pollAgain = false;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.poll(), 0);
        return;
      }
    }
    if (this.timer !== undefined) return;
    // Polls keep their cadence from the start of the previous one.
    const wait = Math.max(
      0,
      this.lastStart + this.interval() - performance.now(),
      this.retryAfterMs,
    );
    this.retryAfterMs = 0;
    this.timer = setTimeout(() => void this.poll(), wait);
  }

  /**
   * True when a final read was asked for after the last poll started: it is made at once. One
   * that the last poll failed to make waits for the next interval, like any poll after a failure.
   */
  private finalDue(): boolean {
    if (this.finals === 0) return false;
    for (let e = this.head; e; e = e.next) if (e.finalAfter > this.lastStart) return true;
    return false;
  }

  private fetch(start: number, limit: number, signal: AbortSignal): Promise<DeviceEvent[]> {
    const page = { limit, start };
    // The poll is the retry: a failed one leaves the waits and the next comes an interval later.
    const call: CallOptions = { signal, lane: "poll", retries: 0 };
    return this.inbox.streamId !== undefined
      ? this.client.listEvents(this.inbox.streamId, page, call)
      : this.client.listEventsByPath(this.inbox.path ?? "", page, call);
  }

  private async poll(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || this.polling || this.count === 0) return;
    this.polling = true;
    const started = performance.now();
    this.lastStart = started;
    const controller = new AbortController();
    this.controller = controller;
    const need = Math.max(this.head ? this.head.wait.since : Infinity, this.horizon);
    const deep = this.coveredFrom > need;
    try {
      const fresh: DeviceEvent[] = [];
      const inPoll = new Set<string>();
      let start = 0;
      let limit = FIRST_PAGE;
      let reachedOld = false;
      let reachedPrevious = false;
      let end = false;
      for (;;) {
        const events = await this.fetch(start, limit, controller.signal);
        for (const e of events) {
          if (typeof e.id !== "string") continue;
          if (dateOf(e) < need) reachedOld = true;
          else if (this.seen.has(e.id)) reachedPrevious ||= !deep;
          else if (!inPoll.has(e.id)) {
            inPoll.add(e.id);
            fresh.push(e);
          }
        }
        start += events.length;
        if (events.length < limit) end = true;
        if (end || reachedOld || reachedPrevious || start >= MAX_EVENTS_PER_POLL) break;
        limit = NEXT_PAGE;
      }
      if (controller.signal.aborted) return;
      const now = Date.now();
      const overrun =
        !reachedOld && !reachedPrevious && (!end || (!deep && this.newestRead >= need));
      // Newest first on the wire; markers are handed out in the order they happened.
      fresh.reverse();
      fresh.sort((a, b) => dateOf(a) - dateOf(b));
      for (const e of fresh) {
        const d = dateOf(e);
        this.seen.set(e.id, { d, r: now });
        if (d > this.newestRead) this.newestRead = d;
      }
      if (reachedOld || end) this.coveredFrom = Math.min(this.coveredFrom, need);
      for (const e of fresh) {
        const marker = markerOf(e);
        if (marker) this.dispatch(marker, dateOf(e), now);
      }
      if (this.failing) {
        this.failing = undefined;
        this.tell((o) => {
          o.onReadState(undefined);
        });
      }
      if (overrun) {
        this.tell((o) => {
          o.onOverrun();
        });
      }
      this.finishFinals(started, undefined);
      this.prune(now, need);
    } catch (caught) {
      if (controller.signal.aborted || this.isClosed()) return;
      const err = caught as EdgeError;
      if (isLasting(err)) {
        for (let e = this.head; e;) {
          const next = e.next;
          e.wait.onError(err);
          e = next;
        }
        return;
      }
      this.failing = err;
      this.retryAfterMs = err.retryAfterMs ?? 0;
      this.tell((o) => {
        o.onReadState(err);
      });
      this.finishFinals(started, err);
    } finally {
      if (this.controller === controller) this.controller = undefined;
      this.polling = false;
      this.schedule();
    }
  }

  /** Final reads asked for before this poll started are answered by it. */
  private finishFinals(started: number, err: EdgeError | undefined): void {
    if (this.finals === 0) return;
    const done: Entry[] = [];
    for (let e = this.head; e; e = e.next) {
      if (e.finalAfter < 0 || e.finalAfter > started) continue;
      if (err && ++e.finalTries < FINAL_TRIES) continue;
      done.push(e);
    }
    for (const e of done) if (e.active) e.wait.onFinalRead(err);
  }

  /** Each observer once, however many of its waits are here. */
  private tell(fn: (o: InboxObserver) => void): void {
    const told = new Set<InboxObserver>();
    for (let e = this.head; e; e = e.next) {
      const o = e.wait.observer;
      if (o && !told.has(o)) {
        told.add(o);
        fn(o);
      }
    }
  }

  /** Forgets, at most once a minute, what is old and needed by no pending wait. */
  private prune(now: number, need: number): void {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    this.unclaimed.expire(now);
    for (const [id, { d, r }] of this.seen) {
      if (now - r < RETAIN_MS) continue;
      if (d < need) {
        this.seen.delete(id);
        if (d > this.horizon) this.horizon = d;
      }
    }
    for (const id of [...this.ended.keys()]) {
      const at = this.ended.get(id);
      if (at !== undefined && now - at > RETAIN_MS) this.ended.delete(id);
    }
  }

  /** Read through a method: the poll awaits, and close() may run in between. */
  private isClosed(): boolean {
    return this.closed;
  }
}

/** Owned by the account: every inbox being watched through it. */
export class InboxPoller {
  private readonly watches = new Map<string, InboxWatch>();

  constructor(private readonly client: EdgeClient) {}

  /** Starts delivering the inbox's markers to `wait`, first those read before it started. */
  watch(inbox: InboxRef, wait: Wait): WatchHandle {
    const key = inbox.streamId !== undefined ? `id:${inbox.streamId}` : `path:${inbox.path ?? ""}`;
    let w = this.watches.get(key);
    if (!w) {
      const created = new InboxWatch(this.client, inbox, () => {
        if (this.watches.get(key) === created) this.watches.delete(key);
      });
      this.watches.set(key, created);
      w = created;
    }
    return w.add(wait);
  }

  /** Inboxes polled right now, that is with a pending wait (for tests and the benchmark). */
  get size(): number {
    let n = 0;
    for (const w of this.watches.values()) if (w.waiting > 0) n++;
    return n;
  }

  close(): void {
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
  }
}
