// Turns a raw answer into a checked envelope. A failure is any non-2xx status, `head.ok: false`
// or a non-empty `head.errors` (docs/api-notes.md, The envelope); the readable message is built
// from `head.errors`, which the real service fills with strings. Anything that is not an envelope
// is `malformed`, never a crash.
import { EdgeError } from "./errors";
import type { ErrorCode } from "./errors";
import type { Envelope } from "./types";
import { cut, redact } from "./redact";
import { parseRetryAfter } from "./retry";
import type { RawResponse } from "./transport";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
}

/** Characters of a non-JSON answer looked at; a cut token there is still caught by redact(). */
const MAX_SCANNED = 64 * 1024;
/** Length of the excerpt of a non-JSON answer in an error message. */
const MAX_EXCERPT = 120;
/** Length of the API's own error text in an error message (all of it stays in `errors`). */
const MAX_DETAIL = 400;

/** A short, single-line excerpt of a non-JSON answer (an HTML error page, say), token-free. */
function excerpt(text: string, secret: string): string {
  const plain = text
    .slice(0, MAX_SCANNED)
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return cut(redact(plain, secret), MAX_EXCERPT) || "(empty)";
}

function codeFor(status: number): ErrorCode {
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not-found";
  if (status === 429) return "rate-limited";
  return "http";
}

/**
 * `secret` (the token) is cut out of every text taken from the answer before any error is built,
 * since a server may echo what it was sent.
 */
export function readEnvelope<T>(
  res: RawResponse,
  method: string,
  path: string,
  secret: string,
): Envelope<T> {
  const { status } = res;
  const ok = status >= 200 && status < 300;
  // The common case, a 2xx envelope with head.ok and no errors, costs one JSON.parse and no more.
  let parsed: unknown;
  if (ok) {
    try {
      parsed = JSON.parse(res.text);
    } catch {
      parsed = undefined;
    }
    const head = isObject(parsed) ? parsed.head : undefined;
    if (
      isObject(head) &&
      head.ok !== false &&
      (!Array.isArray(head.errors) || head.errors.length === 0)
    ) {
      const apiStatus = typeof head.status === "number" ? head.status : status;
      return {
        head: { ...head, status: apiStatus, ok: true, errors: [] },
        body: (parsed as Envelope<T>).body,
      };
    }
  }
  return failure(res, method, path, secret);
}

/** Every way an answer can fail, as the one EdgeError that says why. */
function failure(res: RawResponse, method: string, path: string, secret: string): never {
  const { status } = res;
  const clean = (text: string): string => redact(text, secret);
  const ok = status >= 200 && status < 300;
  const details = {
    status,
    method,
    path,
    // A 404 says the device, stream or company was not found: nothing was made (issue 35, item
    // 13). Any other answer may come after the request took effect.
    mayHaveBeenSent: status !== 404,
    retryAfterMs:
      status === 429 || status === 503 ? parseRetryAfter(res.headers["retry-after"]) : undefined,
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    const detail = excerpt(res.text, secret);
    if (ok)
      throw new EdgeError(
        "malformed",
        { method, path, status, detail: `not JSON: ${detail}` },
        details,
      );
    throw new EdgeError(codeFor(status), { method, path, status, detail }, details);
  }
  const head = isObject(parsed) ? parsed.head : undefined;
  if (!isObject(head)) {
    if (ok) throw new EdgeError("malformed", { method, path, status, detail: "no head" }, details);
    throw new EdgeError(codeFor(status), { method, path, status, detail: "no details" }, details);
  }
  const errors = strings(head.errors).map(clean);
  const apiStatus = typeof head.status === "number" ? head.status : status;
  const detail = (): string =>
    cut(errors.join("; ") || strings(head.messages).map(clean).join("; "), MAX_DETAIL) ||
    `HTTP ${status}`;
  if (!ok) {
    throw new EdgeError(
      codeFor(status),
      { method, path, status, detail: detail() },
      { ...details, apiStatus, errors },
    );
  }
  if (head.ok === false || errors.length > 0) {
    const code =
      apiStatus === 401 || apiStatus === 403 ? "auth" : apiStatus === 404 ? "not-found" : "api";
    throw new EdgeError(
      code,
      { method, path, status, apiStatus, detail: detail() },
      { ...details, apiStatus, errors, mayHaveBeenSent: apiStatus !== 404 },
    );
  }
  // Only a head.ok that is not a boolean false with no errors gets here: not an envelope we know.
  throw new EdgeError("malformed", { method, path, status, detail: "unexpected head" }, details);
}

export { isObject };
