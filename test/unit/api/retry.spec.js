// nodes/lib/api/retry.ts: which failures are tried again, how long to wait, and Retry-After.
// The random source and the clock are injected, so every figure here is exact.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const {
  isRetryable,
  notProcessed,
  fromBetween,
  retryDelay,
  parseRetryAfter,
  DEFAULT_RETRY,
  MAX_RETRY_AFTER_MS,
} = lib("api/retry");
const { EdgeError } = lib("api/errors");

const failure = (code, details = {}) => new EdgeError(code, {}, details);

describe("unit: api/retry", function () {
  describe("isRetryable", function () {
    it("should retry a read or a replace on every transient failure", function () {
      for (const err of [
        failure("refused"),
        failure("dns"),
        failure("timeout", { mayHaveBeenSent: true }),
        failure("reset", { mayHaveBeenSent: true }),
        failure("network", { mayHaveBeenSent: true }),
        ...[429, 502, 503, 504].map((status) => failure("http", { status })),
      ])
        assert.equal(isRetryable(err, true), true, `${err.code} ${err.status ?? ""}`);
    });

    it("should not retry a read on an answer that will not change", function () {
      for (const err of [
        ...[400, 401, 403, 404, 500].map((status) => failure("http", { status })),
        failure("malformed"),
        failure("aborted"),
        failure("tls"),
      ])
        assert.equal(isRetryable(err, true), false, `${err.code} ${err.status ?? ""}`);
    });

    it("should retry a command only when it certainly did not reach the server", function () {
      assert.equal(isRetryable(failure("refused"), false), true);
      assert.equal(isRetryable(failure("dns"), false), true);
      // The API's own 429 or 503 (its envelope, so an apiStatus): it did not act.
      assert.equal(
        isRetryable(failure("rate-limited", { status: 429, apiStatus: 429 }), false),
        true,
      );
      assert.equal(isRetryable(failure("http", { status: 503, apiStatus: 503 }), false), true);
      // A connect timeout: nothing was sent.
      assert.equal(isRetryable(failure("timeout"), false), true);
      for (const err of [
        // A 429 or 503 without the envelope is a proxy's or a gateway's, which may have forwarded
        // the command first (issue 35, item 4). This spec retried them until then.
        failure("rate-limited", { status: 429, mayHaveBeenSent: true }),
        failure("http", { status: 503, mayHaveBeenSent: true }),
        failure("gateway-uncertain", { status: 503, mayHaveBeenSent: true }),
        failure("http", { status: 502 }),
        failure("http", { status: 504 }),
        failure("timeout", { mayHaveBeenSent: true }),
        failure("timeout-uncertain", { mayHaveBeenSent: true }),
        failure("reset-uncertain", { mayHaveBeenSent: true }),
        failure("network", { mayHaveBeenSent: true }),
      ])
        assert.equal(isRetryable(err, false), false, `${err.code} ${err.status ?? ""}`);
    });
  });

  describe("notProcessed and fromBetween", function () {
    it("should take a 429 or 503 for the API's word only with its envelope (an apiStatus)", function () {
      for (const status of [429, 503]) {
        const api = failure("http", { status, apiStatus: status });
        const between = failure("http", { status });
        assert.equal(notProcessed(api), true, `${status} of the API`);
        assert.equal(fromBetween(api), false, `${status} of the API`);
        assert.equal(notProcessed(between), false, `${status} without an envelope`);
        assert.equal(fromBetween(between), true, `${status} without an envelope`);
      }
      for (const status of [200, 404, 502, 504]) {
        assert.equal(notProcessed(failure("http", { status, apiStatus: status })), false);
        assert.equal(fromBetween(failure("http", { status })), false);
      }
      assert.equal(notProcessed(failure("reset")), false);
      assert.equal(fromBetween(failure("reset")), false);
    });
  });

  describe("retryDelay", function () {
    const err = failure("http", { status: 503 });

    it("should wait between half and all of base x 2^attempt, as the random source says", function () {
      assert.equal(
        retryDelay(DEFAULT_RETRY, 0, err, () => 0),
        100,
      );
      assert.equal(
        retryDelay(DEFAULT_RETRY, 0, err, () => 1),
        200,
      );
      assert.equal(
        retryDelay(DEFAULT_RETRY, 1, err, () => 0.5),
        300,
      );
      assert.equal(
        retryDelay(DEFAULT_RETRY, 3, err, () => 0),
        800,
      );
      assert.equal(
        retryDelay(DEFAULT_RETRY, 3, err, () => 1),
        1600,
      );
    });

    it("should never wait more than the policy's maximum", function () {
      assert.equal(
        retryDelay(DEFAULT_RETRY, 20, err, () => 1),
        DEFAULT_RETRY.maxDelayMs,
      );
      assert.equal(
        retryDelay(DEFAULT_RETRY, 20, err, () => 0),
        DEFAULT_RETRY.maxDelayMs / 2,
      );
      const small = { retries: 5, baseDelayMs: 10, maxDelayMs: 25 };
      assert.equal(
        retryDelay(small, 2, err, () => 1),
        25,
      );
    });

    it("should wait exactly what Retry-After asked, whatever the random source", function () {
      const asked = failure("http", { status: 429, retryAfterMs: 1234 });
      assert.equal(
        retryDelay(DEFAULT_RETRY, 0, asked, () => 0),
        1234,
      );
      assert.equal(
        retryDelay(DEFAULT_RETRY, 5, asked, () => 1),
        1234,
      );
    });
  });

  describe("parseRetryAfter", function () {
    const now = Date.parse("2026-01-01T00:00:00Z");

    it("should read delta-seconds", function () {
      assert.equal(parseRetryAfter("3", now), 3000);
      assert.equal(parseRetryAfter(" 7 ", now), 7000);
      assert.equal(parseRetryAfter("0", now), 0);
      assert.equal(parseRetryAfter(["2", "9"], now), 2000);
    });

    it("should read an HTTP date against the given clock, and a past date as no wait", function () {
      assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now), 5000);
      assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
    });

    it("should cap the wait at 10 minutes, however long the server asks for", function () {
      assert.equal(MAX_RETRY_AFTER_MS, 600_000);
      assert.equal(parseRetryAfter("600", now), 600_000);
      for (const value of [
        "601",
        "999999",
        "99999999",
        "9".repeat(400),
        "Fri, 01 Jan 2027 00:00:00 GMT",
      ])
        assert.equal(parseRetryAfter(value, now), MAX_RETRY_AFTER_MS, value);
    });

    it("should ignore a missing or unreadable value", function () {
      for (const value of [undefined, "", "soon", "in a minute", []])
        assert.equal(parseRetryAfter(value, now), undefined, JSON.stringify(value));
    });
  });
});
