// The API client's waits on virtual time (issue 36): backoff between retries, Retry-After, the time
// budget and the rate limit's queue. The real client runs unchanged; only its dispatcher is one
// written here, which answers in process, and its clock is @sinonjs/fake-timers. Every gap and
// every "at once" is then exact, whatever else the machine is doing. These figures were bounds on
// the simulator's wall clock in test/reliability/faults.spec.js, which a loaded machine broke
// ("gaps grow: 689, 317, 557"); that spec still sees the same retries over real sockets.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { EdgeClient } = lib("api/client");

const ok = {
  status: 200,
  body: {
    head: { ok: true, status: 200, messages: [], errors: [] },
    body: { id: "d1", name: "lcd-board", state: {} },
  },
};
const busy = (status, retryAfter) => ({
  status,
  headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
  body: { head: { ok: false, status, messages: [], errors: ["busy"] } },
});

/**
 * An undici dispatcher that answers `script[n]` to the n-th request, at once or `delayMs` later
 * (virtual), through the handler calls undici makes; `tries` holds each request's virtual time.
 */
function scripted(script) {
  const tries = [];
  return {
    tries,
    dispatch(opts, handler) {
      const n = tries.length;
      tries.push({ at: Date.now(), method: opts.method, path: opts.path });
      const answer = script[Math.min(n, script.length - 1)];
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
        for (const [k, v] of Object.entries(answer.headers ?? {}))
          raw.push(Buffer.from(k), Buffer.from(String(v)));
        handler.onHeaders(answer.status, raw, () => undefined, "");
        handler.onData(Buffer.from(JSON.stringify(answer.body)));
        handler.onComplete([]);
      };
      if (answer.delayMs) timer = setTimeout(respond, answer.delayMs);
      else queueMicrotask(respond);
      return true;
    },
    destroy: async () => undefined,
  };
}

describe("unit: api/client on virtual time", function () {
  let clock;
  const clients = [];

  beforeEach(function () {
    // setImmediate stays real: the client's undici preload uses it, and nothing here waits on it.
    clock = FakeTimers.install({
      now: 1_700_000_000_000,
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
  });

  afterEach(async function () {
    clock.uninstall();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  /** A client whose requests go to `script`'s dispatcher. */
  function client(script, settings = {}) {
    const c = new EdgeClient({
      baseUrl: "http://api.test",
      company: "demo",
      user: "u",
      token: "tok-of-test",
      timeoutMs: 2000,
      rateLimit: { perSecond: 0 },
      ...settings,
    });
    const pool = scripted(script);
    c.pool = pool;
    clients.push(c);
    return { c, tries: pool.tries };
  }

  /** Runs `promise` to its end on the virtual clock: its value, or what it threw, and when. */
  async function settle(promise) {
    const started = Date.now();
    let outcome;
    promise.then(
      (value) => (outcome = { value, ms: Date.now() - started }),
      (error) => (outcome = { error, ms: Date.now() - started }),
    );
    for (let i = 0; i < 10_000 && !outcome; i++) await clock.tickAsync(10);
    assert.ok(outcome, "the call never ended");
    return outcome;
  }

  const gaps = (tries) => tries.slice(1).map((t, i) => t.at - tries[i].at);

  describe("backoff between retries", function () {
    it("retries a read answered 503 after gaps of half to all of 200, 400 and 800 ms, which grow", async function () {
      for (let run = 0; run < 20; run++) {
        const { c, tries } = client([busy(503), busy(503), busy(503), ok]);
        const { value } = await settle(c.getDevice("lcd-board"));
        assert.equal(value.name, "lcd-board");
        assert.equal(tries.length, 4);
        const [g1, g2, g3] = gaps(tries);
        assert.ok(g1 >= 100 && g1 <= 200, `first gap ${g1}`);
        assert.ok(g2 >= 200 && g2 <= 400, `second gap ${g2}`);
        assert.ok(g3 >= 400 && g3 <= 800, `third gap ${g3}`);
        assert.ok(g3 > g1, `gaps grow: ${g1}, ${g2}, ${g3}`);
      }
    });

    it("waits exactly half the ceiling for the lowest random draw and all of it for the highest", async function () {
      const random = Math.random;
      try {
        for (const [draw, want] of [
          [0, [100, 200, 400]],
          [0.999999, [200, 400, 800]],
        ]) {
          Math.random = () => draw;
          const { c, tries } = client([busy(503), busy(503), busy(503), ok]);
          await settle(c.getDevice("lcd-board"));
          assert.deepEqual(gaps(tries), want);
        }
      } finally {
        Math.random = random;
      }
    });

    it("retries a read whose attempt timed out after the account's timeout, after a backoff", async function () {
      const { c, tries } = client([{ ...ok, delayMs: 1500 }, ok], { timeoutMs: 300 });
      await settle(c.getDevice("lcd-board"));
      assert.equal(tries.length, 2);
      const [gap] = gaps(tries);
      assert.ok(gap >= 300 + 100 && gap <= 300 + 200, `gap ${gap}`);
    });
  });

  describe("Retry-After", function () {
    it("waits exactly the seconds a 429 asks for", async function () {
      const { c, tries } = client([busy(429, "1"), ok]);
      await settle(c.getDevice("lcd-board"));
      assert.deepEqual(gaps(tries), [1000]);
    });

    it("waits until the HTTP date a 503 gives", async function () {
      const at = Math.ceil((Date.now() + 1500) / 1000) * 1000;
      const { c, tries } = client([busy(503, new Date(at).toUTCString()), ok]);
      await settle(c.getDevice("lcd-board"));
      assert.equal(tries.length, 2);
      assert.equal(tries[1].at, at);
    });

    it("fails at once when Retry-After asks for more than the request's time budget", async function () {
      const { c, tries } = client([busy(429, "30"), ok], {
        timeoutMs: 1000,
        retry: { retries: 3 },
      });
      const { error, ms } = await settle(c.getDevice("lcd-board"));
      assert.equal(error.code, "rate-limited");
      assert.equal(error.retryAfterMs, 30_000);
      assert.equal(ms, 0);
      assert.equal(tries.length, 1);
    });

    it("stops retrying when the next try would pass the budget of timeout x (retries + 1)", async function () {
      // Budget 4 x 400 ms = 1.6 s; each retry waits 1 s: tries at 0 and 1 s only.
      const { c, tries } = client([busy(503, "1")], { timeoutMs: 400, retry: { retries: 3 } });
      const { error, ms } = await settle(c.getDevice("lcd-board"));
      assert.equal(error.status, 503);
      assert.deepEqual(gaps(tries), [1000]);
      assert.equal(ms, 1000);
    });
  });

  describe("the time budget", function () {
    it("ends a request still waiting for the rate limit at its budget", async function () {
      // One request a second, budget 1 x 600 ms: the second read would wait about a second.
      const { c, tries } = client([ok], {
        timeoutMs: 600,
        retry: { retries: 0 },
        rateLimit: { perSecond: 1 },
      });
      const first = c.getDevice("lcd-board").catch((err) => err);
      const { error, ms } = await settle(c.getDevice("lcd-board"));
      await first;
      assert.equal(error.code, "deadline");
      assert.match(error.message, /did not finish within its time budget of 600 ms/);
      assert.equal(ms, 600);
      assert.equal(tries.length, 1);
    });

    it("cuts the last attempt to what is left of the budget after a backoff", async function () {
      // Budget 2 x 1500 ms; the retry waits 2 s, so the second attempt has 1 s, not 1.5 s.
      const { c, tries } = client([busy(503, "2"), { ...ok, delayMs: 5000 }], {
        timeoutMs: 1500,
        retry: { retries: 1 },
      });
      const { error, ms } = await settle(c.getDevice("lcd-board"));
      assert.equal(error.code, "deadline");
      assert.match(error.message, /time budget of 3000 ms/);
      assert.deepEqual(gaps(tries), [2000]);
      assert.equal(ms, 3000);
    });
  });
});
