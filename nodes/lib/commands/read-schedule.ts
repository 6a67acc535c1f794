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
// devices, lib/commands/answer-times.ts, kept across a redeploy): devices of one kind answer alike.
// An account that has never seen a result (a new one, or one whose store kept nothing) knows no
// pace, and nothing public about the API says how fast a device answers. It reads the
// command's inbox COLD_FIRST_MS after the command and then after gaps that double (125, 250, 500,
// 1,000 ms from the command), until the gap reaches the interval: at most three reads more than
// the interval's, only until the account's first answer. Before issue 29 the interval alone read
// here, and the first command of every new account took a whole interval.
//
// Server dates (a command's creation, a marker's) are compared with Date.now(): a clock that is
// off only moves the first read, which is clamped, and the growing gaps still find the result.
import { MAX_ANSWER_MS } from "./answer-times";
import type { AnswerTimes } from "./answer-times";

/** "fast": reads follow the commands; "fixed": the interval alone (before issue 20; the bench's peer). */
export type ReadPace = "fast" | "fixed";

/** What the account's poller shares with its inbox watches; the bench switches the pace. */
export interface PollerOptions {
  pace: ReadPace;
  /** What the account has learned of its devices' answer times. */
  answers: AnswerTimes;
}

/** The first gap after a read that found no result. */
export const FIRST_GAP_MS = 50;
/** Read this long after the expected answer: a device a few ms late is still found at once. */
const MARGIN_MS = 15;
/** The first read of a command when the account knows no pace yet, and the first gap after it. */
export const COLD_FIRST_MS = 125;

export class ReadSchedule {
  /** performance.now() of the next early read; Infinity when none is planned. */
  next = Infinity;
  /** Server date of the newest result: a queued command starts when the one before it ends. */
  private lastResult = -Infinity;
  private gap = FIRST_GAP_MS;
  /** The next wait after an early read gave way (deferred()); back to the first after a read. */
  private yieldGap = FIRST_GAP_MS;

  /** `key`: the device's inbox, under which the account keeps its answer time. */
  constructor(
    private readonly options: PollerOptions,
    private readonly key: string,
  ) {}

  /** The learned answer time (for tests and the bench). */
  get expectedAnswerMs(): number | undefined {
    return this.options.answers.of(this.key);
  }

  /**
   * A command created at `since` (server ms) is pending: read just after its expected answer, or,
   * with no pace known at all, COLD_FIRST_MS after it. An earlier plan stays.
   */
  expect(since: number, now: number): void {
    const { answers } = this.options;
    const answerMs = answers.of(this.key) ?? answers.account;
    const start = Math.max(since, this.lastResult);
    const after = answerMs === undefined ? COLD_FIRST_MS : answerMs + MARGIN_MS;
    const delay = Math.min(MAX_ANSWER_MS, Math.max(0, start + after - Date.now()));
    this.next = Math.min(this.next, now + delay);
    this.gap = answerMs === undefined ? COLD_FIRST_MS : FIRST_GAP_MS;
    this.yieldGap = FIRST_GAP_MS;
  }

  /** A result created at `date` answered a command created at `since` (server ms). */
  learn(since: number, date: number): void {
    const ms = date - Math.max(since, this.lastResult);
    if (date > this.lastResult) this.lastResult = date;
    this.options.answers.learn(this.key, ms);
  }

  /**
   * A read that started at `started` found no result. When it was the planned early read, the
   * next one comes a gap later, each gap twice the one before; at the interval they stop.
   */
  missed(started: number, interval: number): void {
    this.yieldGap = FIRST_GAP_MS;
    if (this.next > started) return;
    if (this.gap >= interval) {
      this.next = Infinity;
      return;
    }
    this.next = started + this.gap;
    this.gap *= 2;
  }

  /**
   * The early read gave way to reads of other inboxes queued in the poll lane: it comes 50 ms
   * later, then after gaps that double while it keeps giving way, until the interval's read takes
   * over. Retried at a fixed 50 ms, a backlog of 1,000 pending inboxes would wake 20,000 timers a
   * second. Its own gaps, not the misses': those of a cold account start at 125 ms, and a read
   * that gives way is due already.
   */
  deferred(now: number, interval: number): void {
    if (this.yieldGap >= interval) {
      this.next = Infinity;
      return;
    }
    this.next = now + this.yieldGap;
    this.yieldGap *= 2;
  }

  /** No early read: the interval alone (no wait left, a failed read, a busy rate limiter). */
  stop(): void {
    this.next = Infinity;
    this.gap = FIRST_GAP_MS;
    this.yieldGap = FIRST_GAP_MS;
  }
}
