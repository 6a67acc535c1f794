// One HTTP attempt over an undici pool, and the one place where undici's failures become
// EdgeErrors. Knowing whether a request may have reached the server matters here: a command that
// may have been delivered must not be sent again (see retry.ts).
import { EventEmitter } from "node:events";
import type { Dispatcher, Pool as UndiciPool } from "undici";
import { follow, unfollow } from "./abort-hub";
import type { AbortFollower } from "./abort-hub";
import { EdgeError } from "./errors";

export interface Attempt {
  method: "GET" | "PUT" | "POST";
  /** Encoded path and query, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface TlsOptions {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  passphrase?: string;
  servername?: string;
  rejectUnauthorized?: boolean;
}

export interface PoolOptions {
  origin: string;
  connections: number;
  maxResponseBytes: number;
  tls?: TlsOptions;
}

/**
 * undici is loaded when the first account starts, not when Node-RED loads the palette, and then
 * only its pool and request(): the package index also loads fetch, WebSocket, caches, mocks and
 * the rest, 130-240 ms on a cold start against about 40-55 ms for these two files, and is what
 * made loading this package exceed 100 ms. request() is called on the pool, not added to
 * undici's prototypes as the index does. Should a later undici move these files, the index is
 * used instead.
 */
interface Undici {
  Pool: typeof UndiciPool;
  request: Dispatcher["request"];
}
let undici: Undici | undefined;

function loadUndici(): Undici {
  if (undici) return undici;
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const Pool = require("undici/lib/dispatcher/pool") as typeof UndiciPool;
    const request = require("undici/lib/api/api-request") as Dispatcher["request"];
    /* eslint-enable @typescript-eslint/no-require-imports */
    if (typeof Pool !== "function" || typeof request !== "function") throw new Error("layout");
    undici = { Pool, request };
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const index = require("undici") as typeof import("undici");
    // Called with the pool as `this` (send()), as the index's own prototype method expects.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    undici = { Pool: index.Pool, request: index.Pool.prototype.request };
  }
  return undici;
}

let preloading = false;

/**
 * Loads undici once the current turn of the event loop is over: Node-RED starts every flow in one
 * turn, so an account's start no longer waits for undici (40-55 ms), and its first request finds
 * it loaded unless it comes in that same turn (then it loads it).
 */
export function preloadUndici(): void {
  if (undici || preloading) return;
  preloading = true;
  setImmediate(() => {
    try {
      loadUndici();
    } catch {
      // The first request loads it again and reports what fails.
    }
  }).unref();
}

export function createPool(o: PoolOptions): Dispatcher {
  const { Pool } = loadUndici();
  return new Pool(o.origin, {
    connections: o.connections,
    keepAliveTimeout: 30_000,
    maxResponseSize: o.maxResponseBytes,
    // Our own abort signal enforces the timeout; these only stop undici's 300 s defaults from
    // outliving it.
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { ...o.tls, timeout: 10_000 },
  });
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH)/;

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" ? code : "";
}

function reason(err: unknown): string {
  const e = err as { message?: unknown; cause?: { message?: unknown } } | null;
  const text = e?.cause?.message ?? e?.message;
  return typeof text === "string" && text ? text : String(err);
}

/** Maps what undici throws to an EdgeError; `timedOut` tells our timeout from a caller's abort. */
export function mapTransportError(
  err: unknown,
  a: Attempt,
  origin: string,
  timedOut: boolean,
): EdgeError {
  const where = { method: a.method, path: a.path, origin };
  const code = errorCode(err);
  const base = { method: a.method, path: a.path, cause: err };
  // Everything before a socket is open cannot have reached the server.
  if (code === "ECONNREFUSED") return new EdgeError("refused", where, base);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new EdgeError("dns", { host: new URL(origin).hostname }, base);
  }
  if (code === "UND_ERR_CONNECT_TIMEOUT") {
    return new EdgeError("timeout", { ...where, timeout: a.timeoutMs }, base);
  }
  if (TLS_CODES.test(code)) return new EdgeError("tls", { origin, detail: code }, base);
  const sent = { ...base, mayHaveBeenSent: true };
  if (timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    const uncertain = a.method === "POST" ? "timeout-uncertain" : "timeout";
    return new EdgeError(uncertain, { ...where, timeout: a.timeoutMs }, sent);
  }
  if (code === "UND_ERR_ABORTED" || (err as Error | null)?.name === "AbortError") {
    return new EdgeError("aborted", where, sent);
  }
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
    return new EdgeError("too-large", where, sent);
  }
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return new EdgeError(a.method === "POST" ? "reset-uncertain" : "reset", where, sent);
  }
  return new EdgeError("network", { origin, detail: reason(err) }, sent);
}

/**
 * The abort signal undici gets for one attempt. undici accepts an EventEmitter, and one costs far
 * less than an AbortController (about 5 µs in Node 20). It fires on the attempt's timeout or when
 * the caller's signal aborts, which it follows through the abort hub: one listener per signal.
 */
class AttemptAbort extends EventEmitter implements AbortFollower {
  timedOut = false;
  private fired = false;

  onAbort(): void {
    this.fire();
  }

  fire(): void {
    if (this.fired) return;
    this.fired = true;
    this.emit("abort");
  }
}

function onTimeout(abort: AttemptAbort): void {
  abort.timedOut = true;
  abort.fire();
}

/** Sends one request and reads the whole answer, within `timeoutMs`. */
export async function send(pool: Dispatcher, origin: string, a: Attempt): Promise<RawResponse> {
  const abort = new AttemptAbort();
  const timer = setTimeout(onTimeout, a.timeoutMs, abort);
  const signal = a.signal;
  if (signal) follow(signal, abort);
  try {
    if (signal?.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
    const res = await loadUndici().request.call(pool, {
      method: a.method,
      path: a.path,
      headers: a.headers,
      body: a.body,
      signal: abort,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    throw mapTransportError(err, a, origin, abort.timedOut);
  } finally {
    clearTimeout(timer);
    if (signal) unfollow(signal, abort);
  }
}
