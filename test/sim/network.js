// The simulated network of issue 36: an undici Dispatcher that carries each request to the fuzz
// server's API in this process (test/fuzz/server.js, createFuzzApi) on the world's virtual clock,
// and tells the client what happened through the very handler calls undici makes
// (lib/core/request.js: onConnect, onHeaders, onData, onComplete, onError). The client of the
// nodes (nodes/lib/api/client.ts, transport.ts) gets it through transport.ts's test-only pool
// factory: its timeouts, retry rules and error map run on it unchanged.
//
// What undici does, and so what this does:
// - a connection refused, a name that does not resolve, a connection reset while it is being
//   made: onError with the socket's error and no onConnect (nothing was written);
// - onConnect(abort) when the request is about to be written; from then on the request reaches
//   the server, whatever the client does next (loopback bytes already written arrive);
// - the server's answer one network delay later: onHeaders, onData, onComplete; a late answer
//   later by its delay; a socket closed by the server (before or after it acted, or in the
//   middle of the body) is onError(SocketError "other side closed", UND_ERR_SOCKET);
// - a client's abort after onConnect (its timeout, its signal) drops what is still to come and
//   ends with onError(the abort's reason), as undici's destroyed socket does;
// - at most `connections` requests on the wire; the others wait in the pool's queue.
"use strict";
const { errors } = require("undici");
const UnwrapHandler = require("undici/lib/handler/unwrap-handler");

/** The kinds of transport fault that happen before the server sees anything (faults queue). */
const BEFORE_SERVER = new Set(["refused", "dns", "early"]);
/** A proxy's own answers, written in place of the API's (a forwarding proxy, http origins). */
const PROXY_ANSWERS = {
  "proxy-407": [
    407,
    { "proxy-authenticate": 'Basic realm="proxy"' },
    "Proxy Authentication Required",
  ],
  "proxy-502": [502, { "content-type": "text/html" }, "<html><body>502 Bad Gateway</body></html>"],
  "proxy-504": [
    504,
    { "content-type": "text/html" },
    "<html><body>504 Gateway Timeout</body></html>",
  ],
};

/** A Node socket error, as net and dns make them. */
function socketError(code, syscall, message) {
  return Object.assign(new Error(message), { code, errno: -1, syscall });
}

/** The error the client sees for a transport fault before the request was written. */
function beforeError(kind, host) {
  if (kind === "refused") return socketError("ECONNREFUSED", "connect", `connect ECONNREFUSED`);
  if (kind === "dns")
    return socketError("ENOTFOUND", "getaddrinfo", `getaddrinfo ENOTFOUND ${host}`);
  return socketError("ECONNRESET", "read", "read ECONNRESET");
}

/** Raw header pairs as undici hands them to onHeaders: names and values as Buffers. */
function rawHeadersOf(headers) {
  const raw = [];
  for (const [name, value] of Object.entries(headers ?? {}))
    raw.push(Buffer.from(name), Buffer.from(String(value)));
  return raw;
}

/**
 * The network between the nodes and one fuzz API. `random()` (the world's seeded source, 0..1)
 * draws each leg's delay, 0 to `maxDelayMs` whole ms; `log` records every transport event for the
 * determinism proof and for a replay's reading.
 */
class SimNetwork {
  constructor(api, { random, maxDelayMs = 2 }) {
    this.api = api;
    this.random = random;
    this.maxDelayMs = maxDelayMs;
    this.log = [];
    /** Requests dispatched: each is named by its number in the log. */
    this.requests = 0;
    this.dispatchers = new Set();
  }

  /** A new run: its log and its request numbers start again. */
  restart() {
    this.log = [];
    this.requests = 0;
  }

  delay() {
    return Math.floor(this.random() * (this.maxDelayMs + 1));
  }

  /** The pool factory for transport.ts: one dispatcher per account client. */
  factory() {
    return (options) => {
      const d = new SimDispatcher(this, options);
      this.dispatchers.add(d);
      return d;
    };
  }

  note(what) {
    this.log.push(`${Date.now()} ${what}`);
  }
}

class SimDispatcher extends require("undici").Dispatcher {
  constructor(net, options) {
    super();
    this.net = net;
    this.options = options;
    this.host = new URL(options.origin).hostname;
    this.active = new Set();
    this.queue = [];
    this.destroyed = false;
  }

  /** undici's entry point: takes the request and returns at once. */
  dispatch(opts, handler) {
    if (this.destroyed) {
      queueMicrotask(() => handler.onError(new errors.ClientDestroyedError()));
      return false;
    }
    // A handler of undici's newer API (onRequestStart...) is called through undici's own wrapper.
    const r = {
      n: ++this.net.requests,
      opts,
      handler: UnwrapHandler.unwrap(handler),
      timers: new Set(),
      connected: false,
      ended: false,
    };
    this.queue.push(r);
    this.pump();
    return true;
  }

  /** Puts queued requests on the wire while fewer than `connections` are. */
  pump() {
    const max = Math.max(1, this.options.connections ?? 1);
    while (this.active.size < max && this.queue.length > 0) {
      const r = this.queue.shift();
      this.active.add(r);
      this.after(r, this.net.delay(), () => this.connect(r));
    }
  }

  /** Runs `fn` for request `r` after `ms` virtual ms, unless the request ended meanwhile. */
  after(r, ms, fn) {
    const t = setTimeout(() => {
      r.timers.delete(t);
      if (!r.ended) fn();
    }, ms);
    r.timers.add(t);
  }

  /** Ends `r`: nothing more of it reaches the client; its slot goes to the next in the queue. */
  end(r) {
    r.ended = true;
    for (const t of r.timers) clearTimeout(t);
    r.timers.clear();
    this.active.delete(r);
    this.pump();
  }

  fail(r, err) {
    this.net.note(`#${r.n} ${r.opts.method} error ${err.code ?? err.name}`);
    this.end(r);
    r.handler.onError(err);
  }

  connect(r) {
    const { method, path } = r.opts;
    const before = this.net.api.takeTransportFault?.(method, path);
    const proxy = this.options.proxy;
    if (before && BEFORE_SERVER.has(before.kind)) {
      this.net.note(`#${r.n} ${method} ${path} ${before.kind}`);
      return this.fail(r, beforeError(before.kind, proxy ? this.proxyHost() : this.host));
    }
    // Faults of a proxy the account has none of cannot happen: it meets none of them.
    r.proxyFault = proxy && before?.kind.startsWith("proxy") ? before.kind : undefined;
    if (proxy && before?.kind === "proxy-refused") {
      this.net.note(`#${r.n} ${method} ${path} proxy refused`);
      return this.fail(r, beforeError("refused", this.proxyHost()));
    }
    if (proxy && before?.kind === "tunnel-403" && this.options.origin.startsWith("https:")) {
      // undici's ProxyAgent opens the tunnel before the request: its only report is this error.
      this.net.note(`#${r.n} ${method} ${path} CONNECT 403`);
      const err = new errors.RequestAbortedError(
        "Proxy response (403) !== 200 when HTTP Tunneling",
      );
      return this.fail(r, err);
    }
    r.connected = true;
    // undici's abort function: the client calls it on its timeout or signal, or at once when the
    // attempt ended before undici got to it (transport.ts, Attempted.onConnect).
    const abort = (reason) => {
      if (r.ended) return;
      this.net.note(`#${r.n} ${method} aborted${r.sent ? " after it was written" : ""}`);
      this.end(r);
      // undici destroys the socket, and its close reports the reason: a turn later.
      queueMicrotask(() => r.handler.onError(reason ?? new errors.RequestAbortedError()));
    };
    r.handler.onConnect(abort, {});
    if (r.ended) return;
    r.sent = true;
    // Written: the server reads it one delay later, even if the client gives up meanwhile.
    // A forwarding proxy's own answer, before (407, 502: the API never saw it) or after (504: it
    // forwarded the request, the API ran it) the API.
    if (r.proxyFault === "proxy-407" || r.proxyFault === "proxy-502") {
      const [status, headers, body] = PROXY_ANSWERS[r.proxyFault];
      this.net.note(`#${r.n} ${method} ${path} proxy ${status}`);
      const plan = { kind: "answer", status, headers, body };
      return this.after(r, this.net.delay() * 2, () => this.answer(r, plan));
    }
    // Not one of r's timers: an abort after the write does not unsend it.
    setTimeout(() => this.serve(r), this.net.delay());
  }

  /** `host:port` of the account's proxy. */
  proxyHost() {
    return new URL(this.options.proxy.url).hostname;
  }

  serve(r) {
    const { method, path, headers, body } = r.opts;
    const plan = this.net.api.respond({
      method,
      url: path,
      headers: lower(headers),
      text: body === undefined || body === null ? "" : String(body),
    });
    this.net.note(
      `#${r.n} ${method} ${path} -> ${plan.kind}${plan.status ? ` ${plan.status}` : ""}${plan.delayMs ? ` +${plan.delayMs}ms` : ""}`,
    );
    if (r.ended) return;
    const back = this.net.delay();
    if (r.proxyFault === "proxy-504") {
      const [status, headers, body] = PROXY_ANSWERS["proxy-504"];
      const gateway = { kind: "answer", status, headers, body };
      return this.after(r, back, () => this.answer(r, gateway));
    }
    if (plan.kind === "hang") return;
    if (plan.kind !== "answer" && plan.kind !== "cut") {
      // "reset" before acting, "lost" after: the server closed the connection.
      return this.after(r, back, () => this.fail(r, new errors.SocketError("other side closed")));
    }
    const answerAt = back + (plan.delayMs > 0 ? plan.delayMs : 0);
    const write = () => this.answer(r, plan);
    if (plan.delayMs > 0) {
      // A late answer goes with the server's run (its reset forgets it), as the real server's.
      this.net.api.later(answerAt, () => !r.ended && write());
    } else this.after(r, answerAt, write);
  }

  answer(r, plan) {
    const bytes = Buffer.from(plan.body ?? "", "utf8");
    const headers = { ...plan.headers, "content-length": String(bytes.length) };
    r.handler.onHeaders(plan.status, rawHeadersOf(headers), () => {}, "");
    if (r.ended) return;
    if (bytes.length > (this.options.maxResponseBytes ?? Infinity)) {
      return this.fail(r, new errors.ResponseExceededMaxSizeError());
    }
    if (plan.kind === "cut") {
      // Half the body, then the server's socket closes: undici says "other side closed".
      const half = bytes.subarray(0, Math.floor(bytes.length / 2));
      if (half.length > 0) r.handler.onData(half);
      if (r.ended) return;
      return this.after(r, this.net.delay(), () =>
        this.fail(r, new errors.SocketError("other side closed")),
      );
    }
    if (bytes.length > 0) r.handler.onData(bytes);
    if (r.ended) return;
    this.end(r);
    r.handler.onComplete([]);
  }

  /** undici's destroy(): what is still in flight or queued ends with ClientDestroyedError. */
  destroy(err, cb) {
    if (typeof err === "function") [cb, err] = [err, undefined];
    this.destroyed = true;
    const left = [...this.active, ...this.queue];
    this.queue = [];
    for (const r of left) {
      if (r.ended) continue;
      this.end(r);
      r.handler.onError(err ?? new errors.ClientDestroyedError());
    }
    this.net.dispatchers.delete(this);
    if (cb) return void queueMicrotask(() => cb(null));
    return Promise.resolve();
  }

  close(cb) {
    return this.destroy(undefined, cb);
  }
}

function lower(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

module.exports = { SimNetwork, BEFORE_SERVER };
