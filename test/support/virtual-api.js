// The API client on virtual time, for the unit specs whose figures are durations (issue 36): a
// fake clock (@sinonjs/fake-timers) and an undici dispatcher that answers in process, through the
// handler calls undici makes. The real client, its retries, budget and rate limiter run unchanged;
// every gap between two requests is then exactly what the code chose, whatever the load.
// `const v = useVirtualApi()` in a describe installs the clock before each test and removes it
// after; v.client(answer) is an EdgeClient whose n-th request gets answer(request, n).
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("./lib");

const { EdgeClient } = lib("api/client");

/** The API's envelope around `body`, or its refusal for a status other than 200. */
function envelope(status, body) {
  const ok = status === 200;
  return ok
    ? { head: { ok, status, messages: [], errors: [] }, body }
    : { head: { ok, status, messages: [], errors: ["refused"] } };
}

/**
 * A dispatcher whose answer to each request is `answer(request, n)`: { status, headers, body,
 * delayMs } (body: the envelope's, or `raw` for the whole answer). `requests` holds each request
 * with its virtual time, `at`.
 */
function dispatcher(answer) {
  const requests = [];
  return {
    requests,
    dispatch(opts, handler) {
      const url = new URL(opts.path, "http://api.test");
      const request = { at: Date.now(), method: opts.method, path: opts.path, url };
      requests.push(request);
      const a = answer(request, requests.length - 1);
      let aborted = false;
      let timer;
      handler.onConnect((err) => {
        aborted = true;
        clearTimeout(timer);
        handler.onError(err);
      });
      const respond = () => {
        if (aborted) return;
        const raw = [];
        for (const [k, v] of Object.entries(a.headers ?? {}))
          raw.push(Buffer.from(k), Buffer.from(String(v)));
        const status = a.status ?? 200;
        handler.onHeaders(status, raw, () => undefined, "");
        handler.onData(Buffer.from(JSON.stringify(a.raw ?? envelope(status, a.body))));
        handler.onComplete([]);
      };
      if (a.delayMs) timer = setTimeout(respond, a.delayMs);
      else queueMicrotask(respond);
      return true;
    },
    destroy: async () => undefined,
  };
}

function useVirtualApi() {
  const v = { clock: undefined, clients: [] };

  beforeEach(function () {
    // setImmediate and nextTick stay real: the client's undici preload uses setImmediate, and no
    // figure here waits on either.
    v.clock = FakeTimers.install({
      now: 1_700_000_000_000,
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
  });

  afterEach(async function () {
    v.clock.uninstall();
    await Promise.all(v.clients.splice(0).map((c) => c.close()));
  });

  /** A client of the account "demo" whose requests `answer` answers; its `requests` are logged. */
  v.client = (answer, settings = {}) => {
    const client = new EdgeClient({
      baseUrl: "http://api.test",
      company: "demo",
      user: "u",
      token: "tok-of-test",
      timeoutMs: 2000,
      rateLimit: { perSecond: 0 },
      ...settings,
    });
    const pool = dispatcher(answer);
    // The client makes its pool at the first request; this one is there before.
    client.pool = pool;
    v.clients.push(client);
    return { client, requests: pool.requests };
  };

  /**
   * Runs the virtual clock, timer by timer, until `promise` settles: { value } or { error }, and
   * the virtual `ms` it took.
   */
  v.settle = async (promise, limitMs = 100_000) => {
    const started = Date.now();
    let outcome;
    promise.then(
      (value) => (outcome = { value, ms: Date.now() - started }),
      (error) => (outcome = { error, ms: Date.now() - started }),
    );
    await v.until(() => outcome !== undefined, limitMs);
    return outcome;
  };

  /** Runs the virtual clock, timer by timer, until `condition()` holds. */
  v.until = async (condition, limitMs = 100_000) => {
    const started = Date.now();
    await v.clock.tickAsync(0);
    while (!condition()) {
      assert.ok(v.clock.countTimers() > 0, "nothing left to wait for, and the condition is false");
      assert.ok(Date.now() - started < limitMs, `still false after ${limitMs} virtual ms`);
      await v.clock.nextAsync();
    }
  };

  return v;
}

/** Milliseconds between consecutive requests. */
const gaps = (requests) => requests.slice(1).map((r, i) => r.at - requests[i].at);

module.exports = { useVirtualApi, gaps, envelope };
