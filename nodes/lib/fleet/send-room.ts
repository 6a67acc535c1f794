// Room for a fleet job's sends in the account's rate limiter. A job's Concurrency (up to 10,000
// devices in flight) is no promise of the account: put into its queue at once, the sends past
// the account's Queue failed with queue-full, those that did queue could run out of their
// request budget there (`deadline`), and a full queue refused every other node of the account
// meanwhile. So a job holds at most the account's At once sends in the limiter; the rest wait
// here, in order. A send still refused with queue-full (other nodes filled the queue) was
// certainly not sent: it waits for room and tries again, for at most the device's Timeout; so
// does a send the API refused without acting on it (429, 503 in its envelope), after its
// Retry-After; a gateway's 429 or 503 is not that (retry.ts). The job's other waits for time (a
// send cut off by a redeploy, left to land) end here at its close.
import { EdgeError } from "../api/errors";
import { notProcessed } from "../api/retry";
import { timerDelay } from "../api/timer-delay";

/** The first pause after a queue-full; each next one doubles, up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1_000;

export class SendRoom {
  private held = 0;
  private readonly waiting: ((got: boolean) => void)[] = [];
  private readonly pauses = new Set<{ timer: NodeJS.Timeout; resolve: (v: boolean) => void }>();
  private closed = false;

  /** `width`: sends of this job in the limiter at once (the account's At once). */
  constructor(private readonly width: number) {}

  /** Resolves true when this send may go to the limiter (call leave() after), false once closed. */
  enter(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.held < this.width) {
      this.held++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next(true);
    else this.held--;
  }

  /** Resolves true after `ms`, false once closed (at once, when closed before the time). */
  wait(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.pauses.delete(entry);
          resolve(true);
        }, timerDelay(ms)),
        resolve,
      };
      this.pauses.add(entry);
    });
  }

  /** The job closes: every send waiting here, or pausing, gives up. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w(false);
    for (const p of this.pauses) {
      clearTimeout(p.timer);
      p.resolve(false);
    }
    this.pauses.clear();
  }
}

/** The pause after the `attempt`th queue-full of one send: doubling, FIRST_PAUSE_MS to MAX_PAUSE_MS. */
export function pauseAfter(attempt: number): number {
  return Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(attempt, 10));
}

/** A queue-full of the account's limiter is refused before any request: nothing was sent. */
export function isQueueFull(err: unknown): boolean {
  return err instanceof EdgeError && err.code === "queue-full";
}

/**
 * A send the account kept back (queue-full; `deadline`: its budget ran out before it went) or
 * the API said it did not act on, asking to come back later (429, 503 in its envelope), once the
 * client's own tries are used up: a fleet tries it again after a pause rather than failing the
 * device. A server that cannot be reached (refused, dns) is not waited for: the client has retried
 * it, and a fleet of devices each waiting its whole Timeout would report only after hours.
 */
export function certainlyNotSent(err: unknown): err is EdgeError {
  if (!(err instanceof EdgeError)) return false;
  if (err.code === "queue-full" || err.code === "deadline") return true;
  // Only the API's own 429 or 503: a gateway's may come after the API made the command.
  return notProcessed(err);
}
