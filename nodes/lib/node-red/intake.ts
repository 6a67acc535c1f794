// Bounded intake: a node starts at most as many messages as its account can send at once and
// keeps the others as they arrived (the message, its send and its done), without starting their
// work. Started all at once, a burst of 1,000 messages built 1,000 chains of promises, closures and
// queue entries that lived until their turn: garbage collection rose from about 3 to 19 µs per
// message. Past `waiting` held messages, a message fails at once with queue-full, as the account's
// own queue does.

/** How many messages run at once, and how many more may wait their turn. */
export interface IntakeLimit {
  running: number;
  waiting: number;
}

/**
 * Messages received but not started, first in first out, four slots each in one array: the
 * message, its send, its done and when it arrived (its requests' budgets count from then).
 */
export class Intake<M, S, D> {
  running = 0;
  private items: unknown[] = [];
  private head = 0;

  get waiting(): number {
    return (this.items.length - this.head) / 4;
  }

  /**
   * What becomes of a message that arrives now: it starts, waits its turn, or is refused because
   * the queue is full. Held messages start in order when a place frees (handler.ts), a turn of
   * the event loop later; until then they count against the free places, not the queue, so that a
   * message arriving as another ends is held, not refused.
   */
  admit(limit: IntakeLimit | undefined): "start" | "hold" | "full" {
    if (!limit) return "start";
    const free = Math.max(0, limit.running - this.running);
    if (free > 0 && this.waiting === 0) return "start";
    return this.waiting < limit.waiting + free ? "hold" : "full";
  }

  hold(msg: M, send: S, done: D): void {
    this.items.push(msg, send, done, performance.now());
  }

  /** Hands the oldest held message to `start`; only called when something waits. */
  next(start: (msg: M, send: S, done: D, arrived: number) => void): void {
    const i = this.head;
    const msg = this.items[i] as M;
    const send = this.items[i + 1] as S;
    const done = this.items[i + 2] as D;
    const arrived = this.items[i + 3] as number;
    this.items[i] = this.items[i + 1] = this.items[i + 2] = undefined;
    this.head += 4;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    start(msg, send, done, arrived);
  }

  /** Hands every held message to `each`, oldest first, and forgets them. */
  drain(each: (msg: M, send: S, done: D) => void): void {
    while (this.waiting > 0) this.next(each);
  }
}
