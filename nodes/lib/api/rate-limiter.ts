// One limiter per account, shared by every node and poller that uses the account: at most
// `concurrent` requests in flight, and at most `perSecond` started in any one-second window (a
// sliding window over the last `perSecond` start times; a token bucket with one second of burst
// let twice that through in the first second). Each queue is bounded: past `queueMax` waiting
// requests, acquire() fails at once instead of letting memory grow without limit.
//
// Two lanes. "normal" (commands, state, reads a message asked for) is served first come first
// served. "poll" is for periodic reads that something is waiting on (the inbox poller, a stream
// watcher): it is served before any normal request as soon as a slot is free, has a start window
// of its own (`pollPerSecond`) so a backlog of commands can neither use up its budget nor be
// starved by it, and a queue of its own so a full command queue never refuses a poll. Under a
// burst of 2,000 commands a first-come queue made every inbox poll wait behind 100 s of commands.
import { follow, unfollow } from "./abort-hub";
import type { AbortFollower } from "./abort-hub";
import { EdgeError } from "./errors";
import { timerDelay } from "./timer-delay";

export interface RateLimit {
  /** Requests of the normal lane started per second; 0 means no limit. */
  perSecond: number;
  /** Requests in flight at once, both lanes together. */
  concurrent: number;
  /** Requests allowed to wait for a slot, per lane. */
  queueMax: number;
  /**
   * Requests of the poll lane started per second; 0 means no limit. Unset: DEFAULT_POLLS_PER_SECOND,
   * or no limit either when `perSecond` is 0 (an account without a rate limit).
   */
  pollPerSecond?: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = {
  perSecond: 20,
  concurrent: 8,
  queueMax: 1000,
};

/**
 * The poll lane's 100 reads a second let 100 devices with pending waits each be read once a
 * second (the await node's default interval) beside the 20 commands a second of the normal lane.
 * The account's "Polls/s" setting changes it (edge-account, ranges.ts).
 */
export const DEFAULT_POLLS_PER_SECOND = 100;

export type Lane = "normal" | "poll";

export type Release = () => void;

/**
 * A call waiting for a slot. It follows its signal through the abort hub (one listener per
 * signal, not one per waiter), and an aborted waiter is only marked: its queue skips it later.
 */
class Waiter implements AbortFollower {
  cancelled = false;
  /** False once the queue handed it a slot (or a close its error). */
  queued = true;

  constructor(
    readonly resolve: (release: Release) => void,
    readonly reject: (err: unknown) => void,
    readonly signal: AbortSignal | undefined,
    private readonly queue: WaitQueue,
  ) {}

  onAbort(): void {
    if (!this.queued) return;
    this.queue.cancel(this);
    this.reject(abortReason(this.signal));
  }
}

/** Start times of the last `max` requests of a lane, a ring whose oldest entry is at `oldest`. */
class StartWindow {
  private readonly starts: number[] = [];
  private oldest = 0;

  constructor(private readonly max: number) {}

  /** Records a start at `now` when the window has room; false when it is full. */
  take(now: number): boolean {
    if (this.max <= 0) return true;
    if (this.starts.length < this.max) {
      this.starts.push(now);
      return true;
    }
    if (now - this.oldestStart() < 1000) return false;
    this.starts[this.oldest] = now;
    this.oldest = (this.oldest + 1) % this.starts.length;
    return true;
  }

  /** Starts in the second before `now`: walks back from the newest, so it costs what it counts. */
  usedIn(now: number): number {
    const n = this.starts.length;
    let used = 0;
    for (let i = 1; i <= n; i++) {
      const s = this.starts[(this.oldest - i + n) % n] as number;
      if (now - s >= 1000) break;
      used++;
    }
    return used;
  }

  /** Milliseconds until the window has room (0 when it has). */
  waitMs(now: number): number {
    if (this.max <= 0 || this.starts.length < this.max) return 0;
    return Math.max(0, this.oldestStart() + 1000 - now);
  }

  /** Only asked once the ring is full, so `oldest` is always a filled slot. */
  private oldestStart(): number {
    return this.starts[this.oldest] as number;
  }
}

/**
 * A first-in first-out queue of waiters that does not shift the array on every take, and drops a
 * cancelled waiter in O(1): it stays in place, marked, and is skipped when its turn comes.
 */
class WaitQueue {
  private items: Waiter[] = [];
  private head = 0;
  private cancelled = 0;

  get size(): number {
    return this.items.length - this.head - this.cancelled;
  }

  push(w: Waiter): void {
    this.items.push(w);
  }

  /** The first waiter not cancelled; only called when size > 0, so one is always found. */
  shift(): Waiter {
    for (;;) {
      const w = this.items[this.head++] as Waiter;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      if (!w.cancelled) {
        w.queued = false;
        return w;
      }
      this.cancelled--;
    }
  }

  cancel(w: Waiter): void {
    if (w.cancelled) return;
    w.cancelled = true;
    w.queued = false;
    this.cancelled++;
  }
}

class LaneState {
  readonly queue = new WaitQueue();
  readonly window: StartWindow;

  constructor(perSecond: number) {
    this.window = new StartWindow(perSecond);
  }
}

export class RateLimiter {
  private readonly lanes: Record<Lane, LaneState>;
  /** Served in this order whenever a slot frees. */
  private readonly order: readonly LaneState[];
  private active = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly limit: Required<RateLimit>;

  constructor(limit: Partial<RateLimit> & Pick<RateLimit, "perSecond" | "concurrent">) {
    const merged = { ...DEFAULT_RATE_LIMIT, ...limit };
    const pollPerSecond =
      merged.pollPerSecond ?? (merged.perSecond > 0 ? DEFAULT_POLLS_PER_SECOND : 0);
    this.limit = { ...merged, pollPerSecond };
    const poll = new LaneState(this.limit.pollPerSecond);
    const normal = new LaneState(this.limit.perSecond);
    this.lanes = { poll, normal };
    this.order = [poll, normal];
  }

  /** The limits this limiter was made with, defaults filled in. */
  get limits(): Readonly<RateLimit> {
    return this.limit;
  }

  /** Requests waiting for a slot, both lanes together. */
  get queued(): number {
    return this.lanes.poll.queue.size + this.lanes.normal.queue.size;
  }

  /** Requests holding a slot now (the editor's sidebar shows it). */
  get running(): number {
    return this.active;
  }

  /** Requests waiting for a slot in one lane. */
  queuedIn(lane: Lane): number {
    return this.lanes[lane].queue.size;
  }

  /**
   * True when an early poll (one that could as well wait for its interval: the await node's fast
   * reads) may start now without delaying anything else: no poll waits, a slot stays free for the
   * next command (commands that wait only for the normal lane's window need no more: that window
   * lets one start at a time, and an early poll takes nothing from it), and at most half of the
   * poll lane's budget of the last second is used, the other half kept for the reads that are due.
   * Early polls ask this and give way when it is false.
   */
  hasRoomForEarlyPoll(): boolean {
    if (this.lanes.poll.queue.size > 0) return false;
    const keep = this.limit.concurrent > 1 || this.lanes.normal.queue.size > 0 ? 2 : 1;
    if (this.limit.concurrent - this.active < keep) return false;
    const budget = this.limit.pollPerSecond;
    return budget <= 0 || this.lanes.poll.window.usedIn(performance.now()) * 2 < budget;
  }

  /** A slot at once, or undefined when the caller would have to wait (then use acquire()). */
  tryAcquire(lane: Lane = "normal"): Release | undefined {
    const state = this.lanes[lane];
    return this.mayStartNow(state) && this.tryTake(state) ? this.releaser() : undefined;
  }

  acquire(signal?: AbortSignal, lane: Lane = "normal"): Promise<Release> {
    // An abort listener added to an already aborted signal never fires: such a waiter would wait
    // for a slot it no longer wants.
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const state = this.lanes[lane];
    if (this.mayStartNow(state) && this.tryTake(state)) return Promise.resolve(this.releaser());
    if (state.queue.size >= this.limit.queueMax) {
      return Promise.reject(new EdgeError("queue-full", { max: this.limit.queueMax }));
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter = new Waiter(resolve, reject, signal, state.queue);
      if (signal) follow(signal, waiter);
      state.queue.push(waiter);
      this.pump();
    });
  }

  /** Rejects every waiter; used when the account closes. */
  close(reason: unknown): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const state of this.order) while (state.queue.size > 0) this.next(state).reject(reason);
  }

  /**
   * A request may skip the queue only when nobody it must let go first is waiting: its own lane
   * is empty, and for the normal lane, no poll waits either (polls come first).
   */
  private mayStartNow(state: LaneState): boolean {
    if (state.queue.size > 0) return false;
    return state === this.lanes.poll || this.lanes.poll.queue.size === 0;
  }

  private next(state: LaneState): Waiter {
    const w = state.queue.shift();
    if (w.signal) unfollow(w.signal, w);
    return w;
  }

  private tryTake(state: LaneState): boolean {
    if (this.active >= this.limit.concurrent) return false;
    if (!state.window.take(performance.now())) return false;
    this.active++;
    return true;
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.pump();
    };
  }

  private pump(): void {
    // Polls first; a normal request starts only when no poll can (none waits, or the poll
    // window is full), so a poll never waits behind a command for a free slot.
    for (;;) {
      if (this.active >= this.limit.concurrent) return;
      let started = false;
      for (const state of this.order) {
        if (state.queue.size > 0 && this.tryTake(state)) {
          this.next(state).resolve(this.releaser());
          started = true;
          break;
        }
      }
      if (!started) break;
    }
    if (this.timer !== undefined) return;
    // Slots are free but every lane with waiters has a full window: wake when the first of those
    // windows has room again.
    const now = performance.now();
    let wait = Infinity;
    for (const state of this.order) {
      if (state.queue.size > 0) wait = Math.min(wait, state.window.waitMs(now));
    }
    if (wait === Infinity) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(1, timerDelay(wait)),
    );
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error
    ? signal.reason
    : new EdgeError("aborted", { method: "*", path: "*" });
}
