// The account's health on every node that uses it, in a real Node-RED against the simulator: a
// failed authentication turns them all red until a request succeeds, a 429 wait and the queue show
// as short statuses, and a node that sent nothing shows them too.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor } = require("../support/simulator");
const { next, statuses, withRedAndSimulator } = require("../support/red");
const { startNode } = require("../support/flow");
const { SEED } = require("../support/seed");

/** The node that sends: it reads the lcd-board, by its id. */
const READER = { type: "edge-device-state", device: SEED.lcd.id, mode: "get" };

/** The reader as n1 and a list node n2 that never sends anything, on one account. */
async function start(sim, accountProps = {}) {
  const { n1, out, caught, get } = await startNode(sim, READER, {
    account: { retries: 0, ...accountProps },
    // Never sent anything: it shows the account's state all the same.
    extraNodes: [{ id: "n2", type: "edge-list-events", stream: "/demo/telemetry", wires: [[]] }],
  });
  const n2 = get("n2");
  return { n1, n2, shown1: statuses(n1), shown2: statuses(n2), out, caught };
}

describe("account health on the nodes of an account", function () {
  const env = withRedAndSimulator();

  it("turns every node of the account red on a 401 and clears them when a request succeeds", async function () {
    const { n1, shown1, shown2, out, caught } = await start(env.sim);
    await control(env.sim, "POST", "/faults", { path: "/device", status: 401, count: 1 });
    n1.receive({ payload: 1 });
    const failed = await next(caught);
    // The status is short; the whole sentence is in the error.
    assert.match(failed.error.message, /refused the credentials \(HTTP 401\)/);
    const red = { fill: "red", shape: "ring", text: "401 unauthorized" };
    assert.deepEqual(shown1.at(-1), red);
    assert.deepEqual(shown2.at(-1), red);
    n1.receive({ payload: 2 });
    await next(out);
    await waitFor(() => shown2.length > 1, { what: "the second node's status to clear" });
    assert.deepEqual(shown2.at(-1), {});
    assert.deepEqual(shown1.at(-1), { fill: "green", shape: "dot", text: "read, 2 keys" });
  });

  it("shows a 429 wait on every node of the account while the client waits", async function () {
    const { n1, shown2, out } = await start(env.sim, { retries: 1 });
    await control(env.sim, "POST", "/faults", {
      path: "/device",
      status: 429,
      retryAfter: "2",
      count: 1,
    });
    n1.receive({ payload: 1 });
    await waitFor(() => shown2.length > 0, { timeoutMs: 10000, what: "a 429 status" });
    assert.deepEqual(shown2[0], { fill: "yellow", shape: "ring", text: "429: wait 2 s" });
    await next(out, 10000);
    await waitFor(() => JSON.stringify(shown2.at(-1)) === "{}", {
      timeoutMs: 10000,
      what: "the wait to end",
    });
  });

  it("shows the account's queue on a node that sent nothing", async function () {
    // One request a second: the others wait in the account's queue.
    const { n1, shown2, out } = await start(env.sim, { rate: 1, concurrency: 4 });
    for (let i = 0; i < 4; i++) n1.receive({ payload: i });
    await waitFor(() => shown2.some((s) => /^queued \d$/.test(s.text ?? "")), {
      timeoutMs: 10000,
      what: "a queued status",
    });
    const queued = shown2.find((s) => /^queued/.test(s.text ?? ""));
    assert.equal(queued.fill, "yellow");
    for (let i = 0; i < 4; i++) await next(out, 10000);
    await waitFor(() => JSON.stringify(shown2.at(-1)) === "{}", {
      timeoutMs: 10000,
      what: "the queue to empty",
    });
  });

  it("shows the account's failed authentication on a watch node, then its own status again", async function () {
    const { n1, out, caught, get } = await startNode(env.sim, READER, {
      account: { retries: 0 },
      // One read at start, then none for a day: only n1's requests change the account's health.
      extraNodes: [
        {
          id: "w1",
          type: "edge-watch-events",
          stream: "/demo/telemetry",
          interval: "86400000",
          start: "new",
          wires: [[]],
        },
      ],
    });
    const shown = statuses(get("w1"));
    await waitFor(
      () => shown.some((s) => s.fill === "green" && s.shape === "ring" && s !== shown[0]),
      {
        timeoutMs: 10000,
        what: "the watch's first read",
      },
    );
    const own = shown.at(-1);
    await control(env.sim, "POST", "/faults", { path: "/device", status: 401, count: 1 });
    n1.receive({ payload: 1 });
    await next(caught);
    assert.deepEqual(shown.at(-1), { fill: "red", shape: "ring", text: "401 unauthorized" });
    n1.receive({ payload: 2 });
    await next(out);
    await waitFor(() => JSON.stringify(shown.at(-1)) === JSON.stringify(own), {
      what: "the watch's own status again",
    });
  });
});
