// One job at a time per node: a message that arrives while a job runs waits its turn here, in
// order, and past `max` waiting it is refused (queue-full) instead of piling up without bound.
import { EdgeError } from "../api/errors";

export class Turns {
  private running = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves true when it is this caller's turn (it must call release() after), false when the
   * signal aborted first (the node closed); throws queue-full when too many wait already.
   */
  take(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (!this.running) {
      this.running = true;
      return Promise.resolve(true);
    }
    if (this.waiting.length >= this.max) throw new EdgeError("queue-full", { max: this.max });
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => {
        const i = this.waiting.indexOf(turn);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      const turn = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      this.waiting.push(turn);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running = false;
  }
}
