// One limiter per account, shared by every node and poller that uses the account: at most
// `perSecond` requests started in any one-second window (a sliding window over the last
// `perSecond` start times; a token bucket with one second of burst let twice that through in the
// first second) and at most `concurrent` in flight, served first come first served. The queue is bounded: past `queueMax`
// waiting requests, acquire() fails at once instead of letting memory grow without limit.
import { EdgeError } from "./errors";

export interface RateLimit {
  /** Requests started per second; 0 means no limit. */
  perSecond: number;
  /** Requests in flight at once. */
  concurrent: number;
  /** Requests allowed to wait for a slot. */
  queueMax: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 20, concurrent: 8, queueMax: 1000 };

export type Release = () => void;

interface Waiter {
  resolve: (release: Release) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class RateLimiter {
  private readonly waiting: Waiter[] = [];
  private head = 0;
  private active = 0;
  /** Start times of the last `perSecond` requests, a ring whose oldest entry is at `oldest`. */
  private readonly starts: number[] = [];
  private oldest = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limit: RateLimit) {}

  get queued(): number {
    return this.waiting.length - this.head;
  }

  acquire(signal?: AbortSignal): Promise<Release> {
    // An abort listener added to an already aborted signal never fires: such a waiter would wait
    // for a slot it no longer wants.
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.queued === 0 && this.tryTake()) return Promise.resolve(this.releaser());
    if (this.queued >= this.limit.queueMax) {
      return Promise.reject(new EdgeError("queue-full", { max: this.limit.queueMax }));
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiting.indexOf(waiter, this.head);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(abortReason(signal));
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiting.push(waiter);
      this.pump();
    });
  }

  /** Rejects every waiter; used when the account closes. */
  close(reason: unknown): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queued > 0) this.next().reject(reason);
  }

  private next(): Waiter {
    const w = this.waiting[this.head++];
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    if (w.onAbort) w.signal?.removeEventListener("abort", w.onAbort);
    return w;
  }

  private tryTake(): boolean {
    if (this.active >= this.limit.concurrent) return false;
    if (this.limit.perSecond > 0) {
      const now = performance.now();
      if (this.starts.length < this.limit.perSecond) this.starts.push(now);
      else {
        if (now - this.starts[this.oldest] < 1000) return false;
        this.starts[this.oldest] = now;
        this.oldest = (this.oldest + 1) % this.starts.length;
      }
    }
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
    while (this.queued > 0 && this.tryTake()) this.next().resolve(this.releaser());
    if (this.queued > 0 && this.active < this.limit.concurrent && this.timer === undefined) {
      // A full window: wake when its oldest start is one second old.
      const wait = Math.max(1, Math.ceil(this.starts[this.oldest] + 1000 - performance.now()));
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new EdgeError("aborted", { method: "*", path: "*" });
}
