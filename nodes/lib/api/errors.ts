// The one error type of the package. Everything that can go wrong, from a bad input found before
// any request to an HTML page where JSON was expected, becomes an EdgeError with a code that the
// locale catalogs translate, so a Catch node always sees the same fields.
//
// This layer knows the codes, not the words: the sentence for a code comes from the texts the
// node-red layer sets (node-red/i18n.ts, from the shipped catalog), so that the dependencies run
// one way, from the nodes through lib to the api, and the catalog stays the one place of the words.

/** Every code an EdgeError carries: the keys of `edge.errors` in the catalogs (a spec holds them equal). */
export const ERROR_CODES = [
  "http",
  "api",
  "auth",
  "not-found",
  "rate-limited",
  "timeout",
  "timeout-uncertain",
  "refused",
  "proxy-refused",
  "proxy-auth",
  "proxy-upstream",
  "proxy-tls",
  "reset",
  "reset-uncertain",
  "gateway-uncertain",
  "dns",
  "tls",
  "network",
  "malformed",
  "aborted",
  "aborted-uncertain",
  "queue-full",
  "payload-too-large",
  "bad-config",
  "no-account",
  "device-empty",
  "devices-empty",
  "device-unknown",
  "stream-empty",
  "inbox-empty",
  "not-object",
  "empty",
  "bad-value",
  "null-value",
  "bad-json",
  "bad-template",
  "integer",
  "bad-mode",
  "bad-device",
  "no-command",
  "not-plain",
  "too-deep",
  "circular",
  "too-deep-msg",
  "internal",
  "dot-name",
  "bad-text",
  "deadline",
  "deadline-uncertain",
  "too-large",
  "too-much",
  "not-api",
  "no-command-id",
  "bad-devices",
  "too-many-devices",
  "no-device-list",
  "send-uncertain",
  "clock-apart",
  "clock-stepped",
  "cancelled",
  "id-reused",
  "id-unchecked",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorParams = Record<string, string | number>;

/** The sentence for a code and its parameters, or undefined when there is none. */
export type ErrorTexts = (code: ErrorCode, params: ErrorParams) => string | undefined;

let texts: ErrorTexts = () => undefined;

/**
 * Sets where EdgeErrors take their sentences from (the node-red layer sets it once, on loading)
 * and answers the source it replaces.
 */
export function setErrorTexts(source: ErrorTexts): ErrorTexts {
  const before = texts;
  texts = source;
  return before;
}

/** The sentence, or the code and its parameters when no texts are set: never an empty message. */
function sentence(code: ErrorCode, params: ErrorParams): string {
  const text = texts(code, params);
  if (text !== undefined) return text;
  const values = Object.entries(params).map(([name, value]) => `${name}=${String(value)}`);
  return values.length ? `${code} (${values.join(", ")})` : code;
}

export interface ErrorDetails {
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** `head.status` of the envelope, when there was one. */
  apiStatus?: number;
  /** `head.errors` of the envelope (strings, as the real service sends them). */
  errors?: string[];
  method?: string;
  /** The request path as sent (encoded), never with credentials. */
  path?: string;
  /** Milliseconds the server asked us to wait (`Retry-After`). */
  retryAfterMs?: number;
  /** True when the request may have reached the server (so a command may have been delivered). */
  mayHaveBeenSent?: boolean;
  cause?: unknown;
}

export class EdgeError extends Error {
  readonly code: ErrorCode;
  readonly params: ErrorParams;
  readonly status?: number;
  readonly apiStatus?: number;
  readonly errors: string[];
  readonly method?: string;
  readonly path?: string;
  readonly retryAfterMs?: number;
  readonly mayHaveBeenSent: boolean;

  constructor(code: ErrorCode, params: ErrorParams = {}, details: ErrorDetails = {}) {
    super(sentence(code, params));
    // The undici error behind a transport failure is kept for debugging but not as `cause`:
    // Node-RED copies an own `cause` into the Catch node's msg.error, and flows need none of it.
    Object.defineProperty(this, "underlying", { value: details.cause, enumerable: false });
    this.name = "EdgeError";
    this.code = code;
    this.params = params;
    this.status = details.status;
    this.apiStatus = details.apiStatus;
    this.errors = details.errors ?? [];
    this.method = details.method;
    this.path = details.path;
    this.retryAfterMs = details.retryAfterMs;
    this.mayHaveBeenSent = details.mayHaveBeenSent ?? false;
  }

  /** Node-RED shows `toString()` in msg.error.message: the sentence alone, without "EdgeError:". */
  override toString(): string {
    return this.message;
  }

  /** What a flow sees in `msg.edgeError`: plain data, safe to log. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      apiStatus: this.apiStatus,
      errors: this.errors,
      method: this.method,
      path: this.path,
      retryAfterMs: this.retryAfterMs,
      mayHaveBeenSent: this.mayHaveBeenSent,
    };
  }
}
