// edge-await-command across a full redeploy and a Node-RED restart: a real Node-RED process with a
// `localfilesystem` context store, stopped and started again on the same user directory between a
// command and its markers. What leaves the await node is posted by core http request nodes to a
// small collector in this process, as a user's flow would forward it.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor, sleep } = require("../support/simulator");
const {
  withRestarts,
  deployFlows,
  commandFlow,
  pressInject,
} = require("../support/node-red-process");

const WAIT = 30000;
const INBOX_GETS = "GET /v5.0/demo/event";

/** The restart flow (test/support/node-red-process.js) with the await node's store and timeout. */
const flows = (sim, sink, { store, timeout }) =>
  commandFlow(sim, sink, {
    label: "restart",
    text: "across a restart",
    keep: "kept",
    fields:
      "id: msg.command.id, keep: msg.keep, markers: msg.markers.length, " +
      "timedOut: msg.timedOut || null",
    awaitProps: { store, timeout: String(timeout) },
  });

const inject = (red) => pressInject(red, WAIT);

describe("edge-await-command across a redeploy and a restart", function () {
  this.timeout(180000);
  const env = withRestarts("/out", "/error");
  let sim;
  let sink;
  let posted;

  beforeEach(async function () {
    ({ sim, sink } = env);
    posted = sink.got["/out"];
    await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
  });

  const deploy = (nodes) => deployFlows(env.red.url, nodes);

  const commandsSent = async () =>
    (await control(sim, "GET", "/devices/lcd-board")).json.streams.command.count;

  /** Sends the command and waits until its wait has read the inbox at least once. */
  async function sendAndWait() {
    await inject(env.red);
    await waitFor(async () => (await commandsSent()) === 1, {
      timeoutMs: WAIT,
      what: "the command",
    });
    const polls = sim.stats().byRoute[INBOX_GETS] ?? 0;
    await waitFor(() => (sim.stats().byRoute[INBOX_GETS] ?? 0) > polls, {
      timeoutMs: WAIT,
      what: "an inbox poll",
    });
  }

  const outputs = (n) =>
    waitFor(() => posted.length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `${n} outputs (got ${JSON.stringify(posted)}, errors ${JSON.stringify(sink.got["/error"])})`,
    });

  it("delivers the result once, with msg.restored, after Node-RED is restarted between the command and its markers", async function () {
    await env.startRed();
    await deploy(flows(sim, sink, { store: "file", timeout: 60000 }));
    await sendAndWait();
    await env.stopRed();
    assert.deepEqual(posted, []);
    await env.startRed();
    // The device runs the command only now, while the restarted Node-RED waits.
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(1);
    const [out] = posted;
    assert.equal(out.output, 0);
    assert.equal(out.restored, true);
    assert.equal(out.keep, "kept");
    assert.equal(out.markers, 2);
    await sleep(1500);
    assert.equal(posted.length, 1, JSON.stringify(posted));
    assert.deepEqual(sink.got["/error"], []);
    assert.equal(await commandsSent(), 1, "the command was sent again");
  });

  it("delivers the result once after a restart for a msg.command rebuilt in a Function node without its date", async function () {
    // As a user keeps only the id and the device: no creationDate (issue 28).
    const rebuilt = flows(sim, sink, { store: "file", timeout: 60000 }).flatMap((n) =>
      n.id === "s1"
        ? [
            { ...n, wires: [["hb"]] },
            {
              id: "hb",
              type: "function",
              z: "t1",
              func: "msg.command = { id: msg.command.id, device: msg.command.device };\nreturn msg;",
              outputs: 1,
              wires: [["a1"]],
            },
          ]
        : [n],
    );
    await env.startRed();
    await deploy(rebuilt);
    await sendAndWait();
    await env.stopRed();
    await env.startRed();
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(1);
    const [out] = posted;
    assert.equal(out.output, 0, JSON.stringify(out));
    assert.equal(out.restored, true);
    await sleep(1000);
    assert.equal(posted.length, 1, JSON.stringify(posted));
    assert.deepEqual(sink.got["/error"], []);
    assert.doesNotMatch(env.red.output(), /is not valid/);
    assert.equal(await commandsSent(), 1, "the command was sent again");
  });

  it("gives one timed out, with msg.restored, for a deadline that passed while Node-RED was down", async function () {
    await env.startRed();
    await deploy(flows(sim, sink, { store: "file", timeout: 3000 }));
    await sendAndWait();
    await env.stopRed();
    assert.deepEqual(posted, []);
    await sleep(3500);
    await env.startRed();
    await outputs(1);
    const [out] = posted;
    assert.equal(out.output, 2);
    assert.equal(out.restored, true);
    assert.equal(out.timedOut.timeout, 3000);
    await sleep(1500);
    assert.equal(posted.length, 1, JSON.stringify(posted));
    assert.equal(await commandsSent(), 1);
  });

  it("resumes the wait after a full redeploy with Node-RED's default store", async function () {
    await env.startRed();
    const nodes = flows(sim, sink, { store: "", timeout: 60000 });
    await deploy(nodes);
    await sendAndWait();
    await deploy(nodes);
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(1);
    const [out] = posted;
    assert.equal(out.output, 0);
    assert.equal(out.restored, true);
    await sleep(1500);
    assert.equal(posted.length, 1, JSON.stringify(posted));
    assert.equal(await commandsSent(), 1);
  });

  it("lists a wait resumed after a full redeploy as restored in the edge devices sidebar", async function () {
    await env.startRed();
    const nodes = flows(sim, sink, { store: "", timeout: 60000 });
    await deploy(nodes);
    await sendAndWait();
    const rows = async () => {
      const res = await fetch(`${env.red.url}/edge-account/sidebar`);
      assert.equal(res.status, 200);
      const [account] = (await res.json()).accounts;
      // None while the deploy restarts the account.
      return account?.pending?.devices.flatMap((d) => d.rows) ?? [];
    };
    const [before] = await rows();
    assert.equal(before.restored, false);
    await deploy(nodes);
    await waitFor(async () => (await rows())[0]?.restored === true, {
      timeoutMs: WAIT,
      what: "the wait listed as restored",
    });
    const [after] = await rows();
    assert.equal(after.commandId, before.commandId);
    assert.equal(after.startedAt, before.startedAt);
  });
});
