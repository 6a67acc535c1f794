// One limiter per account, shared by every node and poller that uses the account: at most
// `perSecond` requests started per second (a token bucket with one second of burst) and at most
// `concurrent` in flight, served first come first served. The queue is bounded: past `queueMax`
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
  private tokens: number;
  private refilledAt = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limit: RateLimit) {
    this.tokens = Math.max(1, limit.perSecond);
  }

  get queued(): number {
    return this.waiting.length - this.head;
  }

  get inFlight(): number {
    return this.active;
  }

  acquire(signal?: AbortSignal): Promise<Release> {
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
          reject(
            signal.reason instanceof Error
              ? signal.reason
              : new EdgeError("aborted", { method: "*", path: "*" }),
          );
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
      const burst = Math.max(1, this.limit.perSecond);
      this.tokens = Math.min(
        burst,
        this.tokens + ((now - this.refilledAt) * this.limit.perSecond) / 1000,
      );
      this.refilledAt = now;
      if (this.tokens < 1) return false;
      this.tokens -= 1;
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
      // Out of tokens: wake when the next one is due.
      const wait = Math.ceil(((1 - this.tokens) * 1000) / this.limit.perSecond);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
    }
  }
}
