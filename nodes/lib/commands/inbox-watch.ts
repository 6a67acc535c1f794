// The polling of one inbox, for every wait on it through one account. Each poll reads the newest
// events, page after page, until it reaches what the previous polls read (or events older than
// every pending wait), so no marker is skipped however many arrive between two polls, as long as
// the server still holds them: past the stream's capacity the server has dropped the oldest, and
// the watch reports an overrun. A poll that fails leaves everything as it was; the next one reads
// the same events again.
//
// Which wait a marker belongs to (docs/api-notes.md, Markers): the wait whose command id is, or
// is contained in, one of the marker's strings (keys or values, any depth), found through the
// waits' index by command id, so the cost does not grow with the number of waits. A marker that
// names an id, but of no pending wait, belongs to none of them: it waits, unclaimed, for a wait
// that may start a moment later, or for the oldest wait without a command id created at or before
// it; one that names the id of a wait that has ended waits only for a wait with that id (the
// wait resumed after a deploy). A marker that names no id at all belongs to the oldest wait
// created at or before it. Every marker goes to at most one wait. A marker that names a wait's id is its own whatever its date:
// reads go back MARKER_EARLY_MS past the oldest wait's date, for answers dated a little before
// their command (a device's clock, a step of the server's), and dates choose only among markers
// that name no command, never for a wait whose command's date is a day or more from our clock
// (datesApart, command-time.ts), which is told of such a result instead (issue 35).
//
// A server's Retry-After pauses the polls (at most MAX_RETRY_AFTER_MS, retry.ts), final reads
// included: no answer makes us read faster than it asked. It cannot hold a wait past its deadline
// either: a final read that the pause would put off beyond the wait's next try is not made, and
// the wait ends at once with the error that stopped the reads (it once waited out 999999 s). The
// pause is for the waits that were pending when it came, and ends with the last of them: one
// stray 429 with a Retry-After of 10 minutes once timed out every command of its device for those
// 10 minutes, though the device answered each in 20 ms. A wait that starts later reads the inbox.
//
// Between the interval's reads come early ones, planned by read-schedule.ts just after the
// device's usual answer time, as long as the rate limiter has room for them (issue 20).
import type { CallOptions, EdgeClient } from "../api/client";
import type { EdgeError } from "../api/errors";
import { timerDelay } from "../api/timer-delay";
import type { DeviceEvent } from "../api/types";
import { eventIdOf } from "../events/event-id";
import type { InboxObserver, InboxRef, Wait } from "./inbox-types";
import { Entry, InboxWaits } from "./inbox-waits";
import type { EntryOwner } from "./inbox-waits";
import { markerOf, namesSomeId } from "./markers";
import { MARKER_EARLY_MS } from "./command-time";
import type { Marker } from "./markers";
import { AnswerTimes } from "./answer-times";
import { FIRST_GAP_MS, ReadSchedule } from "./read-schedule";
import type { PollerOptions } from "./read-schedule";
import { UnclaimedMarkers } from "./unclaimed-markers";
import { AHEAD_SLACK_MS, ClockSteps, aheadBy, mark } from "./clock-steps";

const FIRST_PAGE = 100;
const NEXT_PAGE = 500;
/**
 * The first page of a read that follows a quiet one: most reads of an inbox with a pending wait
 * find nothing new or a marker or two, and parsing 100 old events was most of a quiet read's cost.
 * When the small page is full and all new, the read starts again from the top with FIRST_PAGE: a
 * burst costs one small request more, and is read exactly as before.
 */
const QUIET_PAGE = 10;
/** The largest capacity the service allowed a stream: no poll reads more than this. */
const MAX_EVENTS_PER_POLL = 100_000;
/** Unclaimed markers, the ids of events read and of ended waits are kept this long. */
const RETAIN_MS = 10 * 60_000;
/** A final read that fails this many times gives up. */
const FINAL_TRIES = 3;

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

/** A COMPLETE or FAULT: a result, where a START is not. */
function isResult(marker: Marker): boolean {
  return marker.name === "COMMAND_COMPLETE" || marker.name === "COMMAND_FAULT";
}

function dateOf(e: DeviceEvent): number {
  return typeof e.creationDate === "number" && Number.isFinite(e.creationDate)
    ? e.creationDate
    : Date.now();
}

/**
 * True when a marker read at `readAt` (our clock, when its page came) was read before the wait's
 * command left: it was on the server first, so it is another command's, whatever its date.
 * Clock-free, unlike a date: a server clock stepped back 3 s dated a command before an earlier
 * command's answer, which the later wait took by date (issue 35, stamps seed -268557450 path 167).
 */
function readBeforeSent(wait: Wait, readAt: number): boolean {
  return wait.sentAt !== undefined && readAt < wait.sentAt;
}

/**
 * True when a date cannot say whether a marker is the wait's: its command's date is a day from
 * our clock (datesApart), or the server's clock stepped back before it (Entry.stepMs).
 */
function undatable(entry: Entry): boolean {
  return entry.wait.datesApart === true || entry.stepMs !== undefined;
}

/** One inbox's key, in the poller's map and in the account's answer times. */
export function inboxKey(inbox: InboxRef): string {
  return inbox.streamId !== undefined ? `id:${inbox.streamId}` : `path:${inbox.path ?? ""}`;
}

export class InboxWatch implements EntryOwner {
  private readonly waits = new InboxWaits();
  private readonly unclaimed = new UnclaimedMarkers();
  private readonly steps = new ClockSteps();
  /** Ids of events read, with their creation date and when they were read. */
  private readonly seen = new Map<string, { d: number; r: number }>();
  /** Events created before this were forgotten: never read again. */
  private horizon = -Infinity;
  /** Every event created since this was read (as far as the server still held it). */
  private coveredFrom = Infinity;
  private newestRead = -Infinity;
  /** When the event dated newestRead was read (our clock). */
  private newestReadAt = -Infinity;
  private lastPrune = 0;
  private timer: NodeJS.Timeout | undefined;
  private linger: NodeJS.Timeout | undefined;
  private polling = false;
  private pollAgain = false;
  private lastStart = -Infinity;
  /**
   * The interval's cadence counts from here when a wait starts on an inbox with none: its first
   * read is an early one, planned for the device's answer, not one made at once.
   */
  private anchor = -Infinity;
  private readonly early: ReadSchedule;
  /** The timer set is for an early read, which gives way when the rate limiter has no room. */
  private timerEarly = false;
  /** Set while a poll handed out a COMPLETE or FAULT. */
  private answered = false;
  /**
   * No poll starts before this (performance.now() time): the server's Retry-After, capped; with
   * the error that asked for it, and the waits pending when it came. It ends when they have all
   * ended (so at their deadlines at the latest), or at a read that succeeds.
   */
  private pausedUntil = -Infinity;
  private pauseError: EdgeError | undefined;
  private readonly pausedFor = new Set<Entry>();
  private failing: EdgeError | undefined;
  private controller: AbortController | undefined;
  /** A read of this watch's is in flight: only then has an abort anything to stop. */
  private reading = false;
  /** The last read found fewer than QUIET_PAGE new events: the next one starts small. */
  private quiet = false;
  private finals = 0;
  private closed = false;
  /** performance.now() the timer is set for. */
  private timerAt = Infinity;
  /** Early reads not made because the rate limiter had no room (tests, bench). */
  gaveWay = 0;

  constructor(
    private readonly client: EdgeClient,
    private readonly inbox: InboxRef,
    private readonly onIdle: () => void,
    private readonly options: PollerOptions = { pace: "fixed", answers: new AnswerTimes() },
  ) {
    this.early = new ReadSchedule(options, inboxKey(inbox));
  }

  /** The learned answer time of this inbox's device (tests, bench). */
  get expectedAnswerMs(): number | undefined {
    return this.early.expectedAnswerMs;
  }

  get waiting(): number {
    return this.waits.count;
  }

  add(wait: Wait): Entry {
    const entry = new Entry(this, wait);
    clearTimeout(this.linger);
    this.linger = undefined;
    const id = wait.commandId;
    // Markers read before are indexed anew by the substrings of an id length not seen so far.
    if (id !== undefined && id !== "" && !this.waits.idLengths.has(id.length))
      this.unclaimed.indexLength(id.length);
    const first = this.waits.count === 0;
    // Only the server's own dates of commands show a step of its clock (clock-steps.ts): against
    // another command's, or the newest event read so far.
    if (wait.dated) {
      this.steps.add(entry);
      mark(entry, aheadBy(wait, this.newestRead, this.newestReadAt));
    }
    this.waits.add(entry);
    this.claim(entry);
    if (entry.active) {
      if (this.options.pace === "fast") {
        const now = performance.now();
        this.early.expect(wait.since, now);
        if (first) this.anchor = now;
        // An early read planned sooner than the timer set: the timer is set again.
        if (this.timer !== undefined && !this.polling && this.early.next < this.timerAt) {
          clearTimeout(this.timer);
          this.timer = undefined;
        }
      }
      this.schedule();
    }
    return entry;
  }

  remove(entry: Entry, handBack = false): void {
    if (!entry.active) return;
    entry.active = false;
    if (entry.finalAfter >= 0) this.finals--;
    this.waits.remove(entry);
    // A wait cancelled while it held what it was handed (a result held while another POST of ours
    // to the device was on the wire, when a deploy stopped its node): those markers are read and
    // would never come again, and the wait resumed after the deploy ended timed out with its
    // COMPLETE in the inbox (issue 35, the stamps property, seed 33 path 439). They go back, as a
    // marker read after the wait ended does.
    if (handBack && entry.handed) {
      for (const item of entry.handed)
        this.unclaimed.add({ ...item, claimed: false, lengths: new Set() }, this.waits.idLengths);
    }
    entry.handed = undefined;
    if (this.pausedFor.delete(entry) && this.pausedFor.size === 0) this.endPause();
    if (this.waits.count === 0) this.idle();
  }

  /** The waits the server's pause was for have ended: the waits left read as if none came. */
  private endPause(): void {
    this.pausedUntil = -Infinity;
    this.pauseError = undefined;
    if (this.polling || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule();
  }

  requestFinal(entry: Entry): void {
    if (!entry.active) return;
    if (this.pausedPast(entry, 0)) {
      // The server asked for a pause longer than this wait's final tries would take: reading now
      // would ignore it, waiting for it would hold the message past its bounded final reads. The
      // inbox is unread.
      entry.wait.onFinalRead(this.pauseError);
      return;
    }
    if (entry.finalAfter < 0) this.finals++;
    entry.finalAfter = performance.now();
    entry.finalTries = 0;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    // A final read never gives way: it is what ends a wait on time.
    this.timerEarly = false;
    // A pause shorter than the interval is waited out, not read through.
    if (this.pausedUntil > performance.now()) this.schedule();
    else void this.poll();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.linger);
    this.timer = undefined;
    this.controller?.abort();
    this.controller = undefined;
  }

  /** No wait left: stop polling, but keep what was read for a while (a wait may start soon). */
  private idle(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.early.stop();
    // An abort makes a DOMException with its stack: 0.7% of the runtime's CPU in the fleet bench,
    // where 1,000 inboxes each go idle once their marker is handed out, after their read. Without
    // a read in flight, dropping the controller stops as much.
    if (this.reading) this.controller?.abort();
    this.controller = undefined;
    this.failing = undefined;
    this.linger = setTimeout(() => {
      if (this.waits.count === 0) this.onIdle();
    }, RETAIN_MS);
    this.linger.unref();
  }

  /**
   * Marks the pending waits for which an event just read is dated past what a steady clock could
   * have dated it (clock-steps.ts, aheadBy): the server's clock went back, and dates place no
   * marker for them. Events of a steady clock never come near: the exact check runs only when the
   * newest event, against when it was read, lies more than the slack past some wait's command.
   */
  private stepsShownBy(fresh: DeviceEvent[], readAt: Map<DeviceEvent, number>): void {
    let lead = -Infinity;
    for (const e of fresh) lead = Math.max(lead, dateOf(e) - (readAt.get(e) ?? Date.now()));
    if (lead === -Infinity) return;
    for (let w = this.waits.oldest; w; w = w.next) {
      const { wait } = w;
      if (!wait.dated || wait.sentAt === undefined) continue;
      if (lead - (wait.since - wait.sentAt) <= AHEAD_SLACK_MS) continue;
      for (const e of fresh) mark(w, aheadBy(wait, dateOf(e), readAt.get(e) ?? Date.now()));
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
        this.hand(entry, item.marker, item.date, item.readAt, true, true);
      }
    }
    // Unclaimed markers without a known id had no wait created at or before them; this one is.
    for (const item of this.unclaimed.since(entry.wait.since, !id)) {
      if (!entry.active) return;
      // On the server before the command was: another's, whatever its date says.
      if (readBeforeSent(entry.wait, item.readAt)) continue;
      if (undatable(entry)) {
        // Its date says nothing: the marker stays for a wait whose date does.
        if (isResult(item.marker)) entry.wait.onUndated?.(item.marker.event, entry.stepMs);
        continue;
      }
      this.unclaimed.drop(item);
      this.hand(entry, item.marker, item.date, item.readAt, item.named, false);
    }
  }

  /**
   * Gives the wait a marker, kept with the entry to give back should the wait be cancelled: one
   * that names the wait's id (`byId`) then only to a wait with that id, as a marker of an ended
   * wait; one given by date (`named`: it names some other id) to the next wait its date fits.
   */
  private hand(
    entry: Entry,
    marker: Marker,
    date: number,
    readAt: number,
    named: boolean,
    byId: boolean,
  ): void {
    (entry.handed ??= []).push({
      marker,
      date,
      readAt,
      named: named || byId,
      ofEnded: byId,
      claimed: false,
      lengths: new Set(),
    });
    entry.wait.onMarker(marker.event, marker.name);
  }

  /** A live marker to its wait; a result teaches the schedule this device's answer time. */
  private handLive(
    entry: Entry,
    marker: Marker,
    date: number,
    readAt: number,
    named: boolean,
    byId: boolean,
  ): void {
    if (marker.name === "COMMAND_COMPLETE" || marker.name === "COMMAND_FAULT") {
      this.early.learn(entry.wait.since, date);
      this.answered = true;
    }
    this.hand(entry, marker, date, readAt, named, byId);
  }

  private dispatch(marker: Marker, date: number, readAt: number): void {
    const byId = this.waits.withIdOf(marker);
    if (byId) {
      this.handLive(byId, marker, date, readAt, true, true);
      return;
    }
    // A late marker of a wait that has ended belongs to nobody else, but it stays, unclaimed, for
    // a wait with that id that starts later: the same wait resumed when its node starts again.
    // A deploy that disables a node (or restarts it) cancels its waits, and the account's other
    // waits on the inbox go on reading it meanwhile: dropped, the COMPLETE they read was never
    // read again (it is seen), and the resumed wait ended timed out at its one last read, though
    // its device had answered in good time (issue 35: a fleet device, 370 ms after its answer).
    if (this.waits.endedIdOf(marker)) {
      this.unclaimed.add(
        {
          marker,
          date,
          readAt,
          named: true,
          ofEnded: true,
          claimed: false,
          lengths: new Set(),
        },
        this.waits.idLengths,
      );
      return;
    }
    const named = namesSomeId(marker) || this.waits.hasIdShaped(marker);
    let oldest = named ? this.waits.oldestWithoutId : this.waits.oldest;
    // A wait whose command's date is a day from our clock takes nothing by date; it is told of a
    // result that could be its own, and the marker goes on to the next wait by the same rule. Nor
    // does a wait whose command left after the marker was read (readBeforeSent): it is not its own.
    while (
      oldest &&
      oldest.wait.since <= date &&
      (undatable(oldest) || readBeforeSent(oldest.wait, readAt))
    ) {
      if (isResult(marker) && undatable(oldest) && !readBeforeSent(oldest.wait, readAt))
        oldest.wait.onUndated?.(marker.event, oldest.stepMs);
      oldest = named ? oldest.nextNoId : oldest.next;
    }
    if (oldest && oldest.wait.since <= date) {
      this.handLive(oldest, marker, date, readAt, named, false);
      return;
    }
    this.unclaimed.add(
      { marker, date, readAt, named, claimed: false, lengths: new Set() },
      this.waits.idLengths,
    );
  }

  /**
   * True when the server's pause outlasts what is left of the wait's final tries (an interval
   * apart, FINAL_TRIES in all): such a pause ends the wait's final read unread. A shorter pause is
   * waited out, and the inbox read after it: a pause of 2 s once ended 1 s waits unread although
   * their marker was there at the next read.
   */
  private pausedPast(entry: Entry, triesUsed: number): boolean {
    if (this.pauseError === undefined) return false;
    const budget = (FINAL_TRIES - triesUsed) * entry.wait.intervalMs;
    return this.pausedUntil - performance.now() > budget;
  }

  private schedule(): void {
    if (this.closed || this.polling || this.waits.count === 0) return;
    const now = performance.now();
    const pause = Math.max(0, this.pausedUntil - now);
    if (this.pollAgain || this.finals > 0) {
      // A final read waits for nothing but the rate limiter and the server's pause.
      const due = this.finalDue();
      if (due) {
        this.pollAgain = false;
        this.timerEarly = false;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.poll(), timerDelay(pause));
        return;
      }
    }
    if (this.timer !== undefined) return;
    // Polls keep their cadence from the start of the previous one (or of the first wait).
    const due = Math.max(this.lastStart, this.anchor) + this.waits.interval();
    this.timerEarly = this.options.pace === "fast" && this.early.next < due;
    this.timerAt = Math.max(this.timerEarly ? this.early.next : due, now + pause);
    this.timer = setTimeout(() => void this.poll(), timerDelay(this.timerAt - now));
  }

  /**
   * True when a final read was asked for after the last poll started: it is made at once. One
   * that the last poll failed to make waits for the next interval, like any poll after a failure.
   */
  private finalDue(): boolean {
    if (this.finals === 0) return false;
    for (let e = this.waits.oldest; e; e = e.next) if (e.finalAfter > this.lastStart) return true;
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
    const early = this.timerEarly;
    this.timerEarly = false;
    if (this.closed || this.polling || this.waits.count === 0) return;
    if (early && !this.client.limiter.hasRoomForEarlyPoll()) {
      this.gaveWay++;
      if (this.client.limiter.queuedIn("poll") > 0) {
        // Reads of other inboxes are queued: this one comes after growing gaps (read-schedule.ts),
        // and the interval's read, in its turn in the lane, if none finds room before it.
        this.early.deferred(performance.now(), this.waits.interval());
      } else if (this.anchor > this.lastStart) {
        // A new wait's first read was this early one, so that read is due now, through the lane
        // (the fixed schedule reads a new wait's inbox at once): waiting a whole interval from
        // the wait's start put 1,000 pending devices' results a second behind the fixed
        // schedule's. The plan stays: if this read misses, the growing gaps follow it.
        this.anchor = -Infinity;
      } else {
        // Commands wait for slots (a burst): the early read tries again a moment later, until
        // the interval's read comes. Stopping here left every command of a burst after the
        // first to the interval (p95 of 40 at once on 10 devices: 794 ms, issue 29).
        this.early.next = performance.now() + FIRST_GAP_MS;
      }
      this.schedule();
      return;
    }
    this.polling = true;
    this.answered = false;
    const started = performance.now();
    this.lastStart = started;
    // One controller for every read until one is aborted (idle, close): a new one per read cost
    // more than the rest of a quiet read's own work.
    const controller = (this.controller ??= new AbortController());
    const oldest = this.waits.oldest;
    // Back a margin past the oldest command's date: its own answer may be dated before it.
    const need = Math.max(oldest ? oldest.wait.since - MARKER_EARLY_MS : Infinity, this.horizon);
    const deep = this.coveredFrom > need;
    try {
      const fresh: DeviceEvent[] = [];
      // When each was read: the answer of its page (readBeforeSent).
      const readAt = new Map<DeviceEvent, number>();
      const inPoll = new Set<string>();
      let start = 0;
      let limit = this.quiet && !deep ? QUIET_PAGE : FIRST_PAGE;
      let reachedOld = false;
      let reachedPrevious = false;
      let end = false;
      let answeredAll = false;
      // Pages in a row that held no event new to this poll.
      let stale = 0;
      // The read ended on stale pages, not on an empty one.
      let staleEnd = false;
      for (;;) {
        this.reading = true;
        let events: DeviceEvent[];
        try {
          events = await this.fetch(start, limit, controller.signal);
        } finally {
          this.reading = false;
        }
        const pageAt = Date.now();
        let unread = 0;
        for (const listed of events) {
          // A server with an integer id counter may send ids as JSON numbers: skipping them hid
          // every marker of such a server, and each wait ended timed out (issue 28).
          const id = eventIdOf(listed.id);
          // Events move down while new ones land on top: one may come back on the next page.
          if (id === undefined || inPoll.has(id)) continue;
          const e = id === listed.id ? listed : { ...listed, id };
          inPoll.add(id);
          unread++;
          const d = dateOf(e);
          if (d < need) reachedOld = true;
          else if (this.seen.has(e.id)) reachedPrevious ||= !deep;
          else {
            fresh.push(e);
            readAt.set(e, pageAt);
          }
          // Newest first: what follows was read before, or is older than every wait. A quiet read
          // stops here, at no cost per event left on the page; but an event dated up to
          // MARKER_EARLY_MS before one read before (the server's clock stepped back) lies below
          // it: the rest of this page is looked through down to that date, with no request more.
          if (reachedOld || (reachedPrevious && d < this.newestRead - MARKER_EARLY_MS)) break;
        }
        if (
          start === 0 &&
          !reachedOld &&
          !reachedPrevious &&
          events.length < limit &&
          this.answersEveryWait(fresh)
        ) {
          // A short first page that ends every pending wait by its id: the next page (the end of
          // a young inbox, or what a server that cuts pages left) can change nothing a wait
          // sees, and cost the first read of every fresh inbox a second request (a fleet job of
          // 200 new devices: 2.2 reads each, issue 29). What lies past it is not taken as read:
          // the next wait's read goes as deep as if this one had not been made.
          answeredAll = true;
          break;
        }
        if (limit === QUIET_PAGE && !reachedOld && !reachedPrevious && events.length === limit) {
          // A full page, all new: a burst. Read it as a read that is not quiet would, from the
          // top. A shorter one is what that read's first page would have been: the read goes on
          // from it (read again from the top, a young inbox's reads took three requests each,
          // and a burst on ten fresh devices used the early reads' share of the poll budget
          // before their second results: p95 670 ms, issue 29).
          limit = FIRST_PAGE;
          continue;
        }
        start += events.length;
        // Only an empty page is the end of the stream. A page shorter than `limit` is not: a
        // server may return fewer events than asked (the API names no largest limit), and taking
        // that for the end would hide every marker past its cap from this poll and, once newer
        // events are read, from every later one: their waits would end timed out. The price is
        // one more request when a poll reaches neither what it read before nor older events: the
        // first poll of a young inbox. A page with nothing new to this poll can be events pushed
        // down by as many landing on top while it reads: the read goes on past them. Two such
        // pages in a row are a server that ignores `start`, and the end.
        stale = unread === 0 ? stale + 1 : 0;
        if (events.length === 0) end = true;
        else if (stale >= 2) {
          // Taken for the end, but not known to be it: pages pushed down by events landing as
          // fast as it reads look the same. What lies past them is not counted as read (below).
          end = true;
          staleEnd = true;
        }
        if (end || reachedOld || reachedPrevious || start >= MAX_EVENTS_PER_POLL) break;
        limit = NEXT_PAGE;
      }
      if (controller.signal.aborted) return;
      this.quiet = fresh.length < QUIET_PAGE;
      const now = Date.now();
      const overrun =
        !answeredAll &&
        !reachedOld &&
        !reachedPrevious &&
        (!end || (!deep && this.newestRead >= need));
      // Newest first on the wire; markers are handed out in the order they happened.
      fresh.reverse();
      fresh.sort((a, b) => dateOf(a) - dateOf(b));
      for (const e of fresh) {
        const d = dateOf(e);
        this.seen.set(e.id, { d, r: now });
        if (d > this.newestRead) {
          this.newestRead = d;
          this.newestReadAt = readAt.get(e) ?? now;
        }
      }
      this.stepsShownBy(fresh, readAt);
      // A read that stopped on two stale pages may have left events it never saw below them: a
      // device's own events landing a page at a time while it pages push each next page down onto
      // what it read (page cap 3 and bursts of 3: an answer below them was never read, and every
      // later read stopped at the events above it; the simulation's streams seed 20261128, path
      // 188). Nor is what earlier reads covered still one piece with the top: the pages it read
      // were pushed down past events it never saw, and a read from the top that met its events
      // stopped above a hole (streams seed 872146947, path 75: a fleet device timed out). The
      // next read goes deep, as on a new inbox, down to the oldest wait's date.
      if (staleEnd) this.coveredFrom = Infinity;
      else if (reachedOld || end) this.coveredFrom = Math.min(this.coveredFrom, need);
      // A read that stopped at a first page that answered every wait may have left events
      // unread below it (a server that cuts pages): the next read goes deep, as on a new inbox.
      if (answeredAll) this.coveredFrom = Infinity;
      for (const e of fresh) {
        const marker = markerOf(e);
        if (marker) this.dispatch(marker, dateOf(e), readAt.get(e) ?? now);
      }
      this.pausedUntil = -Infinity;
      this.pauseError = undefined;
      this.pausedFor.clear();
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
      this.planEarly(started);
    } catch (caught) {
      if (controller.signal.aborted || this.isClosed()) return;
      const err = caught as EdgeError;
      if (isLasting(err)) {
        // Every wait pending now, taken first: one wait's end may stop another (a fleet job that
        // ends cancels its other devices), and a stopped entry no longer leads to the rest.
        const pending: Entry[] = [];
        for (let e = this.waits.oldest; e; e = e.next) pending.push(e);
        for (const e of pending) if (e.active) e.wait.onError(err);
        return;
      }
      this.failing = err;
      // A failed read is retried at the interval, as before: no early read hammers a failing server.
      this.early.stop();
      // retryAfterMs is capped where it is parsed (retry.ts); the timer is clamped in schedule().
      this.pausedUntil =
        err.retryAfterMs !== undefined ? performance.now() + err.retryAfterMs : -Infinity;
      this.pauseError = err.retryAfterMs !== undefined ? err : undefined;
      this.pausedFor.clear();
      if (this.pauseError) for (let e = this.waits.oldest; e; e = e.next) this.pausedFor.add(e);
      // No wait left to pause for (all ended while the read ran): the next wait reads.
      if (this.pausedFor.size === 0) {
        this.pausedUntil = -Infinity;
        this.pauseError = undefined;
      }
      this.tell((o) => {
        o.onReadState(err);
      });
      this.finishFinals(started, err);
    } finally {
      this.polling = false;
      this.schedule();
    }
  }

  /** True when `events` hold a COMPLETE or FAULT naming the command id of every pending wait. */
  private answersEveryWait(events: DeviceEvent[]): boolean {
    const answered = new Set<Entry>();
    for (const e of events) {
      const marker = markerOf(e);
      if (marker?.name !== "COMMAND_COMPLETE" && marker?.name !== "COMMAND_FAULT") continue;
      const entry = this.waits.withIdOf(marker);
      if (entry) answered.add(entry);
    }
    return answered.size > 0 && answered.size === this.waits.count;
  }

  /**
   * After a read: the next early one, for the next pending command or a little later. Also when
   * reads of other inboxes are queued: a read that finds no room gives way when it comes (poll()).
   * Stopping the plan here left a device's next commands to the interval's read whenever the lane
   * held a read at the moment this one ended: 3 to 6 of a burst of 20 on five devices that run
   * their commands one after another waited a whole interval (issue 29).
   */
  private planEarly(started: number): void {
    if (this.options.pace !== "fast") return;
    const oldest = this.waits.oldest;
    if (!oldest) {
      this.early.stop();
    } else if (this.answered) {
      this.early.stop();
      this.early.expect(oldest.wait.since, performance.now());
    } else {
      this.early.missed(started, this.waits.interval());
    }
  }

  /** Final reads asked for before this poll started are answered by it. */
  private finishFinals(started: number, err: EdgeError | undefined): void {
    if (this.finals === 0) return;
    const done: Entry[] = [];
    for (let e = this.waits.oldest; e; e = e.next) {
      if (e.finalAfter < 0) continue;
      // A failed final read is tried again an interval later, up to FINAL_TRIES times, unless the
      // server asked for a longer pause: then the wait ends now with the error, also when its
      // final read was asked for while this poll ran.
      if (err && this.pausedPast(e, e.finalTries)) {
        done.push(e);
        continue;
      }
      if (e.finalAfter > started) continue;
      if (err && ++e.finalTries < FINAL_TRIES) continue;
      done.push(e);
    }
    for (const e of done) if (e.active) e.wait.onFinalRead(err);
  }

  /** Each observer once, however many of its waits are here. */
  private tell(fn: (o: InboxObserver) => void): void {
    const told = new Set<InboxObserver>();
    for (let e = this.waits.oldest; e; e = e.next) {
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
    this.unclaimed.expire(now - RETAIN_MS);
    for (const [id, { d, r }] of this.seen) {
      if (now - r < RETAIN_MS) continue;
      if (d < need) {
        this.seen.delete(id);
        // Past its date, not at it: a read skips what is dated before the horizon, and an event
        // dated at it, no longer seen, was read again as new and handed to a second wait (found by
        // the mutation specs, inbox-watch-found-twice.spec.js). One never read and dated in that
        // same millisecond, ten minutes back, is skipped with it.
        if (d + 1 > this.horizon) this.horizon = d + 1;
      }
    }
    this.waits.forgetEnded(now - RETAIN_MS);
  }

  /** Read through a method: the poll awaits, and close() may run in between. */
  private isClosed(): boolean {
    return this.closed;
  }
}
