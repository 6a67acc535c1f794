// One HTTP attempt over an undici pool, and the one place where undici's failures become
// EdgeErrors. Knowing whether a request may have reached the server matters here: a command that
// may have been delivered must not be sent again (see retry.ts).
import type { Dispatcher, Pool as UndiciPool } from "undici";
import { follow, unfollow } from "./abort-hub";
import type { AbortFollower } from "./abort-hub";
import { EdgeError } from "./errors";
import { NOT_TLS, createProxyPool, proxyFailure } from "./proxy-pool";
import type { ProxySettings } from "./proxy-pool";
import type { TlsOptions } from "./tls-options";

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

export interface PoolOptions {
  origin: string;
  connections: number;
  maxResponseBytes: number;
  tls?: TlsOptions;
  /** The proxy the account's requests go through (proxy-rules.ts chose it), if any. */
  proxy?: ProxySettings;
}

/**
 * undici is loaded when the first account starts, not when Node-RED loads the palette, and then
 * only its pool: the package index also loads fetch, WebSocket, caches, mocks and the rest,
 * 130-240 ms on a cold start against about 40-55 ms for the pool, and is what made loading this
 * package exceed 100 ms. Requests go through the pool's dispatch() (see Attempted below), so
 * nothing else of undici is needed. Should a later undici move the pool, the index is used.
 */
let Pool: typeof UndiciPool | undefined;

function loadUndici(): typeof UndiciPool {
  if (Pool) return Pool;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const deep = require("undici/lib/dispatcher/pool") as typeof UndiciPool;
    if (typeof deep !== "function") throw new Error("layout");
    Pool = deep;
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    Pool = (require("undici") as typeof import("undici")).Pool;
  }
  return Pool;
}

let preloading = false;

/**
 * Loads undici once the current turn of the event loop is over: Node-RED starts every flow in one
 * turn, so an account's start no longer waits for undici (40-55 ms), and its first request finds
 * it loaded unless it comes in that same turn (then it loads it).
 */
export function preloadUndici(): void {
  if (Pool || preloading) return;
  preloading = true;
  setImmediate(() => {
    try {
      loadUndici();
    } catch {
      // The first request loads it again and reports what fails.
    }
  }).unref();
}

/**
 * Makes an account's dispatcher in place of undici's pool: unset in production. The simulation
 * (test/sim/) sets it to put the fuzz server and every transport failure in process, on virtual
 * time, so that a seed replays its interleaving exactly; the client, retry rules and error map
 * above and below the dispatcher stay the ones users run.
 */
export type PoolFactory = (o: PoolOptions) => Dispatcher;
let poolFactory: PoolFactory | undefined;

/** Test-only: every pool made from now on comes from `f` (undefined: undici again). */
export function setPoolFactoryForTests(f: PoolFactory | undefined): void {
  poolFactory = f;
}

export function createPool(o: PoolOptions): Dispatcher {
  if (poolFactory) return poolFactory(o);
  const pool = (origin: string, connect: unknown): Dispatcher =>
    new (loadUndici())(origin, {
      connections: o.connections,
      keepAliveTimeout: 30_000,
      maxResponseSize: o.maxResponseBytes,
      // Our own abort signal enforces the timeout; these only stop undici's 300 s defaults from
      // outliving it.
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: connect as UndiciPool.Options["connect"],
    });
  // Through a proxy, the same pool settings hold for the pool ProxyAgent makes (proxy-pool.ts).
  if (o.proxy) return createProxyPool({ origin: o.origin, proxy: o.proxy, pool, tls: o.tls });
  return pool(o.origin, { ...o.tls, timeout: 10_000 });
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

/**
 * Maps what undici throws to an EdgeError; `timedOut` tells our timeout from a caller's abort.
 * `connected` is false when the attempt ended before undici was about to write the request: then
 * nothing of it was sent, whatever the error.
 */
export function mapTransportError(
  err: unknown,
  a: Attempt,
  origin: string,
  timedOut: boolean,
  connected = true,
  proxy?: string,
): EdgeError {
  const where = { method: a.method, path: a.path, origin };
  const code = errorCode(err);
  const base = { method: a.method, path: a.path, cause: err };
  // Through a proxy every connection is made to the proxy: a refused or unknown host is the
  // proxy's, and its 407 or its answer to CONNECT is its own; none of them reached the API.
  const ofProxy = proxy ? proxyFailure(err, code, where, proxy) : undefined;
  if (ofProxy) return ofProxy;
  if (code === "UND_ERR_PRX_TLS") {
    // undici's wrapper of a certificate that does not name the API's host, through a tunnel.
    const detail = errorCode((err as { cause?: unknown }).cause) || code;
    return new EdgeError("tls", { origin, detail }, base);
  }
  // Everything before a socket is open cannot have reached the server.
  if (code === "ECONNREFUSED") return new EdgeError("refused", where, base);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new EdgeError("dns", { host: new URL(origin).hostname }, base);
  }
  if (code === "UND_ERR_CONNECT_TIMEOUT") {
    return new EdgeError("timeout", { ...where, timeout: a.timeoutMs }, base);
  }
  if (TLS_CODES.test(code)) {
    // Bytes that are no TLS record: most often an https:// Base URL to a server that speaks http,
    // and the sentence says so (i18next context `http`: edge.errors.tls_http).
    const params: Record<string, string> = { origin, detail: code };
    if (NOT_TLS.test(code)) params.context = "http";
    return new EdgeError("tls", params, base);
  }
  const sent = { ...base, mayHaveBeenSent: connected };
  // A command is uncertain only once undici may have written some of it.
  const command = a.method === "POST" && connected;
  if (timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    const uncertain = command ? "timeout-uncertain" : "timeout";
    return new EdgeError(uncertain, { ...where, timeout: a.timeoutMs }, sent);
  }
  if (code === "UND_ERR_ABORTED" || (err as Error | null)?.name === "AbortError") {
    return new EdgeError("aborted", where, sent);
  }
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
    return new EdgeError("too-large", where, sent);
  }
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return new EdgeError(command ? "reset-uncertain" : "reset", where, sent);
  }
  return new EdgeError("network", { origin, detail: reason(err) }, sent);
}

/** undici's code for a request it was told to abort, kept so the error map reads one code. */
function abortError(): Error {
  return Object.assign(new Error("Request aborted"), {
    name: "AbortError",
    code: "UND_ERR_ABORTED",
  });
}

/**
 * One attempt as an undici dispatch handler: the answer is gathered as bytes and decoded once.
 * undici's request() wraps each answer in a Readable stream and an async resource, and
 * `body.text()` reads that stream back through promises; this package always reads the whole
 * answer, so none of that is needed: a command's CPU over a plain undici loop fell from about 19
 * to 5 µs (docs/performance.md). The
 * handler is also what the attempt's timer and the caller's signal (through the abort hub) abort.
 * undici calls onConnect when it is about to write the request; an abort before that rejects at
 * once and the request is dropped when undici gets to it, never sent.
 */
class Attempted implements AbortFollower {
  timedOut = false;
  /** undici was about to write the request (onConnect) before the attempt ended. */
  connected = false;
  private abortRequest: ((err: Error) => void) | undefined;
  private ended = false;
  private status = 0;
  private rawHeaders: Buffer[] = [];
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly resolve: (res: RawResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  onAbort(): void {
    this.fail(abortError());
  }

  timeout(): void {
    this.timedOut = true;
    this.fail(abortError());
  }

  /** Ends the attempt with `err`, and stops the request if undici has it. */
  private fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.reject(err);
    this.abortRequest?.(err);
  }

  onConnect(abort: (err: Error) => void): void {
    if (this.ended) abort(abortError());
    else {
      this.connected = true;
      this.abortRequest = abort;
    }
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    // 1xx answers (100 Continue, 103 Early Hints) come before the real one.
    if (status >= 200) {
      this.status = status;
      this.rawHeaders = rawHeaders;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  onComplete(): void {
    if (this.ended) return;
    this.ended = true;
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    const rawHeaders = this.rawHeaders;
    let headers: Record<string, string | string[] | undefined> | undefined;
    this.resolve({
      status: this.status,
      // Read only for a 429 or a 503 (Retry-After): built when first asked for.
      get headers() {
        return (headers ??= headersOf(rawHeaders));
      },
      text: body ? body.toString("utf8", hasBom(body) ? 3 : 0) : "",
    });
  }

  onError(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.reject(err);
  }
}

/**
 * A UTF-8 byte order mark before the answer: some servers send one, and JSON.parse fails on it.
 * undici's body.text() dropped it, as decoding by the Encoding standard does; so do we.
 */
function hasBom(b: Buffer): boolean {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
}

/** Raw header pairs as an object with lower-case names; a repeated header becomes a list. */
function headersOf(raw: Buffer[]): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = String(raw[i]).toLowerCase();
    const value = String(raw[i + 1]);
    const had = headers[name];
    headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return headers;
}

function onTimeout(attempt: Attempted): void {
  attempt.timeout();
}

/** Sends one request and reads the whole answer, within `timeoutMs`. */
export async function send(
  pool: Dispatcher,
  origin: string,
  a: Attempt,
  proxy?: string,
): Promise<RawResponse> {
  const signal = a.signal;
  let attempt: Attempted | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (signal?.aborted) throw abortError();
    return await new Promise<RawResponse>((resolve, reject) => {
      attempt = new Attempted(resolve, reject);
      timer = setTimeout(onTimeout, a.timeoutMs, attempt);
      if (signal) follow(signal, attempt);
      // The origin is the pool's own; a ProxyAgent (an Agent) needs it to pick its pool.
      const opts = { origin, method: a.method, path: a.path, headers: a.headers, body: a.body };
      pool.dispatch(opts, attempt);
    });
  } catch (err) {
    throw mapTransportError(
      err,
      a,
      origin,
      attempt?.timedOut ?? false,
      attempt?.connected ?? false,
      proxy,
    );
  } finally {
    clearTimeout(timer);
    if (signal && attempt) unfollow(signal, attempt);
  }
}
