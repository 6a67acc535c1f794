// What an account has learned of how fast its devices answer (issue 29): each device's smoothed
// answer time, by inbox, and the account's own over all of them. The account's is the prior of a
// device it has not heard yet: devices of one kind answer alike, and in a plant most commands are
// the first one a device has had since Node-RED started. The numbers live here, not in an inbox's
// watch, which is dropped 10 minutes after its last wait: a device used once a shift kept nothing.
// The account node keeps this object across a redeploy (lib/records/kept-answer-times.ts).

/** Weight of the newest answer time in the smoothed one. */
const WEIGHT = 0.3;
/** Answer times longer than this are not learned: a device that was offline, not its pace. */
export const MAX_ANSWER_MS = 10 * 60_000;
/** Devices remembered; past this the one heard from longest ago is forgotten. */
const MAX_DEVICES = 10_000;

function isAnswerMs(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_ANSWER_MS;
}

function smooth(old: number | undefined, ms: number): number {
  return old === undefined ? ms : old + WEIGHT * (ms - old);
}

export class AnswerTimes {
  /** Smoothed over every device of the account; undefined until one answered. */
  account: number | undefined;
  /** By inbox key, the device heard from last at the end (a Map keeps insertion order). */
  private readonly devices = new Map<string, number>();

  /** An account that has learned only its own pace (tests, a prior given outright). */
  static withAccount(ms: number | undefined): AnswerTimes {
    const a = new AnswerTimes();
    a.account = ms;
    return a;
  }

  /** The device's learned answer time, undefined when it has not answered yet. */
  of(key: string): number | undefined {
    return this.devices.get(key);
  }

  get size(): number {
    return this.devices.size;
  }

  /** A result came `ms` after its command started on the device of `key`. */
  learn(key: string, ms: number): void {
    if (!isAnswerMs(ms)) return;
    const old = this.devices.get(key);
    this.devices.delete(key);
    this.devices.set(key, smooth(old, ms));
    if (this.devices.size > MAX_DEVICES) {
      const oldest = this.devices.keys().next().value;
      if (oldest !== undefined) this.devices.delete(oldest);
    }
    this.account = smooth(this.account, ms);
  }
}
