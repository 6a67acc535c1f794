// Faults, rate limits and close, seen from both sides: the nodes in a real Node-RED runtime (test
// helper) and the simulator's request log, whose arrival times show the retries and their delays.
// Timing assertions here are lower bounds only, which load cannot break (a gap between two requests
// the simulator logged is at least the wait the client chose): the exact gaps, their growth and
// every "at once" are asserted on virtual time in test/unit/api/client-clock.spec.js (issue 36: a
// loaded machine gave "gaps grow: 689, 317, 557").
"use strict";
const assert = require("node:assert/strict");
const diagnostics = require("node:diagnostics_channel");
const net = require("node:net");
const { sleep, waitFor, startSim, api } = require("../support/simulator");
const {
  deploy: redeploy,
  helper,
  CORE,
  load,
  unload,
  next,
  collect,
  noMessage,
  withRedAndSimulator,
} = require("../support/red");
const {
  assertEndedOnce,
  commandEvents,
  deploy,
  fault,
  feed,
  gaps,
  requests,
  watchEnds,
  worker,
} = require("../support/reliability");
const { startNodeRed, deployFlows, accountNode } = require("../support/node-red-process");
const { SEED } = require("../support/seed");

const NO_LIMIT = { rate: 0, concurrency: 8 };

const state = (id, props = {}) => ({ id, type: "edge-device-state", ...props });
const command = (id, props = {}) => ({ id, type: "edge-send-command", ...props });

/**
 * Asserts that the simulator has answered none of the requests a fault holds (reads of a device,
 * commands) that it logged: what was in flight was aborted, not waited for.
 */
async function assertUnanswered(sim, context) {
  const held = (await requests(sim)).filter(
    (r) => r.method === "POST" || r.pathname.startsWith(`/v5.0/${sim.company}/device/`),
  );
  assert.ok(held.length >= 1, `no held request: ${context}`);
  assert.deepEqual(
    held.map((r) => r.status),
    held.map(() => null),
    `an answer came before the end: ${context}`,
  );
}

/** How many start times fall in the busiest window of `ms`. */
function busiest(times, ms) {
  let most = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j < times.length && times[j] - times[i] < ms; j++) n++;
    most = Math.max(most, n);
  }
  return most;
}

describe("reliability: faults, rate limits and close", function () {
  const env = withRedAndSimulator({ commandDelayMs: 5 });

  describe("retries of reads and state replacement", function () {
    it("retries a read answered 503 with jittered exponential backoff, then outputs it", async function () {
      await fault(env.sim, { method: "GET", path: "/device", status: 503, count: 3 });
      const f = await deploy(env.sim, [state("n1")], { account: NO_LIMIT });
      feed(f.n1, [{}]);
      const msg = await next(f.get("n1.out"), 5000);
      assert.equal(msg.device.name, "lcd-board");
      const tries = await requests(env.sim, "GET", "/device");
      assert.deepEqual(
        tries.map((r) => r.status),
        [503, 503, 503, 200],
      );
      // Default policy: base 200 ms, attempt n waits between half and all of 200 * 2^n. The upper
      // bounds and the growth are on virtual time (client-clock.spec.js).
      const [g1, g2, g3] = gaps(tries);
      assert.ok(g1 >= 95, `first gap ${g1}`);
      assert.ok(g2 >= 195, `second gap ${g2}`);
      assert.ok(g3 >= 395, `third gap ${g3}`);
    });

    const transient = [
      ["429", { status: 429 }],
      ["502", { status: 502 }],
      ["503", { status: 503 }],
      ["504", { status: 504 }],
      ["an HTML 502 page", { status: 502, body: "html" }],
      ["a connection dropped before processing", { drop: "before" }],
      ["a connection dropped after processing", { drop: "after" }],
    ];
    for (const [what, spec] of transient) {
      for (const [mode, method, payload] of [
        ["get", "GET", undefined],
        ["replace", "PUT", { "/lcd/txt1": "replaced" }],
      ]) {
        it(`retries a ${method} after ${what}`, async function () {
          await fault(env.sim, { method, path: "/device", ...spec });
          const f = await deploy(env.sim, [state("n1", { mode })], { account: NO_LIMIT });
          feed(f.n1, [{ payload }]);
          const msg = await next(f.get("n1.out"));
          if (payload) assert.deepEqual(msg.payload, payload);
          const tries = await requests(env.sim, method, "/device");
          assert.equal(tries.length, 2, JSON.stringify(tries.map((r) => r.status)));
          assert.equal(tries[1].status, 200);
        });
      }
    }

    it("gives up after the account's retry count with the last error to a Catch node", async function () {
      await fault(env.sim, { method: "GET", path: "/device", status: 503, count: 20 });
      const f = await deploy(env.sim, [state("n1")], { account: { ...NO_LIMIT, retries: "2" } });
      feed(f.n1, [{}]);
      const err = await next(f.caught, 5000);
      assert.equal(err.statusCode, 503);
      assert.equal(err.error.code, "http");
      assert.match(err.error.message, /GET \/v5\.0\/demo\/device\/lcd-board failed with HTTP 503/);
      assert.equal((await requests(env.sim, "GET", "/device")).length, 3);
    });

    it("does not retry what cannot get better: 400, 401, 404 and a malformed answer", async function () {
      for (const spec of [{ status: 400 }, { status: 401 }, { status: 404 }, { body: "no-head" }])
        await fault(env.sim, { method: "GET", path: "/device", ...spec });
      // By id: a 404 for a device name is looked up in the device list (the name fall-back), which
      // is not a retry; a 404 for an id is the end.
      const f = await deploy(env.sim, [state("n1", { device: SEED.lcd.id })], {
        account: NO_LIMIT,
      });
      feed(f.n1, [{}, {}, {}, {}]);
      const errors = await collect(f.caught, 4);
      assert.deepEqual(errors.map((e) => e.error.code).sort(), [
        "auth",
        "http",
        "malformed",
        "not-found",
      ]);
      assert.equal((await requests(env.sim, "GET", "/device")).length, 4);
    });

    it("honours Retry-After in seconds on a 429", async function () {
      await fault(env.sim, { method: "GET", path: "/device", status: 429, retryAfter: "1" });
      const f = await deploy(env.sim, [state("n1")], { account: NO_LIMIT });
      feed(f.n1, [{}]);
      await next(f.get("n1.out"), 5000);
      const tries = await requests(env.sim, "GET", "/device");
      assert.deepEqual(
        tries.map((r) => r.status),
        [429, 200],
      );
      const [gap] = gaps(tries);
      assert.ok(gap >= 990, `Retry-After: 1 gave a gap of ${gap} ms`);
    });

    it("honours Retry-After given as an HTTP date", async function () {
      // A whole second at least 1.5 s away, since HTTP dates have one-second resolution.
      const at = Math.ceil((Date.now() + 1500) / 1000) * 1000;
      await fault(env.sim, {
        method: "GET",
        path: "/device",
        status: 503,
        retryAfter: new Date(at).toUTCString(),
      });
      const f = await deploy(env.sim, [state("n1")], { account: NO_LIMIT });
      feed(f.n1, [{}]);
      await next(f.get("n1.out"), 6000);
      const tries = await requests(env.sim, "GET", "/device");
      assert.equal(tries.length, 2);
      assert.ok(tries[1].time >= at - 20, `retried ${Math.round(at - tries[1].time)} ms early`);
    });

    it("fails at once when Retry-After asks for more than the request's time budget", async function () {
      await fault(env.sim, { method: "GET", path: "/device", status: 429, retryAfter: "30" });
      const f = await deploy(env.sim, [state("n1")], {
        account: { ...NO_LIMIT, timeout: "1000", retries: "3" },
      });
      feed(f.n1, [{}]);
      // Ended without the 30 s wait: at once on virtual time (client-clock.spec.js).
      const err = await next(f.caught);
      assert.equal(err.error.code, "rate-limited");
      assert.equal(err.edgeError.retryAfterMs, 30000);
      assert.equal((await requests(env.sim, "GET", "/device")).length, 1);
    });

    it("stops retrying when the next try would pass the time budget (timeout x (retries + 1))", async function () {
      // Budget 4 x 400 ms = 1.6 s; each retry waits 1 s: tries at 0 and ~1 s only.
      await fault(env.sim, {
        method: "GET",
        path: "/device",
        status: 503,
        retryAfter: "1",
        count: 10,
      });
      const f = await deploy(env.sim, [state("n1")], {
        account: { ...NO_LIMIT, timeout: "400", retries: "3" },
      });
      feed(f.n1, [{}]);
      // When it ended (1 s after the first try) is asserted on virtual time (client-clock.spec.js).
      const err = await next(f.caught, 5000);
      assert.equal(err.statusCode, 503);
      assert.equal((await requests(env.sim, "GET", "/device")).length, 2);
    });

    it("ends a request still waiting for the rate limit at its budget, with deadline", async function () {
      // One request a second, budget 1 x 600 ms: the second read would wait about a second.
      const f = await deploy(env.sim, [state("n1")], {
        account: { rate: 1, concurrency: 8, timeout: "600", retries: "0" },
      });
      const ids = feed(f.n1, [{}, {}]);
      await next(f.get("n1.out"), 5000);
      const err = await next(f.caught, 5000);
      assert.equal(err.error.code, "deadline");
      assert.match(
        err.error.message,
        /GET \/v5\.0\/demo\/device\/lcd-board did not finish within its time budget of 600 ms/,
      );
      assert.equal((await requests(env.sim, "GET", "/device")).length, 1);
      assertEndedOnce(f.ends.n1, ids);
    });

    it("cuts the last attempt to what is left of the budget after a backoff", async function () {
      // Budget 2 x 1500 ms; the retry waits 2 s, so the second attempt has about 1 s, not 1.5 s.
      await fault(env.sim, { method: "GET", path: "/device", status: 503, retryAfter: "2" });
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 5000 });
      const f = await deploy(env.sim, [state("n1")], {
        account: { ...NO_LIMIT, timeout: "1500", retries: "1" },
      });
      feed(f.n1, [{}]);
      const err = await next(f.caught, 10000);
      assert.equal(err.error.code, "deadline");
      assert.match(err.error.message, /time budget of 3000 ms/);
      assert.equal((await requests(env.sim, "GET", "/device")).length, 2);
    });

    it("says a command cut by its budget may have been delivered, and does not send it again", async function () {
      await fault(env.sim, { method: "POST", path: "/event", status: 503, retryAfter: "2" });
      await fault(env.sim, { method: "POST", path: "/event", delayMs: 5000 });
      const f = await deploy(env.sim, [command("n1")], {
        account: { ...NO_LIMIT, timeout: "1500", retries: "1" },
      });
      feed(f.n1, [{ payload: { "/lcd/txt1": "once" } }]);
      const err = await next(f.caught, 10000);
      assert.equal(err.error.code, "deadline-uncertain");
      assert.match(err.error.message, /the command may or may not have been delivered/);
      assert.equal(err.edgeError.mayHaveBeenSent, true);
      assert.equal((await requests(env.sim, "POST", "/event")).length, 2);
    });

    it("times out each attempt after the account's timeout and retries a read", async function () {
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 1500 });
      const f = await deploy(env.sim, [state("n1")], {
        account: { ...NO_LIMIT, timeout: "300" },
      });
      feed(f.n1, [{}]);
      await next(f.get("n1.out"), 3000);
      const tries = await requests(env.sim, "GET", "/device");
      assert.equal(tries.length, 2);
      assert.ok(gaps(tries)[0] >= 290, `gap ${gaps(tries)[0]}`);
    });
  });

  describe("commands (POST /event)", function () {
    const body = (r) => JSON.parse(r.body);

    it("retries a command answered 503 or 429 (not processed) and it is delivered once", async function () {
      await fault(env.sim, { method: "POST", path: "/event", status: 503 });
      await fault(env.sim, { method: "POST", path: "/event", status: 429, retryAfter: "0" });
      const f = await deploy(env.sim, [command("n1")], { account: NO_LIMIT });
      feed(f.n1, [{ payload: { "/lcd/txt1": "once-503-429" } }]);
      const msg = await next(f.get("n1.out"));
      assert.match(msg.payload.id, /^e/);
      const tries = await requests(env.sim, "POST", "/event");
      assert.deepEqual(
        tries.map((r) => r.status),
        [503, 429, 201],
      );
      const sent = (await commandEvents(env.sim, "lcd-board")).filter(
        (e) => e.elems["/lcd/txt1"] === "once-503-429",
      );
      assert.equal(sent.length, 1);
    });

    const notRetried = [
      ["answered 502 (a gateway may have passed it on)", { status: 502 }, "http", 0],
      ["answered 504", { status: 504 }, "http", 0],
      ["whose connection dropped before an answer", { drop: "before" }, "reset-uncertain", 0],
      [
        "whose connection dropped after the server processed it",
        { drop: "after" },
        "reset-uncertain",
        1,
      ],
    ];
    for (const [what, spec, code, delivered] of notRetried) {
      it(`does not send again a command ${what}`, async function () {
        await fault(env.sim, { method: "POST", path: "/event", ...spec, count: 5 });
        const f = await deploy(env.sim, [command("n1")], { account: NO_LIMIT });
        feed(f.n1, [{ payload: { "/lcd/txt1": `no-dup-${code}` } }]);
        const err = await next(f.caught);
        assert.equal(err.error.code, code);
        if (code.endsWith("-uncertain")) {
          assert.match(err.error.message, /may or may not have been delivered/);
          assert.equal(err.edgeError.mayHaveBeenSent, true);
        }
        await sleep(100);
        assert.equal((await requests(env.sim, "POST", "/event")).length, 1);
        const sent = (await commandEvents(env.sim, "lcd-board")).filter(
          (e) => e.elems["/lcd/txt1"] === `no-dup-${code}`,
        );
        assert.equal(sent.length, delivered);
      });
    }

    it("does not send again a command that timed out: it may or may not have been delivered", async function () {
      await fault(env.sim, { method: "POST", path: "/event", delayMs: 700 });
      const f = await deploy(env.sim, [command("n1")], {
        account: { ...NO_LIMIT, timeout: "300" },
      });
      feed(f.n1, [{ payload: { "/lcd/txt1": "slow" } }]);
      const err = await next(f.caught);
      assert.equal(err.error.code, "timeout-uncertain");
      assert.match(
        err.error.message,
        /No answer within 300 ms .* may or may not have been delivered/,
      );
      await sleep(700);
      assert.equal((await requests(env.sim, "POST", "/event")).length, 1);
      const sent = (await commandEvents(env.sim, "lcd-board")).filter(
        (e) => e.elems["/lcd/txt1"] === "slow",
      );
      assert.equal(sent.length, 1, "the server processed it once, after the timeout");
    });

    it("retries a command whose connection was refused (it cannot have arrived) and delivers it once", async function () {
      // A port with nothing listening, where a simulator starts just after the first try.
      const port = await new Promise((resolve) => {
        const s = net.createServer().listen(0, "127.0.0.1", () => {
          const p = s.address().port;
          s.close(() => resolve(p));
        });
      });
      const f = await deploy(env.sim, [command("n1")], {
        account: { ...NO_LIMIT, baseUrl: `http://127.0.0.1:${port}` },
      });
      feed(f.n1, [{ payload: { "/lcd/txt1": "after refused" } }]);
      await sleep(20);
      const late = await startSim({ port });
      try {
        const msg = await next(f.get("n1.out"), 5000);
        assert.equal(msg.payload.elems["/lcd/txt1"], "after refused");
        assert.equal((await requests(late, "POST", "/event")).length, 1);
        const sent = (await commandEvents(late, "lcd-board")).filter(
          (e) => e.elems["/lcd/txt1"] === "after refused",
        );
        assert.equal(sent.length, 1);
      } finally {
        await unload();
        await late.close();
      }
    });

    it("sends each of 30 commands exactly once through 503s, 429s and resets", async function () {
      for (const spec of [
        { status: 503, count: 4 },
        { status: 429, retryAfter: "0", count: 3 },
        { drop: "after", count: 2 },
        { drop: "before", count: 2 },
      ])
        await fault(env.sim, { method: "POST", path: "/event", ...spec });
      // Retries enough for one command to meet all 7 retryable faults: with 4 commands running
      // at once (the others held by the node), the faults need not spread over several.
      const f = await deploy(env.sim, [command("n1")], {
        account: { rate: 0, concurrency: 4, retries: 7 },
      });
      const ids = feed(
        f.n1,
        Array.from({ length: 30 }, (_, i) => ({ payload: { "/lcd/txt1": `c${i}` } })),
      );
      await waitFor(() => f.ends.n1.length >= 30, { timeoutMs: 8000, what: "30 ends" });
      assertEndedOnce(f.ends.n1, ids);
      const failed = f.ends.n1.filter((e) => e.error).length;
      assert.equal(failed, 4, "the 4 resets are errors, the 503s and 429s were retried");
      const out = f.get("n1.out").received.length;
      assert.equal(out + failed, 30);
      const texts = body;
      const posted = (await requests(env.sim, "POST", "/event")).map(
        (r) => texts(r).elems["/lcd/txt1"],
      );
      const events = (await commandEvents(env.sim, "lcd-board")).map((e) => e.elems["/lcd/txt1"]);
      assert.equal(new Set(events).size, events.length, "a command reached the device twice");
      assert.equal(posted.length, 30 + 4 + 3, "30 sends, 7 of them retried once");
    });
  });

  describe("merge", function () {
    it("retries a merge as a whole: it reads the state again before writing", async function () {
      await fault(env.sim, { method: "PUT", path: "/device", status: 503, retryAfter: "1" });
      const f = await deploy(env.sim, [state("n1", { mode: "merge" })], { account: NO_LIMIT });
      feed(f.n1, [{ payload: { "/lcd/txt1": "merged" } }]);
      // While the merge waits to retry, someone else changes another key.
      await waitFor(async () => (await requests(env.sim, "PUT", "/device")).length === 1, {
        what: "the failed write",
      });
      const other = await api(env.sim, "PUT", "/device/lcd-board", {
        body: { state: { "/lcd/txt1": "Hello", "/lcd/txt2": "changed meanwhile" } },
      });
      assert.equal(other.status, 200);
      const msg = await next(f.get("n1.out"), 5000);
      assert.deepEqual(msg.payload, { "/lcd/txt1": "merged", "/lcd/txt2": "changed meanwhile" });
      const log = (await requests(env.sim, undefined, "/device")).map(
        (r) => `${r.method} ${r.status}`,
      );
      assert.deepEqual(log, ["GET 200", "PUT 503", "PUT 200", "GET 200", "PUT 200"]);
    });

    it("runs a replace of a device after a merge of it in progress, so the merge cannot undo it", async function () {
      // The merge's read is slow: a replace sent meanwhile used to land between its read and its
      // write, and the merge then wrote the old state back.
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 400 });
      const f = await deploy(
        env.sim,
        [state("merger", { mode: "merge" }), state("replacer", { mode: "replace" })],
        { account: NO_LIMIT },
      );
      feed(f.merger, [{ payload: { "/lcd/txt1": "merged" } }]);
      await waitFor(async () => (await requests(env.sim, "GET", "/device")).length === 1, {
        what: "the merge's read",
      });
      feed(f.replacer, [{ payload: { "/only": "replaced" } }]);
      await next(f.get("merger.out"), 5000);
      const replaced = await next(f.get("replacer.out"), 5000);
      assert.deepEqual(replaced.payload, { "/only": "replaced" });
      const log = (await requests(env.sim, undefined, "/device")).map((r) => r.method);
      assert.deepEqual(log, ["GET", "PUT", "PUT"]);
      const now = await api(env.sim, "GET", "/device/lcd-board");
      assert.deepEqual(now.json.body.state, { "/only": "replaced" });
    });

    it("refuses a merge whose patch alone is over the payload limit before reading the state", async function () {
      const f = await deploy(env.sim, [state("n1", { mode: "merge" })], {
        account: { ...NO_LIMIT, maxPayload: "300" },
      });
      feed(f.n1, [{ payload: { "/lcd/txt1": "x".repeat(400), "/lcd/txt2": null } }]);
      const err = await next(f.caught);
      assert.equal(err.error.code, "payload-too-large");
      assert.equal(env.sim.stats().total, 0);
    });
  });

  describe("rate limit per account", function () {
    it("starts at most N requests in any second, shared by every node using the account", async function () {
      const f = await deploy(
        env.sim,
        [
          state("n1"),
          command("n2"),
          { id: "n3", type: "edge-list-events", stream: "s5f3c1a2b0000000000000011" },
        ],
        { account: { rate: "5", concurrency: "8" } },
      );
      // When each request starts, as undici creates it once the limiter let it go: the server's
      // arrival times bunch up on a loaded machine (8 in a second once, in CI), starts do not.
      const starts = [];
      const onCreate = ({ request }) => {
        if (env.sim.url.startsWith(request.origin)) starts.push(performance.now());
      };
      diagnostics.subscribe("undici:request:create", onCreate);
      try {
        feed(f.n1, Array(4).fill({}));
        feed(f.n2, Array(4).fill({ payload: { "/lcd/txt1": "r" } }));
        feed(f.n3, Array(4).fill({}));
        await collect(f.get("n1.out"), 4, 6000);
        await collect(f.get("n2.out"), 4, 6000);
        await collect(f.get("n3.out"), 4, 6000);
      } finally {
        diagnostics.unsubscribe("undici:request:create", onCreate);
      }
      const times = (await requests(env.sim)).map((r) => r.time);
      assert.equal(times.length, 12);
      assert.equal(starts.length, 12);
      // 12 requests at 5/s: 5 at once, 5 a second later, 2 a second after that (exactly so on
      // virtual time in test/unit/api/client-clock.spec.js).
      assert.ok(busiest(starts, 950) <= 5, `busiest second started ${busiest(starts, 950)}`);
      assert.ok(
        starts.at(-1) - starts[0] >= 1900,
        `12 requests took ${starts.at(-1) - starts[0]} ms`,
      );
    });

    it("keeps at most M requests in flight for the account", async function () {
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 300, count: 6 });
      const f = await deploy(env.sim, [state("n1"), state("n2")], {
        account: { rate: "0", concurrency: "2" },
      });
      feed(f.n1, Array(3).fill({}));
      feed(f.n2, Array(3).fill({}));
      await collect(f.get("n1.out"), 3, 5000);
      await collect(f.get("n2.out"), 3, 5000);
      const times = (await requests(env.sim, "GET", "/device")).map((r) => r.time);
      for (let i = 2; i < times.length; i++)
        assert.ok(times[i] - times[i - 2] >= 280, `request ${i} started too early`);
    });

    it("serves waiting requests in the order they came", async function () {
      const f = await deploy(env.sim, [command("n1")], {
        account: { rate: "0", concurrency: "1" },
      });
      const n = 12;
      feed(
        f.n1,
        Array.from({ length: n }, (_, i) => ({ payload: { "/lcd/txt1": `order-${i}` } })),
      );
      const out = await collect(f.get("n1.out"), n);
      assert.deepEqual(
        out.map((m) => m.payload.elems["/lcd/txt1"]),
        Array.from({ length: n }, (_, i) => `order-${i}`),
      );
      const posted = (await requests(env.sim, "POST", "/event")).map(
        (r) => JSON.parse(r.body).elems["/lcd/txt1"],
      );
      assert.deepEqual(
        posted,
        Array.from({ length: n }, (_, i) => `order-${i}`),
      );
    });

    it("fails requests past the queue bound to a Catch node, never dropping one silently", async function () {
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 300, count: 10 });
      const f = await deploy(env.sim, [state("n1")], {
        account: { rate: "0", concurrency: "1", queue: "2" },
      });
      const ids = feed(f.n1, Array(6).fill({}));
      const errors = await collect(f.caught, 3);
      for (const e of errors) {
        assert.equal(e.error.code, "queue-full");
        assert.match(e.error.message, /Too many requests waiting for this account \(2 queued\)/);
      }
      await collect(f.get("n1.out"), 3, 5000);
      assertEndedOnce(f.ends.n1, ids);
      assert.equal((await requests(env.sim, "GET", "/device")).length, 3);
    });
  });

  describe("nothing lost", function () {
    it("ends each of 60 messages in one output or one error under mixed faults", async function () {
      this.timeout(20000);
      for (const spec of [
        { method: "GET", status: 503, count: 3 },
        { method: "GET", status: 500, count: 2 },
        { method: "GET", body: "html", status: 502, count: 2 },
        { method: "GET", body: "truncated", count: 2 },
        { method: "GET", body: "null-body", count: 2 },
        { method: "PUT", status: 404, count: 2 },
        { method: "PUT", drop: "after", count: 2 },
        { method: "POST", drop: "after", count: 2 },
        { method: "POST", status: 504, count: 2 },
        { method: "POST", delayMs: 900, count: 2 },
      ])
        await fault(env.sim, spec);
      const f = await deploy(
        env.sim,
        [state("reader"), state("merger", { mode: "merge" }), command("sender")],
        { account: { rate: "0", concurrency: "4", timeout: "500", retries: "1" } },
      );
      const ids = {
        reader: feed(f.reader, Array(20).fill({})),
        merger: feed(
          f.merger,
          Array.from({ length: 20 }, (_, i) => ({ payload: { "/lcd/txt2": `m${i}` } })),
        ),
        sender: feed(
          f.sender,
          Array.from({ length: 20 }, (_, i) => ({ payload: { "/lcd/txt1": `k${i}` } })),
        ),
      };
      for (const [id, list] of Object.entries(ids)) {
        await waitFor(() => f.ends[id].length >= 20, {
          timeoutMs: 15000,
          what: `20 ends at ${id}`,
        });
        assertEndedOnce(f.ends[id], list);
        const errors = f.ends[id].filter((e) => e.error).length;
        assert.equal(f.get(`${id}.out`).received.length + errors, 20, id);
      }
      // Catch nodes get their copy of an error after done(err) returns: when a time budget ends
      // many merges at once, the last copies arrive after the last end. Each error reaches Catch
      // once, and nothing else does.
      const errors = Object.values(f.ends)
        .flat()
        .filter((e) => e.error).length;
      assert.ok(errors >= 6, `${errors} errors`);
      await waitFor(() => f.caught.received.length >= errors, {
        timeoutMs: 10000,
        what: `${errors} errors caught`,
      });
      await noMessage(f.caught, 300);
      assert.equal(f.caught.received.length, errors);
    });

    it("on close, aborts requests in flight and ends queued messages with done(), without errors", async function () {
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 10_000, count: 10 });
      await fault(env.sim, { method: "POST", path: "/event", delayMs: 10_000, count: 10 });
      const f = await deploy(
        env.sim,
        [
          state("reader"),
          state("merger", { mode: "merge" }),
          command("sender"),
          { id: "waiter", type: "edge-await-command", timeout: "60000" },
        ],
        { account: { rate: "2", concurrency: "1", queue: "100" } },
      );
      const ids = {
        reader: feed(f.reader, Array(4).fill({})),
        merger: feed(f.merger, Array(4).fill({ payload: { "/lcd/txt2": "x" } })),
        sender: feed(f.sender, Array(4).fill({ payload: { "/lcd/txt1": "y" } })),
        waiter: feed(
          f.waiter,
          Array(3).fill({ command: { device: "pump-3", creationDate: Date.now() } }),
        ),
      };
      await waitFor(async () => (await requests(env.sim)).length >= 1, { what: "a request" });
      await sleep(100);
      assert.ok(f.acc.services.client.limiter.queued > 0, "messages wait in the rate limiter");
      const timersBefore = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
      const started = Date.now();
      await unload();
      const took = Date.now() - started;
      // The close did not wait for an answer: none of the held requests had one when it ended.
      // An order, not a speed: a bound of 2 s on the close failed beside a loaded parallel pass
      // (issue 36).
      await assertUnanswered(env.sim, `close took ${took} ms`);
      for (const [id, list] of Object.entries(ids)) {
        assertEndedOnce(f.ends[id], list);
        assert.deepEqual(
          f.ends[id].filter((e) => e.error).map((e) => e.error.message),
          [],
          `${id} ended with errors`,
        );
      }
      for (const out of [
        "reader.out",
        "merger.out",
        "sender.out",
        "waiter.out0",
        "waiter.out1",
        "waiter.out2",
      ])
        assert.equal(f.get(out)?.received.length ?? 0, 0, `${out} got a message on close`);
      assert.equal(f.caught.received.length, 0);
      assert.equal(f.acc.services.client.limiter.queued, 0);
      assert.equal(f.acc.services.poller.size, 0);
      const timersAfter = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
      assert.ok(timersAfter < timersBefore, `timers: ${timersBefore} before, ${timersAfter} after`);
    });

    it("ends messages with done() when a redeploy restarts the account and its nodes, whichever closes first", async function () {
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 10_000, count: 10 });
      // The account on the first tab, so its flow stops before the workers' flow.
      const flow = (rate) => [
        { id: "t0", type: "tab" },
        { id: "t1", type: "tab" },
        {
          id: "acc",
          type: "edge-account",
          z: "t0",
          baseUrl: env.sim.url,
          company: env.sim.company,
          rate,
          concurrency: "1",
        },
        worker("edge-device-state", { id: "n1", z: "t1", wires: [["out"]] }),
        { id: "out", z: "t1", type: "helper" },
        { id: "c1", z: "t1", type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
        { id: "caught", z: "t1", type: "helper" },
      ];
      const creds = { acc: { user: env.sim.user, token: env.sim.token } };
      await load(flow("1"), creds, [CORE.catch]);
      const n1 = helper.getNode("n1");
      const ends = watchEnds(n1);
      const ids = feed(n1, Array(4).fill({}));
      await waitFor(async () => (await requests(env.sim)).length >= 1, { what: "a request" });
      const started = Date.now();
      await redeploy(flow("2"), "nodes", creds);
      // The redeploy did not wait for the held reads' answers (an order, not the 2 s bound a
      // loaded parallel pass broke, issue 36).
      await assertUnanswered(env.sim, `redeploy took ${Date.now() - started} ms`);
      assert.notEqual(helper.getNode("n1"), n1, "the worker was restarted");
      assertEndedOnce(ends, ids);
      assert.deepEqual(
        ends.filter((e) => e.error).map((e) => e.error.message),
        [],
      );
    });

    it("shuts down a real Node-RED with requests in flight promptly, without close warnings", async function () {
      this.timeout(40000);
      await fault(env.sim, { method: "GET", path: "/device", delayMs: 20000, count: 100 });
      const red = await startNodeRed();
      try {
        await deployFlows(red.url, [
          { id: "t1", type: "tab", label: "shutdown" },
          accountNode(env.sim, { concurrency: "1" }),
          {
            id: "tick",
            z: "t1",
            type: "inject",
            repeat: "0.1",
            once: true,
            onceDelay: 0.1,
            topic: "",
            payload: "",
            payloadType: "date",
            props: [{ p: "payload" }],
            wires: [["n1"]],
          },
          worker("edge-device-state", { id: "n1", z: "t1", wires: [[]] }),
        ]);
      } catch (err) {
        await red.stop();
        throw err;
      }
      try {
        await waitFor(async () => (await requests(env.sim)).length >= 1, {
          timeoutMs: 10000,
          what: "a request from Node-RED",
        });
        await sleep(300);
      } finally {
        const started = Date.now();
        await red.stop();
        const took = Date.now() - started;
        const output = red.output();
        // Before any held read was answered (20 s): an order, not the 5 s bound a loaded machine
        // could break (issue 36). Node-RED's own 15 s per close would say "Close timed out".
        await assertUnanswered(env.sim, `shutdown took ${took} ms:\n${output}`);
        assert.doesNotMatch(output, /Close timed out|did not close|stopping-error|Error stopping/i);
        assert.match(output, /Stopped flows/);
      }
    });
  });
});
