// nodes/lib/api/transport.ts's error map, beyond transport.spec.js: what each error tells a user
// (its parameters), which undici codes count as TLS, a request that never reached a connection,
// failures through a proxy, and where the text of an odd failure comes from. With retry.ts's
// rules for the proxy's own failures and the delays.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { mapTransportError } = lib("api/transport");
const { isRetryable, retryDelay, parseRetryAfter } = lib("api/retry");
const { EdgeError } = lib("api/errors");

const ORIGIN = "https://api.edge.test";
const attempt = (method = "GET") => ({
  method,
  path: "/v5.0/demo/device/d1",
  headers: {},
  timeoutMs: 700,
});
const undiciError = (code, extra = {}) => Object.assign(new Error(code), { code, ...extra });
const map = (err, o = {}) =>
  mapTransportError(
    err,
    attempt(o.method),
    o.origin ?? ORIGIN,
    o.timedOut ?? false,
    o.connected ?? true,
    o.proxy,
  );

describe("unit: api/transport, the error map", function () {
  it("should tell where a refused or timed-out request went", function () {
    const refused = map(undiciError("ECONNREFUSED"));
    assert.deepEqual(refused.params, {
      method: "GET",
      path: "/v5.0/demo/device/d1",
      origin: ORIGIN,
    });
    assert.equal(refused.method, "GET");
    assert.equal(refused.path, "/v5.0/demo/device/d1");
    const connect = map(undiciError("UND_ERR_CONNECT_TIMEOUT"), { method: "POST" });
    assert.equal(connect.code, "timeout");
    assert.equal(connect.params.timeout, 700);
    assert.equal(connect.params.origin, ORIGIN);
    assert.equal(map(undiciError("EAI_AGAIN")).params.host, "api.edge.test");
  });

  it("should call every TLS failure tls, naming its code, and only those", function () {
    for (const code of [
      "CERT_HAS_EXPIRED",
      "UNABLE_TO_GET_ISSUER_CERT",
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "SELF_SIGNED_CERT_IN_CHAIN",
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE",
      "HOSTNAME_MISMATCH",
    ]) {
      const err = map(undiciError(code));
      assert.equal(err.code, "tls", code);
      assert.deepEqual(err.params, { origin: ORIGIN, detail: code }, code);
      assert.equal(err.mayHaveBeenSent, false, code);
    }
    // Not at the start of the code: not a TLS failure.
    assert.equal(map(undiciError("X_CERT_HAS_EXPIRED")).code, "network");
    assert.equal(map(undiciError("XERR_SSL_BAD")).code, "network");
  });

  it("should say that an https:// server answered in plain http", function () {
    for (const code of [
      "ERR_SSL_WRONG_VERSION_NUMBER",
      "ERR_SSL_PACKET_LENGTH_TOO_LONG",
      "ERR_SSL_HTTP_REQUEST",
    ])
      assert.equal(map(undiciError(code)).params.context, "http", code);
    assert.equal(map(undiciError("ERR_SSL_WRONG_VERSION_NUMBER_X")).params.context, undefined);
  });

  it("should name the certificate's own failure inside a proxy's tunnel", function () {
    const wrapped = undiciError("UND_ERR_PRX_TLS", {
      cause: undiciError("ERR_TLS_CERT_ALTNAME_INVALID"),
    });
    const err = map(wrapped);
    assert.equal(err.code, "tls");
    assert.deepEqual(err.params, { origin: ORIGIN, detail: "ERR_TLS_CERT_ALTNAME_INVALID" });
    const bare = map(undiciError("UND_ERR_PRX_TLS"));
    assert.deepEqual(bare.params, { origin: ORIGIN, detail: "UND_ERR_PRX_TLS" });
  });

  it("should call nothing sent when the request never reached a connection", function () {
    for (const code of ["ECONNRESET", "UND_ERR_SOCKET", "EPIPE", "UND_ERR_HEADERS_TIMEOUT"]) {
      const err = map(undiciError(code), { method: "POST", connected: false });
      assert.equal(err.mayHaveBeenSent, false, code);
      assert.ok(!err.code.endsWith("-uncertain"), `${code}: ${err.code}`);
    }
    const err = map(undiciError("ECONNRESET"), { method: "POST" });
    assert.equal(err.code, "reset-uncertain");
    assert.equal(err.mayHaveBeenSent, true);
  });

  it("should take a headers or body timeout for a timeout, a command's as uncertain", function () {
    for (const code of ["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]) {
      const get = map(undiciError(code));
      assert.equal(get.code, "timeout", code);
      assert.equal(get.params.timeout, 700);
      assert.equal(get.mayHaveBeenSent, true);
      assert.equal(map(undiciError(code), { method: "POST" }).code, "timeout-uncertain", code);
    }
    for (const code of ["ECONNRESET", "UND_ERR_SOCKET", "EPIPE"]) {
      assert.equal(map(undiciError(code)).code, "reset", code);
      assert.equal(map(undiciError(code), { method: "PUT" }).code, "reset", code);
      assert.equal(map(undiciError(code), { method: "POST" }).code, "reset-uncertain", code);
    }
  });

  it("should take an AbortError by its name too, and keep what may have been sent", function () {
    const abort = Object.assign(new Error("stop"), { name: "AbortError" });
    const err = map(abort, { method: "POST" });
    assert.equal(err.code, "aborted");
    assert.equal(err.mayHaveBeenSent, true);
    assert.deepEqual(err.params, { method: "POST", path: "/v5.0/demo/device/d1", origin: ORIGIN });
    assert.equal(map(undiciError("UND_ERR_RES_EXCEEDED_MAX_SIZE")).mayHaveBeenSent, true);
  });

  it("should tell the text of an odd failure from its cause first, else its own, else itself", function () {
    const caused = Object.assign(new Error("outer"), { cause: new Error("inner words") });
    assert.equal(map(caused).params.detail, "inner words");
    assert.deepEqual(map(caused).params, { origin: ORIGIN, detail: "inner words" });
    assert.equal(map(new Error("plain words")).params.detail, "plain words");
    assert.equal(map(Object.assign(new Error(""), { code: "EODD" })).params.detail, "Error");
    assert.equal(map({ message: 42 }).params.detail, "[object Object]");
    assert.equal(map({ cause: { code: "ECONNREFUSED" } }).code, "refused", "the cause's code");
    assert.equal(map({ code: 7, cause: { code: "ECONNREFUSED" } }).code, "network");
    assert.equal(map(undefined).params.detail, "undefined");
  });

  it("should map the proxy's own failures through the proxy, and others as a direct request's", function () {
    const refused = map(undiciError("ECONNREFUSED"), { proxy: "proxy.lan:3128" });
    assert.equal(refused.code, "proxy-refused");
    assert.equal(refused.params.proxy, "proxy.lan:3128");
    assert.equal(
      map(undiciError("ENOTFOUND"), { proxy: "proxy.lan:3128" }).params.host,
      "proxy.lan",
    );
    const reset = map(undiciError("ECONNRESET"), { proxy: "proxy.lan:3128", method: "POST" });
    assert.equal(reset.code, "reset-uncertain");
    assert.equal(map(undiciError("ECONNREFUSED"), { proxy: "" }).code, "refused");
  });
});

describe("unit: api/retry, the proxy and the delays", function () {
  const failure = (code, details = {}) => new EdgeError(code, {}, details);

  it("should retry a proxy that refused, for a command too, and never one that asks for credentials", function () {
    for (const idempotent of [true, false]) {
      assert.equal(isRetryable(failure("proxy-refused"), idempotent), true);
      assert.equal(isRetryable(failure("proxy-auth", { status: 407 }), idempotent), false);
      assert.equal(isRetryable(failure("proxy-auth"), idempotent), false);
      assert.equal(isRetryable(failure("proxy-upstream"), idempotent), true, "a tunnel not opened");
    }
    // A gateway status the proxy gave to a forwarded request keeps the status rules.
    assert.equal(isRetryable(failure("proxy-upstream", { status: 502 }), true), true);
    assert.equal(isRetryable(failure("proxy-upstream", { status: 502 }), false), false);
    assert.equal(isRetryable(failure("proxy-upstream", { status: 400 }), true), false);
  });

  it("should retry a read on a timeout, a reset or a network failure, and nothing else without a status", function () {
    for (const code of ["timeout", "reset", "network"])
      assert.equal(isRetryable(failure(code), true), true, code);
    for (const code of ["aborted", "malformed", "tls", "too-large", "timeout-uncertain"])
      assert.equal(isRetryable(failure(code), true), false, code);
  });

  it("should wait a full-jitter backoff, doubling to its ceiling, or what the server asked", function () {
    const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000 };
    const err = failure("reset");
    assert.deepEqual(
      [0, 1, 2, 3, 4, 10].map((a) => retryDelay(policy, a, err, () => 0)),
      [50, 100, 200, 400, 500, 500],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((a) => retryDelay(policy, a, err, () => 0.999999)),
      [100, 200, 400, 800, 1000],
    );
    assert.equal(
      retryDelay(policy, 1, err, () => 0.5),
      150,
    );
    assert.equal(
      retryDelay(policy, 2, failure("http", { retryAfterMs: 0 }), () => 0.5),
      0,
    );
    assert.equal(retryDelay(policy, 2, failure("http", { retryAfterMs: 7000 })), 7000);
  });

  it("should read Retry-After in seconds or as a date, never past 10 minutes nor before now", function () {
    const now = Date.UTC(2026, 0, 1);
    assert.equal(parseRetryAfter("3", now), 3000);
    assert.equal(parseRetryAfter(" 0 ", now), 0);
    assert.equal(parseRetryAfter(["2", "9"], now), 2000);
    assert.equal(parseRetryAfter("99999999", now), 600_000);
    assert.equal(parseRetryAfter(new Date(now + 5000).toUTCString(), now), 5000);
    assert.equal(parseRetryAfter(new Date(now - 5000).toUTCString(), now), 0);
    assert.equal(parseRetryAfter(new Date(now + 3600_000).toUTCString(), now), 600_000);
    for (const v of [undefined, "", [], "soon"])
      assert.equal(parseRetryAfter(v, now), undefined, String(v));
  });
});
