// The typed client of the v5.0 API that every node uses. One request() path carries the five
// operations: it builds an encoded path, applies the account's rate limit, sends one attempt over
// the account's keep-alive pool, checks the envelope and retries what retry.ts allows, within the
// request's time budget. Nodes never build URLs or headers themselves.
import { setMaxListeners } from "node:events";
import type { Dispatcher } from "undici";
import {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MAX_PAYLOAD_BYTES,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  checkProxy,
  parseBaseUrl,
} from "./account-settings";
import type { AccountSettings } from "./account-settings";
import { EdgeError } from "./errors";
import { isObject, readEnvelope } from "./envelope";
import { USER_AGENT } from "./package-info";
import { DEFAULT_RATE_LIMIT, RateLimiter } from "./rate-limiter";
import type { Lane, Release } from "./rate-limiter";
import { DEFAULT_RETRY, fromBetween, isRetryable, retryDelay } from "./retry";
import type { RetryPolicy } from "./retry";
import { checkName, encodeSegment } from "./path";
import { redact } from "./redact";
import { SignalLinks, sleep } from "./signals";
import { timerDelay } from "./timer-delay";
import { basicAuth, proxyHost } from "./proxy-pool";
import { createPool, preloadUndici, send } from "./transport";
import type { PoolOptions } from "./transport";
import type {
  Device,
  DeviceEvent,
  Elems,
  Envelope,
  EventMetadata,
  PageQuery,
  State,
} from "./types";

/** When a request, or a merge with its read and write, must be over (performance.now() time). */
export interface Deadline {
  at: number;
  /** The whole budget in ms, for the error message. */
  ms: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Told when a request is about to go out (queued for the rate limit, or sent), once its input
   * passed every check: a node shows "requesting" then, not for a message refused before.
   */
  onRequest?: () => void;
  /** Told before each retry, e.g. to show it in a node's status. */
  onRetry?: (attempt: number, delayMs: number, err: EdgeError) => void;
  /** Overrides the account's retry count (0 when an outer loop retries, as a merge does). */
  retries?: number;
  /** The rate limiter's lane: "poll" for periodic reads something waits on (rate-limiter.ts). */
  lane?: Lane;
  /** The budget of an outer call (a merge) that this request is part of. */
  deadline?: Deadline;
  /**
   * When the message this call serves arrived (performance.now()): the budget counts from then,
   * so that a message its node held back (bounded intake) does not get a fresh one.
   */
  since?: number;
  /** Told the size in bytes of each answer read (edge-list-events bounds `all` with it). */
  onAnswer?: (bytes: number) => void;
  /**
   * Awaited when an attempt has its rate-limit slot, just before it goes out: a fleet job records
   * a device as being sent only then (a send still waiting in the limiter was never sent).
   */
  beforeSend?: () => Promise<void> | void;
}

type Method = "GET" | "PUT" | "POST";

interface ApiRequest {
  method: Method;
  segments: readonly string[];
  query?: Record<string, string | number>;
  body?: unknown;
  contentType?: string;
  /** The device or stream the request is about, and how to call it in an error. */
  name?: readonly [string, string];
}

/** Less of the budget than this missing from an attempt's timeout is not worth a shorter timer. */
const JITTER_MS = 20;
/** The content type the API's example shows for `POST /event` (docs/api-notes.md, Commands). */
const TEXT_PLAIN = "text/plain; charset=utf-8";
export class EdgeClient {
  readonly origin: string;
  readonly company: string;
  readonly timeoutMs: number;
  readonly maxAnswerBytes: number;
  readonly limiter: RateLimiter;
  /** `host:port` of the proxy the requests go through, or undefined when they go direct. */
  readonly proxyHost: string | undefined;
  private readonly prefix: string;
  /** Made at the first request (transport.ts loads undici then, if the preload has not). */
  private pool: Dispatcher | undefined;
  private readonly poolOptions: PoolOptions;
  private readonly retry: RetryPolicy;
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;
  private readonly textHeaders: Record<string, string>;
  private readonly token: string;
  /** Kept out of every error text with the token: the proxy's password and its Basic header. */
  private readonly secrets: string[];
  /** An http origin through a proxy: the proxy forwards each request and may answer for the API. */
  private readonly forwarded: boolean;
  private readonly maxPayloadBytes: number;
  /** Told after every HTTP attempt: the account's health (health.ts) follows auth and 429s. */
  onAttempt: ((err: EdgeError | undefined) => void) | undefined;
  private readonly closing = new AbortController();
  private readonly links = new SignalLinks(this.closing.signal);

  constructor(settings: AccountSettings) {
    const { origin, basePath } = parseBaseUrl(settings.baseUrl);
    const company = settings.company.trim();
    if (!company)
      throw new EdgeError("bad-config", { context: "company", detail: "the company is empty" });
    try {
      checkName(company, "the company");
    } catch (err) {
      throw new EdgeError("bad-config", { detail: (err as Error).message });
    }
    const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new EdgeError("bad-config", {
        context: "timeout",
        max: MAX_TIMEOUT_MS,
        got: String(timeoutMs),
        detail: `the timeout must be a whole number of ms from 1 to ${MAX_TIMEOUT_MS}, got ${timeoutMs}`,
      });
    }
    const maxAnswerBytes = settings.maxResponseBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    if (!Number.isInteger(maxAnswerBytes) || maxAnswerBytes < 1) {
      throw new EdgeError("bad-config", {
        context: "answer",
        got: String(maxAnswerBytes),
        detail: `the largest answer must be a whole number of bytes, got ${maxAnswerBytes}`,
      });
    }
    const token = settings.token.trim();
    if (!token)
      throw new EdgeError("bad-config", { context: "token", detail: "the token is empty" });
    if (/[\r\n]/.test(token) || /[\r\n]/.test(settings.user ?? "")) {
      throw new EdgeError("bad-config", {
        context: "linebreak",
        detail: "the user or token holds a line break",
      });
    }
    const proxy = settings.proxy && checkProxy(settings.proxy);
    // Every call in flight listens on this signal; hundreds at once are normal, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.origin = origin;
    this.company = company;
    this.prefix = `${basePath}/v5.0/${encodeSegment(company)}`;
    this.token = token;
    this.proxyHost = proxy && proxyHost(proxy);
    this.forwarded = proxy !== undefined && origin.startsWith("http:");
    const auth = proxy && basicAuth(proxy);
    // Neither reaches the API (a proxy drops Proxy-Authorization), so this only guards our own
    // texts; a password of one to three characters would blank out common letters, not a secret.
    const password = (proxy?.password ?? "").length >= 4 ? (proxy?.password ?? "") : "";
    this.secrets = [token, password, auth?.slice("Basic ".length) ?? ""].filter((x) => x !== "");
    this.timeoutMs = timeoutMs;
    this.maxAnswerBytes = maxAnswerBytes;
    this.retry = { ...DEFAULT_RETRY, ...settings.retry };
    this.maxPayloadBytes = settings.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    const rate = { ...DEFAULT_RATE_LIMIT, ...settings.rateLimit };
    this.limiter = new RateLimiter(rate);
    this.poolOptions = {
      origin,
      connections: rate.concurrent,
      maxResponseBytes: maxAnswerBytes,
      tls: settings.tls,
      proxy,
    };
    // Not loaded here: an account starts with the flows, and undici's load would delay them.
    preloadUndici();
    this.headers = { "x-auth-token": token, "user-agent": USER_AGENT, accept: "application/json" };
    const user = settings.user?.trim();
    if (user) this.headers["x-auth-user"] = user;
    // Made once: every request with a body uses one of these.
    this.jsonHeaders = { ...this.headers, "content-type": "application/json" };
    this.textHeaders = { ...this.headers, "content-type": TEXT_PLAIN };
  }

  /**
   * The stream path of a device's `:command` or `:inbox` stream. The name goes into a JSON body or
   * a query, where no encoding can keep a `/` from addressing another stream: it is refused.
   */
  streamPath(device: string, stream: ":command" | ":inbox"): string {
    if (device.includes("/")) throw new EdgeError("bad-device", { device });
    checkName(device, "The device");
    return `/${this.company}/devices/${device}/${stream}`;
  }

  getDevice(id: string, opts?: CallOptions): Promise<Device> {
    return this.request<unknown>(
      { method: "GET", segments: ["device", id], name: [id, "The device"] },
      opts,
    ).then((env) => this.device(env, "GET", id));
  }

  /** Replaces the device's whole state (docs/api-notes.md, Update rules, 1). */
  updateDevice(id: string, state: State, opts?: CallOptions): Promise<Device> {
    return this.request<unknown>(
      { method: "PUT", segments: ["device", id], body: { state }, name: [id, "The device"] },
      opts,
    ).then((env) => this.device(env, "PUT", id));
  }

  createEventByPath(
    path: string,
    elems: Elems,
    metadata?: EventMetadata,
    opts?: CallOptions,
  ): Promise<DeviceEvent | null> {
    // The spec shows this request with a text/plain content type; keep it, some servers care.
    const body = metadata ? { path, elems, metadata } : { path, elems };
    const req = {
      method: "POST",
      segments: ["event"],
      body,
      contentType: TEXT_PLAIN,
      name: [path, "The stream path"],
    } as const;
    return this.request<unknown>(req, opts).then((env) =>
      EdgeClient.event(env, `${this.prefix}/event`),
    );
  }

  createEvent(
    streamId: string,
    elems: Elems,
    metadata?: EventMetadata,
    opts?: CallOptions,
  ): Promise<DeviceEvent | null> {
    const body = metadata ? { elems, metadata } : { elems };
    return this.request<unknown>(
      { method: "POST", segments: ["event", streamId], body, name: [streamId, "The stream"] },
      opts,
    ).then((env) => EdgeClient.event(env, `${this.prefix}/event/${encodeSegment(streamId)}`));
  }

  listEvents(
    streamId: string,
    page: Partial<PageQuery> = {},
    opts?: CallOptions,
  ): Promise<DeviceEvent[]> {
    const query = { limit: page.limit ?? 20, start: page.start ?? 0 };
    return this.request<unknown>(
      { method: "GET", segments: ["event", streamId], query, name: [streamId, "The stream"] },
      opts,
    ).then((env) => this.events(env, streamId));
  }

  /** `GET /event?path=` (docs/api-notes.md, Fall-backs), when only the stream path is known. */
  listEventsByPath(
    path: string,
    page: Partial<PageQuery> = {},
    opts?: CallOptions,
  ): Promise<DeviceEvent[]> {
    const query = { path, limit: page.limit ?? 20, start: page.start ?? 0 };
    return this.request<unknown>(
      { method: "GET", segments: ["event"], query, name: [path, "The stream path"] },
      opts,
    ).then((env) => this.events(env, path));
  }

  /**
   * Refuses a body over the account's payload limit, before any request. A merge asks with its
   * patch alone: the state it would write holds at least that.
   */
  checkPayload(body: string): void {
    // A UTF-16 unit is at most 3 bytes in UTF-8: short bodies need no byte count.
    if (body.length * 3 <= this.maxPayloadBytes) return;
    const size = Buffer.byteLength(body);
    if (size > this.maxPayloadBytes)
      throw new EdgeError("payload-too-large", { size, max: this.maxPayloadBytes });
  }

  /**
   * One page of the hosted service's `GET /device` or `GET /stream` list (docs/api-notes.md, Fall-backs: the
   * editor's pickers use it and say so when a server answers 404 or 405).
   */
  list(
    resource: "device" | "stream",
    query: { limit: number; start: number; only?: string; filter?: string },
    opts?: CallOptions,
  ): Promise<Record<string, unknown>[]> {
    const q: Record<string, string | number> = { limit: query.limit, start: query.start };
    if (query.only) q.only = query.only;
    if (query.filter) q.filter = query.filter;
    return this.request<unknown>({ method: "GET", segments: [resource], query: q }, opts).then(
      (env) => {
        if (!Array.isArray(env.body)) {
          const path = `${this.prefix}/${resource}`;
          throw new EdgeError(
            "malformed",
            { method: "GET", path, status: env.head.status, detail: `no list in the answer` },
            { method: "GET", path },
          );
        }
        return env.body.filter(isObject);
      },
    );
  }

  /** The single request path: encoding, rate limit, one attempt, envelope check, retries. */
  async request<T>(req: ApiRequest, opts: CallOptions = {}): Promise<Envelope<T>> {
    if (req.name) checkName(req.name[0], req.name[1]);
    const path = this.pathFor(req.segments, req.query);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    if (body !== undefined) this.checkPayload(body);
    const headers =
      body === undefined
        ? this.headers
        : req.contentType === TEXT_PLAIN
          ? this.textHeaders
          : this.jsonHeaders;
    const idempotent = req.method !== "POST";
    opts.onRequest?.();
    return this.retrying(idempotent, opts, async (signal, deadline) => {
      const release =
        this.limiter.tryAcquire(opts.lane) ??
        (await this.queue(signal, deadline, req.method, path, opts.lane));
      // An attempt's timer is what is left of the budget when that is shorter than the timeout;
      // a few ms less is the time taken to get here, and the attempt keeps its timeout.
      const left = Math.ceil(deadline.at - performance.now());
      const cutShort = left < this.timeoutMs - JITTER_MS;
      try {
        if (left <= 0) throw this.overdue(deadline, req.method, path, false);
        await opts.beforeSend?.();
        const attempt = {
          method: req.method,
          path,
          headers,
          body,
          timeoutMs: cutShort ? left : this.timeoutMs,
          signal,
        };
        this.pool ??= createPool(this.poolOptions);
        const res = await send(this.pool, this.origin, attempt, this.proxyHost);
        opts.onAnswer?.(Buffer.byteLength(res.text));
        const envelope = readEnvelope<T>(res, req.method, path, this.token);
        this.onAttempt?.(undefined);
        return envelope;
      } catch (caught) {
        let err = this.between(this.hop(this.scrub(caught, req.method, path, signal)));
        if (cutShort && (err.code === "timeout" || err.code === "timeout-uncertain"))
          err = this.overdue(deadline, req.method, path, err.mayHaveBeenSent);
        this.onAttempt?.(err);
        throw err;
      } finally {
        release();
      }
    });
  }

  /**
   * Says which hop answered. Through a proxy, a 407 is the proxy's; for an http origin the proxy
   * forwards each request, and a 502 or 504 without the API's envelope is the proxy (or a gateway
   * behind it) saying it could not reach the API. Its status stays, and with it the retry rules
   * of a 502/504 (retry.ts: never for a command). Through a CONNECT tunnel the API answers itself.
   */
  private hop(err: EdgeError): EdgeError {
    const proxy = this.proxyHost;
    if (proxy === undefined || err.status === undefined) return err;
    const details = {
      status: err.status,
      method: err.method,
      path: err.path,
      mayHaveBeenSent: err.mayHaveBeenSent,
    };
    if (err.status === 407) return new EdgeError("proxy-auth", { proxy, status: 407 }, details);
    const gateway = err.status === 502 || err.status === 504;
    if (!this.forwarded || !gateway || err.apiStatus !== undefined) return err;
    const where = { method: err.method ?? "*", path: err.path ?? this.prefix, origin: this.origin };
    return new EdgeError("proxy-upstream", { ...where, proxy, status: err.status }, details);
  }

  /**
   * A command answered 429 or 503 by something between us and the API (no envelope: an HTML page,
   * an empty body), with or without a proxy configured: a gateway answers so after it forwarded
   * the request too (Envoy, after an upstream reset), so the command may have been made. It is
   * not sent again (retry.ts) and says so; a 429 keeps its status and Retry-After for the
   * account's health.
   */
  private between(err: EdgeError): EdgeError {
    if (err.method !== "POST" || !fromBetween(err)) return err;
    const status = err.status ?? 0;
    const where = { method: err.method, path: err.path ?? this.prefix, origin: this.origin };
    return new EdgeError(
      "gateway-uncertain",
      { ...where, status },
      {
        status,
        method: err.method,
        path: err.path,
        retryAfterMs: err.retryAfterMs,
        mayHaveBeenSent: true,
      },
    );
  }

  /** Waits for a rate-limit slot, until the deadline at most. */
  private async queue(
    signal: AbortSignal,
    deadline: Deadline,
    method: string,
    path: string,
    lane: Lane | undefined,
  ): Promise<Release> {
    const controller = new AbortController();
    const onAbort = (): void => {
      controller.abort(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const wait = timerDelay(deadline.at - performance.now());
    const timer = setTimeout(() => {
      controller.abort(this.overdue(deadline, method, path, false));
    }, wait);
    try {
      return await this.limiter.acquire(controller.signal, lane);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The error of a request whose budget ran out, in the queue, between attempts or in one. */
  private overdue(deadline: Deadline, method: string, path: string, sent: boolean): EdgeError {
    const code = sent && method === "POST" ? "deadline-uncertain" : "deadline";
    return new EdgeError(
      code,
      { method, path, budget: deadline.ms },
      { method, path, mayHaveBeenSent: sent },
    );
  }

  /**
   * The time budget of a request: timeout x (retries + 1). After it, a request has ended here,
   * so a server that did not make what it asked for by then is taken not to have it.
   */
  budgetMs(opts: CallOptions = {}): number {
    return this.timeoutMs * ((opts.retries ?? this.retry.retries) + 1);
  }

  /**
   * Runs `attempt` until it succeeds, the error is not retryable (retry.ts), the retries are used
   * up or the deadline would be passed. The deadline is timeout x (retries + 1) from the first
   * call, and covers the wait for the rate limit, every attempt and the waits between them. Also
   * used around a whole merge, so that a retried merge reads the state again instead of writing
   * a stale one; its read and write then share the merge's deadline.
   */
  async retrying<T>(
    idempotent: boolean,
    opts: CallOptions,
    attempt: (signal: AbortSignal, deadline: Deadline) => Promise<T>,
  ): Promise<T> {
    const retries = opts.retries ?? this.retry.retries;
    let deadline = opts.deadline;
    if (!deadline) {
      const ms = this.budgetMs({ retries });
      deadline = { at: (opts.since ?? performance.now()) + ms, ms };
    }
    const { signal, dispose } = this.links.link(opts.signal);
    try {
      for (let n = 0; ; n++) {
        try {
          return await attempt(signal, deadline);
        } catch (caught) {
          const err =
            caught instanceof EdgeError ? caught : this.scrub(caught, "*", this.prefix, signal);
          if (signal.aborted || n >= retries || !isRetryable(err, idempotent)) throw err;
          const delay = retryDelay(this.retry, n, err);
          if (performance.now() + delay > deadline.at || delay > MAX_TIMEOUT_MS) throw err;
          opts.onRetry?.(n + 1, delay, err);
          await sleep(delay, signal).catch(() => {
            throw new EdgeError("aborted", {
              method: err.method ?? "*",
              path: err.path ?? this.prefix,
            });
          });
        }
      }
    } finally {
      dispose();
    }
  }

  /**
   * A text taken from an answer's body with this client's token replaced (redact.ts): error texts
   * are redacted as they are read, but what a caller shows from a successful answer (the editor's
   * device names) it redacts through this, without ever holding the token.
   */
  redact(text: string): string {
    return this.hide(text);
  }

  /** `text` without the token, the proxy's password or its Basic credentials. */
  private hide(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = redact(out, secret);
    return out;
  }

  /** Aborts what is in flight, fails what is queued and closes the connection pool. */
  async close(): Promise<void> {
    const reason = new EdgeError("aborted", { method: "*", path: this.prefix });
    this.closing.abort(reason);
    this.limiter.close(reason);
    await this.pool?.destroy().catch(() => undefined);
  }

  private pathFor(segments: readonly string[], query?: Record<string, string | number>): string {
    const path = `${this.prefix}/${segments.map(encodeSegment).join("/")}`;
    if (!query) return path;
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) search.set(k, String(v));
    return `${path}?${search.toString()}`;
  }

  /** Makes any thrown value an EdgeError, and makes sure no message can carry the token. */
  private scrub(caught: unknown, method: string, path: string, signal: AbortSignal): EdgeError {
    let err: EdgeError;
    if (caught instanceof EdgeError) err = caught;
    else if (signal.aborted)
      err = new EdgeError("aborted", { method, path }, { method, path, cause: caught });
    else
      err = new EdgeError(
        "network",
        { origin: this.origin, detail: String(caught) },
        { method, path },
      );
    if (err.code === "too-large" && !("max" in err.params)) {
      err = new EdgeError(
        "too-large",
        { method, path, max: this.maxAnswerBytes },
        { method, path, mayHaveBeenSent: true },
      );
    }
    // Answers were redacted as they were read; this catches a token (or a proxy's password) in
    // anything else.
    err.message = this.hide(err.message);
    // Node-RED puts the stack in msg.error: it holds the message as it was first built.
    if (err.stack) err.stack = this.hide(err.stack);
    (err as { errors: string[] }).errors = err.errors.map((e) => this.hide(e));
    for (const [key, value] of Object.entries(err.params))
      if (typeof value === "string") err.params[key] = this.hide(value);
    return err;
  }

  private device(env: Envelope<unknown>, method: string, id: string): Device {
    const body = env.body;
    if (!isObject(body) || !isObject(body.state)) {
      const path = `${this.prefix}/device/${encodeSegment(id)}`;
      const detail = body == null ? "no device in the answer" : "the device has no state object";
      throw new EdgeError(
        "malformed",
        { method, path, status: env.head.status, detail },
        { method, path },
      );
    }
    return body as Device;
  }

  private events(env: Envelope<unknown>, stream: string): DeviceEvent[] {
    if (!Array.isArray(env.body)) {
      const path = `${this.prefix}/event/${encodeSegment(stream)}`;
      const detail = "no list of events in the answer";
      throw new EdgeError(
        "malformed",
        { method: "GET", path, status: env.head.status, detail },
        { method: "GET", path },
      );
    }
    // An event is an object: a page of arrays (or numbers, or nulls) is not a list of events
    // with some left out, it is an answer we do not understand, and saying so beats an empty or
    // partial listing that looks complete.
    const odd = env.body.findIndex((e) => !isObject(e));
    if (odd >= 0) {
      const path = `${this.prefix}/event/${encodeSegment(stream)}`;
      const found = env.body[odd] as unknown;
      const kind = Array.isArray(found)
        ? "an array"
        : found === null
          ? "null"
          : `a ${typeof found}`;
      const detail = `event ${odd} of the page is ${kind}, not an object`;
      throw new EdgeError(
        "malformed",
        { method: "GET", path, status: env.head.status, detail },
        { method: "GET", path },
      );
    }
    return env.body as DeviceEvent[];
  }

  /**
   * The event a create answered. No body is the server's right (the spec does not show one; the
   * command then carries the local send time); an event without a usable id is refused: an await
   * node matches markers by that id, and with an empty one any marker completed the wait (issue
   * 19). An id sent as a whole number above 0 is the same id as text, as it is in a stream's path.
   * A blank id (" ") or a number that no integer id counter gives (-1, 0, 7.5) is no id either: a
   * space is a whole token of many a marker's text, and `-1` reads as "none" (issue 28).
   */
  private static event(env: Envelope<unknown>, path: string): DeviceEvent | null {
    const body = env.body;
    if (!isObject(body)) return null;
    if (typeof body.id === "string" && body.id.trim() !== "") return body as DeviceEvent;
    if (Number.isSafeInteger(body.id) && (body.id as number) > 0)
      return { ...body, id: String(body.id) } as DeviceEvent;
    const detail = body.id === undefined ? "no id" : `id ${JSON.stringify(body.id).slice(0, 40)}`;
    throw new EdgeError(
      "no-command-id",
      { method: "POST", path, detail },
      { method: "POST", path, mayHaveBeenSent: true },
    );
  }
}
