// The API client's waits on virtual time (issue 36): backoff between retries, Retry-After, the time
// budget and the rate limit's queue. The real client runs unchanged; only its dispatcher answers
// in process, and its clock is @sinonjs/fake-timers (test/support/virtual-api.js). Every gap and
// every "at once" is then exact, whatever else the machine is doing. These figures were bounds on
// the simulator's wall clock in test/reliability/faults.spec.js, which a loaded machine broke
// ("gaps grow: 689, 317, 557"); that spec still sees the same retries over real sockets.
"use strict";
const assert = require("node:assert/strict");
const { useVirtualApi, gaps } = require("../../support/virtual-api");

const device = { status: 200, body: { id: "d1", name: "lcd-board", state: {} } };
const busy = (status, retryAfter) => ({
  status,
  headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
});
/** Answers the n-th request with script[n], the last one from then on. */
const script =
  (...answers) =>
  (_, n) =>
    answers[Math.min(n, answers.length - 1)];

describe("unit: api/client on virtual time", function () {
  const v = useVirtualApi();

  describe("backoff between retries", function () {
    it("retries a read answered 503 after gaps of half to all of 200, 400 and 800 ms, which grow", async function () {
      for (let run = 0; run < 20; run++) {
        const { client, requests } = v.client(script(busy(503), busy(503), busy(503), device));
        const { value } = await v.settle(client.getDevice("lcd-board"));
        assert.equal(value.name, "lcd-board");
        assert.equal(requests.length, 4);
        const [g1, g2, g3] = gaps(requests);
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
          const { client, requests } = v.client(script(busy(503), busy(503), busy(503), device));
          await v.settle(client.getDevice("lcd-board"));
          assert.deepEqual(gaps(requests), want);
        }
      } finally {
        Math.random = random;
      }
    });

    it("retries a read whose attempt timed out after the account's timeout, after a backoff", async function () {
      const { client, requests } = v.client(script({ ...device, delayMs: 1500 }, device), {
        timeoutMs: 300,
      });
      const { value } = await v.settle(client.getDevice("lcd-board"));
      assert.equal(value.name, "lcd-board");
      assert.equal(requests.length, 2);
      const [gap] = gaps(requests);
      assert.ok(gap >= 300 + 100 && gap <= 300 + 200, `gap ${gap}`);
    });
  });

  describe("Retry-After", function () {
    it("waits exactly the seconds a 429 asks for", async function () {
      const { client, requests } = v.client(script(busy(429, "1"), device));
      await v.settle(client.getDevice("lcd-board"));
      assert.deepEqual(gaps(requests), [1000]);
    });

    it("waits until the HTTP date a 503 gives", async function () {
      const at = Math.ceil((Date.now() + 1500) / 1000) * 1000;
      const { client, requests } = v.client(script(busy(503, new Date(at).toUTCString()), device));
      await v.settle(client.getDevice("lcd-board"));
      assert.equal(requests.length, 2);
      assert.equal(requests[1].at, at);
    });

    it("fails at once when Retry-After asks for more than the request's time budget", async function () {
      const { client, requests } = v.client(script(busy(429, "30"), device), {
        timeoutMs: 1000,
        retry: { retries: 3 },
      });
      const { error, ms } = await v.settle(client.getDevice("lcd-board"));
      assert.equal(error.code, "rate-limited");
      assert.equal(error.retryAfterMs, 30_000);
      assert.equal(ms, 0);
      assert.equal(requests.length, 1);
    });

    it("stops retrying when the next try would pass the budget of timeout x (retries + 1)", async function () {
      // Budget 4 x 400 ms = 1.6 s; each retry waits 1 s: tries at 0 and 1 s only.
      const { client, requests } = v.client(script(busy(503, "1")), {
        timeoutMs: 400,
        retry: { retries: 3 },
      });
      const { error, ms } = await v.settle(client.getDevice("lcd-board"));
      assert.equal(error.status, 503);
      assert.deepEqual(gaps(requests), [1000]);
      assert.equal(ms, 1000);
    });
  });

  describe("the rate limit", function () {
    it("starts at most N requests in any second: 12 at 5 a second in three bursts, 1 s apart", async function () {
      const { client, requests } = v.client(script(device), {
        rateLimit: { perSecond: 5, concurrent: 8 },
      });
      const reads = Array.from({ length: 12 }, () => client.getDevice("lcd-board"));
      await v.settle(Promise.all(reads));
      const at = requests.map((r) => r.at - requests[0].at);
      assert.deepEqual(at, [0, 0, 0, 0, 0, 1000, 1000, 1000, 1000, 1000, 2000, 2000]);
    });
  });

  describe("the time budget", function () {
    it("ends a request still waiting for the rate limit at its budget", async function () {
      // One request a second, budget 1 x 600 ms: the second read would wait about a second.
      const { client, requests } = v.client(script(device), {
        timeoutMs: 600,
        retry: { retries: 0 },
        rateLimit: { perSecond: 1 },
      });
      const first = client.getDevice("lcd-board");
      const { error, ms } = await v.settle(client.getDevice("lcd-board"));
      assert.equal((await first).name, "lcd-board");
      assert.equal(error.code, "deadline");
      assert.match(error.message, /did not finish within its time budget of 600 ms/);
      assert.equal(ms, 600);
      assert.equal(requests.length, 1);
    });

    it("cuts the last attempt to what is left of the budget after a backoff", async function () {
      // Budget 2 x 1500 ms; the retry waits 2 s, so the second attempt has 1 s, not 1.5 s.
      const { client, requests } = v.client(script(busy(503, "2"), { ...device, delayMs: 5000 }), {
        timeoutMs: 1500,
        retry: { retries: 1 },
      });
      const { error, ms } = await v.settle(client.getDevice("lcd-board"));
      assert.equal(error.code, "deadline");
      assert.match(error.message, /time budget of 3000 ms/);
      assert.deepEqual(gaps(requests), [2000]);
      assert.equal(ms, 3000);
    });
  });
});
