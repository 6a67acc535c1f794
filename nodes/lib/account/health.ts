// The account's own state, shown on every node that uses it: requests waiting in its queue, a wait
// the server asked for with 429, and an authentication failure (401/403), which stays red on every
// node until a request of the account succeeds again. The client tells it the outcome of every
// HTTP attempt; a one-second tick, running only while some node watches, follows the queue and
// counts the wait down, so the busy path pays one call per attempt and nothing per status. It
// says what the state is; how a node shows it is lib/node-red/status.ts (accountStatus).
import type { EdgeError } from "../api/errors";

const TICK_MS = 1000;
/** How long a 429 without Retry-After is shown: the retry delay is not known here. */
const DEFAULT_WAIT_MS = 2000;

/** What is wrong with the account, the worst first: its nodes show it over their own status. */
export type AccountState =
  /** The token was refused (401/403): until a request of the account succeeds again. */
  | { kind: "auth"; error: EdgeError }
  /** A 429 asked to wait: whole seconds left. */
  | { kind: "wait"; seconds: number }
  /** Requests wait in the account's queue. */
  | { kind: "queued"; count: number };

/** Told of every change; undefined: all is well again. */
export type HealthListener = (state: AccountState | undefined) => void;

/** What the editor's sidebar shows of the account's health (no message, no token: codes only). */
export interface HealthView {
  /** HTTP attempts in the last whole second. */
  perSecond: number;
  tokenRefused: boolean;
  /** The wait the last 429 asked for, and when it came (Date.now() time). */
  last429: { ms: number; at: number } | undefined;
  lastError: { code: string; status: number | undefined; at: number } | undefined;
}

/** Equal for states that show the same: a refused token again, with the same answer, is no change. */
function keyOf(state: AccountState): string {
  switch (state.kind) {
    case "auth": {
      const e = state.error;
      return `auth ${e.code} ${e.status ?? ""} ${e.apiStatus ?? ""} ${e.message}`;
    }
    case "wait":
      return `wait ${state.seconds}`;
    case "queued":
      return `queued ${state.count}`;
  }
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

  constructor(private readonly queued: () => number) {}

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

  /** What is wrong with the account now, or undefined when all is well. */
  current(): AccountState | undefined {
    if (this.authError) return { kind: "auth", error: this.authError };
    const wait = this.waitUntil - performance.now();
    if (wait > 0) return { kind: "wait", seconds: Math.ceil(wait / 1000) };
    const count = this.queued();
    if (count > 0) return { kind: "queued", count };
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
    const state = this.current();
    const key = state === undefined ? undefined : keyOf(state);
    if (key === this.shown) return;
    this.shown = key;
    // One state object for every listener: a node's glue makes it a status once for all of them.
    for (const listener of this.listeners) listener(state);
  }
}
