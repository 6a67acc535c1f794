// Bounded intake (nodes/lib/node-red/intake.ts) seen from a flow: a node that sends through an
// account starts only as many messages as the account sends at once; the others wait, untouched,
// in arrival order, fail with queue-full past the account's queue, and end quietly on close.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("../support/simulator");
const { collect, helper, withRedAndSimulator, caughtCode } = require("../support/red");
const { startNode, sendCommand } = require("../support/flow");

const { hooks } = require("@node-red/util");

/** An edge-send-command n1 to the lcd-board on an account without a rate limit. */
function start(sim, accountProps) {
  return startNode(sim, sendCommand("n1", { stream: "" }), {
    account: { rate: "0", ...accountProps },
  });
}

/** A message whose payload records, in `touched`, that its work started. */
function watched(i, touched) {
  const msg = { seq: i };
  const payload = { "/lcd/txt1": `m${i}` };
  Object.defineProperty(msg, "payload", {
    enumerable: true,
    configurable: true,
    get() {
      touched.add(i);
      return payload;
    },
    set(value) {
      Object.defineProperty(msg, "payload", { value, enumerable: true, writable: true });
    },
  });
  return msg;
}

describe("bounded intake", function () {
  const env = withRedAndSimulator();

  it("should not start a message's work until the account can send it", async function () {
    const { n1, out } = await start(env.sim, { concurrency: "2", queue: "100" });
    const touched = new Set();
    for (let i = 0; i < 10; i++) n1.receive(watched(i, touched));
    // No answer can be back within one turn of the event loop: only the first two have started.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([...touched].sort(), [0, 1]);
    const sent = await collect(out, 10, 10000);
    assert.deepEqual(
      sent.map((m) => m.seq),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.equal(touched.size, 10);
  });

  it("should fail messages past the account's queue at once with queue-full, and send the rest in order", async function () {
    const { n1, out, caught } = await start(env.sim, { concurrency: "1", queue: "2" });
    for (let i = 0; i < 5; i++) n1.receive({ seq: i, payload: { "/lcd/txt1": `m${i}` } });
    const refused = await collect(caught, 2, 10000);
    assert.deepEqual(
      refused.map((m) => [m.seq, caughtCode(m)]),
      [
        [3, "queue-full"],
        [4, "queue-full"],
      ],
    );
    const sent = await collect(out, 3, 10000);
    assert.deepEqual(
      sent.map((m) => m.seq),
      [0, 1, 2],
    );
  });

  it("should take a message sent on each answer into a full queue once one is free, not fail it", async function () {
    // A flow that sends the next command when one is answered keeps running + waiting messages in
    // the node: each arrives as its predecessor ends, and finds the queue full only until the held
    // message behind that one starts.
    const { n1, out, caught } = await start(env.sim, { concurrency: "1", queue: "1" });
    const total = 6;
    out.on("input", (msg) => {
      if (msg.seq + 2 < total)
        n1.receive({ seq: msg.seq + 2, payload: { "/lcd/txt1": `m${msg.seq + 2}` } });
    });
    n1.receive({ seq: 0, payload: { "/lcd/txt1": "m0" } });
    n1.receive({ seq: 1, payload: { "/lcd/txt1": "m1" } });
    const [what, messages] = await Promise.race([
      collect(out, total, 10000).then((sent) => ["sent", sent]),
      collect(caught, 1, 10000).then((failed) => ["failed", failed]),
    ]);
    assert.deepEqual(
      [what, messages.map((m) => (what === "sent" ? m.seq : [m.seq, caughtCode(m)]))],
      ["sent", [0, 1, 2, 3, 4, 5]],
    );
  });

  it("should count the time a message was held in its budget, and not send it once that is spent", async function () {
    // The first command's answer comes after its whole budget (300 ms, no retries): the second,
    // held all that time, has nothing left when its turn comes.
    const res = await control(env.sim, "POST", "/faults", {
      path: "/event",
      delayMs: 3000,
      count: 1,
    });
    assert.equal(res.status, 201);
    const { n1, caught } = await start(env.sim, {
      concurrency: "1",
      queue: "10",
      timeout: "300",
      retries: "0",
    });
    n1.receive({ seq: 0, payload: { "/lcd/txt1": "m0" } });
    n1.receive({ seq: 1, payload: { "/lcd/txt1": "m1" } });
    const failed = await collect(caught, 2, 10000);
    assert.deepEqual(
      failed.map((m) => [m.seq, caughtCode(m)]),
      [
        [0, "timeout-uncertain"],
        [1, "deadline"],
      ],
    );
    const posts = (await control(env.sim, "GET", "/requests?limit=100")).json.filter(
      (r) => r.method === "POST",
    );
    assert.equal(posts.length, 1, "the held command was never sent");
  });

  it("should end held messages without output or error when the node closes", async function () {
    // Each command is answered after 300 ms, so the others are still held when the flow stops.
    const res = await control(env.sim, "POST", "/faults", { path: "/event", delayMs: 300 });
    assert.equal(res.status, 201);
    const { n1, out, caught } = await start(env.sim, { concurrency: "1", queue: "100" });
    // Node-RED's onComplete hook runs for every done() of a message, also while the flow stops.
    const ended = [];
    hooks.add("onComplete.intake-spec", (event) => {
      if (event.node.id === "n1") ended.push([event.msg.seq, event.error]);
    });
    try {
      for (let i = 0; i < 20; i++) n1.receive({ seq: i, payload: { "/lcd/txt1": `m${i}` } });
      await helper.unload();
    } finally {
      hooks.remove("onComplete.intake-spec");
    }
    assert.deepEqual(
      ended.map(([seq]) => seq).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i),
    );
    assert.ok(ended.every(([, error]) => error === undefined));
    assert.equal(out.received.length, 0);
    assert.equal(caught.received.length, 0);
  });
});
