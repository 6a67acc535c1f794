// When a failed request is tried again, as plain data and two small functions. Reads and state
// replacement are idempotent and retried on anything transient; a command is retried only when
// it certainly did not reach the server, because a second delivery would move an actuator twice.
import type { EdgeError } from "./errors";

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The longest wait a server's `Retry-After` can ask of the account: 10 minutes. A larger value (an
 * hour, a date next year, 99999999 seconds) counts as 10 minutes, so no answer of a server can
 * pause the account, or a node's status, for longer.
 */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 200, maxDelayMs: 10_000 };

const IDEMPOTENT_STATUSES = new Set([429, 502, 503, 504]);
/** Answers that say the server did not act on the request, when the API itself gave them. */
const NOT_PROCESSED_STATUSES = new Set([429, 503]);

/** A 429 or 503, whoever gave it. */
const busy = (err: EdgeError): boolean =>
  err.status !== undefined && NOT_PROCESSED_STATUSES.has(err.status);

/**
 * A 429 or 503 in the API's own envelope (envelope.ts gives `apiStatus` only then): the API did
 * not act on the request. The same status without it is a proxy's or a gateway's, which answers
 * 503 after it forwarded the request too (Envoy, after an upstream reset), so it proves nothing
 * (issue 35, item 4).
 */
export function notProcessed(err: EdgeError): boolean {
  return busy(err) && err.apiStatus !== undefined;
}

/** A 429 or 503 that is not the API's own (no envelope): a command's outcome is not known. */
export function fromBetween(err: EdgeError): boolean {
  return busy(err) && err.apiStatus === undefined;
}

export function isRetryable(err: EdgeError, idempotent: boolean): boolean {
  if (err.code === "refused" || err.code === "dns" || err.code === "proxy-refused") return true;
  if (err.code === "proxy-auth") return false;
  // A tunnel the proxy would not open never carried the request; a gateway status the proxy
  // answered to a forwarded request (client.ts) keeps its status and the rules below.
  if (err.code === "proxy-upstream" && err.status === undefined) return true;
  if (err.status !== undefined) {
    return idempotent ? IDEMPOTENT_STATUSES.has(err.status) : notProcessed(err);
  }
  if (!idempotent) return err.code === "timeout" && !err.mayHaveBeenSent;
  return ["timeout", "reset", "network"].includes(err.code);
}

/** Full-jitter exponential backoff, or exactly what the server asked for with Retry-After. */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  err: EdgeError,
  random = Math.random,
): number {
  if (err.retryAfterMs !== undefined) return err.retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** `Retry-After` is either delta-seconds or an HTTP date; at most MAX_RETRY_AFTER_MS. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Math.min(MAX_RETRY_AFTER_MS, Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}
