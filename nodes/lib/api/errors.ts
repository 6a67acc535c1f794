// The one error type of the package. Everything that can go wrong, from a bad input found before
// any request to an HTML page where JSON was expected, becomes an EdgeError with a code that the
// locale catalogs translate, so a Catch node always sees the same fields.
import catalog from "../../../locales/en-US/edge-account.json";

/** Keys of `edge.errors` in the catalogs. */
export type ErrorCode = keyof (typeof catalog)["edge"]["errors"];

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

const templates: Record<string, string> = catalog.edge.errors;

/** Fills `__name__` placeholders the way Node-RED's i18next set-up does. */
export function interpolate(template: string, params: Record<string, unknown>): string {
  return template.replace(/__([a-zA-Z0-9]+)__/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

export class EdgeError extends Error {
  readonly code: ErrorCode;
  readonly params: Record<string, string | number>;
  readonly status?: number;
  readonly apiStatus?: number;
  readonly errors: string[];
  readonly method?: string;
  readonly path?: string;
  readonly retryAfterMs?: number;
  readonly mayHaveBeenSent: boolean;

  constructor(
    code: ErrorCode,
    params: Record<string, string | number> = {},
    details: ErrorDetails = {},
  ) {
    super(interpolate(templates[code] ?? code, params));
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
