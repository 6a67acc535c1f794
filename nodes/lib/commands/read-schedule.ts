// When an inbox with pending waits is read early, ahead of its interval (issue 20). A result used
// to reach the flow about 0.6 s after the device wrote it because the inbox was read on the
// interval alone; right after a command, its device's inbox is the one place a result will
// appear, soon. So the schedule learns how long this device takes to answer (from a command's
// start to its COMPLETE or FAULT, smoothed) and plans the first read just after that, then reads
// again after growing gaps (50, 100, 200 ... ms) until the gap reaches the interval, where the
// interval's reads take over. The interval stays the longest gap between two reads: these reads
// only come sooner, and each resets the interval's cadence. Whether an early read may start at all
// is the rate limiter's call (hasRoomForEarlyPoll): it gives way to due reads and to commands.
//
// Until a device has answered once, its pace is the account's (the smoothed answer time of all its
// devices). Until the account has seen one result, the interval alone reads, exactly as before:
// nothing is known to plan for, and a guess would read every new inbox at 50 ms for nothing.
//
// Server dates (a command's creation, a marker's) are compared with Date.now(): a clock that is
// off only moves the first read, which is clamped, and the growing gaps still find the result.

/** "fast": reads follow the commands; "fixed": the interval alone (before issue 20; the bench's peer). */
export type ReadPace = "fast" | "fixed";

/** What the account's poller shares with its inbox watches; the bench switches the pace. */
export interface PollerOptions {
  pace: ReadPace;
  /** Smoothed answer time over the account's devices: the pace of a device not heard yet. */
  accountAnswerMs: number | undefined;
}

/** The first gap after a read that found no result. */
export const FIRST_GAP_MS = 50;
/** Read this long after the expected answer: a device a few ms late is still found at once. */
const MARGIN_MS = 15;
/** Weight of the newest answer time in the smoothed one. */
const WEIGHT = 0.3;
/** Answer times longer than this are not learned: a device that was offline, not its pace. */
const MAX_ANSWER_MS = 10 * 60_000;

export class ReadSchedule {
  /** performance.now() of the next early read; Infinity when none is planned. */
  next = Infinity;
  /** Smoothed ms from a command's start to its result on this device; undefined until one. */
  private answerMs: number | undefined;
  /** Server date of the newest result: a queued command starts when the one before it ends. */
  private lastResult = -Infinity;
  private gap = FIRST_GAP_MS;

  constructor(private readonly options: PollerOptions) {}

  /** The learned answer time (for tests and the bench). */
  get expectedAnswerMs(): number | undefined {
    return this.answerMs;
  }

  /**
   * A command created at `since` (server ms) is pending: read just after its expected answer. An
   * earlier plan stays. False when no pace is known yet: the interval alone reads.
   */
  expect(since: number, now: number): boolean {
    const answerMs = this.answerMs ?? this.options.accountAnswerMs;
    if (answerMs === undefined) return false;
    const start = Math.max(since, this.lastResult);
    const delay = Math.min(MAX_ANSWER_MS, Math.max(0, start + answerMs + MARGIN_MS - Date.now()));
    this.next = Math.min(this.next, now + delay);
    this.gap = FIRST_GAP_MS;
    return true;
  }

  /** A result created at `date` answered a command created at `since` (server ms). */
  learn(since: number, date: number): void {
    const ms = date - Math.max(since, this.lastResult);
    if (date > this.lastResult) this.lastResult = date;
    if (!(ms >= 0 && ms <= MAX_ANSWER_MS)) return;
    this.answerMs = smooth(this.answerMs, ms);
    this.options.accountAnswerMs = smooth(this.options.accountAnswerMs, ms);
  }

  /**
   * A read that started at `started` found no result. When it was the planned early read, the
   * next one comes a gap later, each gap twice the one before; at the interval they stop.
   */
  missed(started: number, interval: number): void {
    if (this.next > started) return;
    if (this.gap >= interval) {
      this.next = Infinity;
      return;
    }
    this.next = started + this.gap;
    this.gap *= 2;
  }

  /** No early read: the interval alone (no wait left, a failed read, a busy rate limiter). */
  stop(): void {
    this.next = Infinity;
    this.gap = FIRST_GAP_MS;
  }
}

function smooth(old: number | undefined, ms: number): number {
  return old === undefined ? ms : old + WEIGHT * (ms - old);
}
