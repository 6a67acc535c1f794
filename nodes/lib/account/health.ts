// The account's own state, shown on every node that uses it: requests waiting in its queue, a wait
// the server asked for with 429, and an authentication failure (401/403), which stays red on every
// node until a request of the account succeeds again. The client tells it the outcome of every
// HTTP attempt; a one-second tick, running only while some node watches, follows the queue and
// counts the wait down, so the busy path pays one call per attempt and nothing per status.
import type { NodeStatus } from "node-red";
import type { EdgeError } from "../api/errors";
import type { Translate } from "../node-red/i18n";
import { errorStatus } from "../node-red/status";

const TICK_MS = 1000;
/** How long a 429 without Retry-After is shown: the retry delay is not known here. */
const DEFAULT_WAIT_MS = 2000;

export type HealthListener = (status: NodeStatus | undefined) => void;

/** What the editor's sidebar shows of the account's health (no message, no token: codes only). */
export interface HealthView {
  /** HTTP attempts in the last whole second. */
  perSecond: number;
  tokenRefused: boolean;
  /** The wait the last 429 asked for, and when it came (Date.now() time). */
  last429: { ms: number; at: number } | undefined;
  lastError: { code: string; status: number | undefined; at: number } | undefined;
}

export class AccountHealth {
  private readonly listeners = new Set<HealthListener>();
  private authError: EdgeError | undefined;
  private waitUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private shown: string | undefined;
  /** Attempts counted per wall-clock second: this one's and the one before. */
  private second = 0;
  private inSecond = 0;
  private inLastSecond = 0;
  private last429: HealthView["last429"];
  private lastError: HealthView["lastError"];

  constructor(
    private readonly queued: () => number,
    private readonly t: Translate,
  ) {}

  /** The outcome of one HTTP attempt of the account. */
  report(err: EdgeError | undefined): void {
    // A few integer operations per attempt: the sidebar reads them, nothing is built here.
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.inLastSecond = second === this.second + 1 ? this.inSecond : 0;
      this.second = second;
      this.inSecond = 0;
    }
    this.inSecond++;
    if (err !== undefined) {
      this.lastError = { code: err.code, status: err.status, at: now };
      if (err.status === 429) this.last429 = { ms: err.retryAfterMs ?? DEFAULT_WAIT_MS, at: now };
    }
    if (err === undefined) this.authError = undefined;
    else if (err.code === "auth") this.authError = err;
    else if (err.status === 429)
      this.waitUntil = performance.now() + (err.retryAfterMs ?? DEFAULT_WAIT_MS);
    // Nobody watching (no node uses the account yet): nothing to show, nothing to compute.
    if (this.listeners.size > 0) this.update();
  }

  /** The numbers the editor's sidebar shows. */
  view(): HealthView {
    const second = Math.floor(Date.now() / 1000);
    const perSecond =
      second === this.second ? this.inLastSecond : second === this.second + 1 ? this.inSecond : 0;
    return {
      perSecond,
      tokenRefused: this.authError !== undefined,
      last429: this.last429,
      lastError: this.lastError,
    };
  }

  /** What the account's nodes show now, or undefined when all is well. */
  current(): NodeStatus | undefined {
    if (this.authError) {
      return { fill: "red", shape: "ring", text: errorStatus(this.t, this.authError) };
    }
    const wait = this.waitUntil - performance.now();
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      return { fill: "yellow", shape: "ring", text: this.t("edge.health.wait", { s }) };
    }
    const count = this.queued();
    if (count > 0) {
      return { fill: "yellow", shape: "dot", text: this.t("edge.health.queued", { count }) };
    }
    return undefined;
  }

  /** Calls `listener` with every change, and at once when the account is not well; returns the unwatch. */
  watch(listener: HealthListener): () => void {
    this.listeners.add(listener);
    const now = this.current();
    if (now) listener(now);
    this.timer ??= setInterval(() => {
      this.update();
    }, TICK_MS).unref();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.close();
    };
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private update(): void {
    const status = this.current();
    const key = status ? `${status.fill ?? ""} ${status.text ?? ""}` : undefined;
    if (key === this.shown) return;
    this.shown = key;
    for (const listener of this.listeners) listener(status);
  }
}
