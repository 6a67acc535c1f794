// The answer times an account learned, saved in the account node's context (Node-RED's default
// store) so that a restart with a persistent store starts with them: one key, written at most
// once a second while the account learns, and at the close. With Node-RED's shipped settings
// (no contextStorage) the store is memory and is emptied at the close; the process's memory
// (kept-answer-times.ts) carries them across a redeploy then, and a restart starts cold.
import type { Node } from "node-red";
import type { AnswerTimes } from "../commands/answer-times";

const KEY = "edgewire-answer-times";
/** At most one write per this many ms: a fleet of 1,000 devices learns 1,000 times in seconds. */
const SAVE_EVERY_MS = 1000;

export class SavedAnswerTimes {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  /** `origin`: the server and company; a saved record of another one is not taken. */
  constructor(
    private readonly node: Node,
    private readonly answers: AnswerTimes,
    private readonly origin: string,
    private readonly onError: (err: unknown) => void,
  ) {
    answers.onChange = () => {
      this.later();
    };
    this.restore();
  }

  /** Writes what is pending now and stops saving; the kept object lives on in memory. */
  close(): void {
    this.closed = true;
    if (this.answers.onChange !== undefined) this.answers.onChange = undefined;
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.save();
  }

  private restore(): void {
    try {
      this.node.context().get(KEY, (err: Error | null | undefined, value?: unknown) => {
        if (err) {
          this.onError(err);
          return;
        }
        if (typeof value !== "object" || value === null) return;
        if ((value as { origin?: unknown }).origin !== this.origin) return;
        this.answers.merge(value);
      });
    } catch (err) {
      this.onError(err);
    }
  }

  private later(): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.save();
    }, SAVE_EVERY_MS);
    this.timer.unref();
  }

  private save(): void {
    try {
      const value = { origin: this.origin, ...this.answers.toJSON() };
      this.node.context().set(KEY, value, (err?: Error | null) => {
        if (err) this.onError(err);
      });
    } catch (err) {
      this.onError(err);
    }
  }
}
