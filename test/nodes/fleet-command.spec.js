// edge-fleet-command in a real Node-RED runtime against the simulator: a fleet of devices added
// through the simulator's control interface, some without the resource the command names (they
// answer COMMAND_FAULT), some offline (they never answer).
"use strict";
const assert = require("node:assert/strict");
const vm = require("node:vm");
const { control, sleep, waitFor } = require("../support/simulator");
const {
  deploy,
  helper,
  load,
  CORE,
  next,
  collect,
  noMessage,
  statuses,
  caughtCode,
  withRedAndSimulator,
} = require("../support/red");
const { getEventListeners } = require("node:events");
const { startFlow, flowOf } = require("../support/flow");
const { SEED } = require("../support/seed");
const { addDevices, commandsOf, fleetNode } = require("../support/fleet");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const { jobsOf } = require("../../dist/nodes/lib/account/jobs.js");
const ELEMS = { "/lcd/txt1": "shift target 42" };
const COMMAND_POSTS = "POST /v5.0/demo/event";

/** The fleet node "f1" (`props` over fleetNode()) with helpers on its outputs, report and each. */
const fleetNodes = (props) => [
  fleetNode(props),
  { id: "report", type: "helper" },
  { id: "each", type: "helper" },
];

/** The fleet node "f1" with helpers on its outputs (report, each) and the flow's Catch. */
async function start(sim, props = {}, account = { rate: 0, concurrency: 16 }) {
  const { get } = await startFlow(sim, fleetNodes(props), { account, extraTypes: [FLEET] });
  return { f1: get("f1"), report: get("report"), each: get("each"), caught: get("caught") };
}

/** The flow of start() as nodes and credentials, for a test that deploys it again. */
const fleetFlow = (sim, props = {}) =>
  flowOf(sim, fleetNodes(props), { account: { rate: 0, concurrency: 16 } });

/** The server refuses the next command sent with 429 and a Retry-After of one second. */
const refuseNextSendWith429 = (sim) =>
  control(sim, "POST", "/faults", {
    method: "POST",
    path: "/event",
    status: 429,
    retryAfter: "1",
    count: 1,
  });

const byDevice = (report) => Object.fromEntries(report.devices.map((d) => [d.device, d]));

describe("edge-fleet-command", function () {
  this.timeout(30000);
  const env = withRedAndSimulator({ commandDelayMs: 10 });

  it("sends every device the command once and reports each complete, with one message per device", async function () {
    const names = ["u1", "u2", "u3", "u4", "u5"];
    await addDevices(env.sim, names);
    const { f1, report, each } = await start(env.sim, { devices: names.join(", ") });
    const shown = statuses(f1);
    f1.receive({ payload: ELEMS, topic: "line B" });
    const out = await next(report, 15000);
    const r = out.payload;
    assert.equal(r.total, 5);
    assert.equal(r.complete, 5);
    assert.deepEqual([r.fault, r.timedOut, r.failed, r.notSent], [0, 0, 0, 0]);
    assert.equal(r.aborted, false);
    assert.equal(r.restored, false);
    assert.ok(r.endedAt >= r.startedAt);
    assert.deepEqual(
      r.devices.map((d) => d.device),
      names,
    );
    for (const d of r.devices) {
      assert.equal(d.outcome, "complete");
      assert.equal(typeof d.commandId, "string");
      assert.equal(d.error, null);
    }
    const msgs = await collect(each, 5);
    assert.deepEqual(msgs.map((m) => m.device).sort(), names);
    for (const m of msgs) {
      assert.equal(m.outcome, "complete");
      assert.equal(m.job, r.job);
      assert.equal(m.topic, "line B");
      assert.equal(m.command.device, m.device);
      assert.equal(m.command.id, byDevice(r)[m.device].commandId);
      assert.match(JSON.stringify(m.payload.elems), /COMMAND_COMPLETE/);
      assert.equal(m.markers.length, 2);
    }
    for (const name of names) assert.equal(await commandsOf(env.sim, name), 1);
    await noMessage(each, 200);
    assert.deepEqual(shown.at(-1), { fill: "green", shape: "dot", text: "5/5 complete" });
  });

  it("reports a faulting and an offline device with their outcomes, the others complete", async function () {
    const names = ["ok-1", "bad-1", "off-1", "ok-2"];
    await addDevices(env.sim, names, { faulty: ["bad-1"], offline: ["off-1"] });
    const { f1, report, each } = await start(env.sim, { timeout: "1500" });
    const shown = statuses(f1);
    f1.receive({ payload: ELEMS, devices: names });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      [r.total, r.complete, r.fault, r.timedOut, r.failed, r.notSent],
      [4, 2, 1, 1, 0, 0],
    );
    const d = byDevice(r);
    assert.equal(d["bad-1"].outcome, "fault");
    assert.equal(d["off-1"].outcome, "timed-out");
    assert.ok(d["off-1"].elapsed >= 1500);
    assert.equal(d["ok-1"].outcome, "complete");
    const msgs = await collect(each, 4);
    const outcome = Object.fromEntries(msgs.map((m) => [m.device, m.outcome]));
    assert.deepEqual(outcome, {
      "ok-1": "complete",
      "bad-1": "fault",
      "off-1": "timed-out",
      "ok-2": "complete",
    });
    assert.match(JSON.stringify(msgs.find((m) => m.device === "bad-1").payload), /COMMAND_FAULT/);
    assert.equal(msgs.find((m) => m.device === "off-1").payload, null);
    await noMessage(each, 200);
    assert.deepEqual(shown.at(-1), { fill: "yellow", shape: "dot", text: "2/4 complete · 2 ✗" });
  });

  it("stops the rollout after Max failures: the rest are not sent and the report says aborted", async function () {
    const names = ["x1", "x2", "x3", "x4", "x5"];
    await addDevices(env.sim, names, { faulty: names });
    const { f1, report, each } = await start(env.sim, {
      devices: names.join("\n"),
      concurrency: 1,
      maxFailures: 2,
    });
    const shown = statuses(f1);
    f1.receive({ payload: ELEMS });
    const r = (await next(report, 15000)).payload;
    assert.equal(r.aborted, true);
    assert.deepEqual([r.fault, r.notSent], [2, 3]);
    // 3 devices were never sent anything: the status counts complete devices, never 5/5.
    assert.deepEqual(shown.at(-1), { fill: "red", shape: "dot", text: "aborted: 0/5 complete" });
    assert.deepEqual(
      r.devices.map((d) => d.outcome),
      ["fault", "fault", "not-sent", "not-sent", "not-sent"],
    );
    assert.deepEqual(
      r.devices.map((d) => d.commandId === null),
      [false, false, true, true, true],
    );
    for (const name of ["x3", "x4", "x5"]) assert.equal(await commandsOf(env.sim, name), 0);
    const msgs = await collect(each, 5);
    assert.deepEqual(msgs.map((m) => m.outcome).sort(), [
      "fault",
      "fault",
      "not-sent",
      "not-sent",
      "not-sent",
    ]);
  });

  it("ends a job whose own message is too deep to copy with too-deep-msg, and takes the next job", async function () {
    const names = ["z1", "z2"];
    await addDevices(env.sim, names, { faulty: names });
    const { f1, report, caught } = await start(env.sim, {
      devices: names.join(","),
      concurrency: 1,
      maxFailures: 1,
    });
    let topic = { leaf: true };
    for (let i = 1; i < 1200; i++) topic = { down: topic };
    // z1 faults, the stop rule leaves z2 unsent: every message of the job carries the topic.
    f1.receive({ payload: ELEMS, topic, job: "deep" });
    const err = await next(caught, 10000);
    assert.equal(caughtCode(err), "too-deep-msg");
    assert.equal(err.job, "deep");
    f1.receive({ payload: ELEMS, devices: ["lcd-board"], dryRun: true, job: "next" });
    assert.equal((await next(report, 10000)).payload.job, "next");
    assert.equal(await commandsOf(env.sim, "z2"), 0);
  });

  it("sends none of the devices still waiting for the account once Max failures is reached", async function () {
    const names = ["y1", "y2", "y3", "y4", "y5"];
    await addDevices(env.sim, names);
    // One request at a time: four devices wait for the account while the first is sent.
    const { f1, report } = await start(
      env.sim,
      { devices: names.join(","), concurrency: 5, maxFailures: 1 },
      { rate: 0, concurrency: 1, retries: 0 },
    );
    await control(env.sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      status: 400,
      count: 1,
    });
    f1.receive({ payload: ELEMS });
    const r = (await next(report, 15000)).payload;
    assert.equal(r.aborted, true);
    assert.deepEqual(
      r.devices.map((d) => d.outcome),
      ["failed", "not-sent", "not-sent", "not-sent", "not-sent"],
    );
    for (const name of names) assert.equal(await commandsOf(env.sim, name), 0, name);
  });

  it("starts no more devices a second than its rate", async function () {
    const names = Array.from({ length: 10 }, (_, i) => `r${i}`);
    await addDevices(env.sim, names);
    await control(env.sim, "DELETE", "/requests");
    const { f1, report } = await start(env.sim, { devices: names.join(","), rate: 5 });
    f1.receive({ payload: ELEMS, job: "hall 2" });
    // Half way, the editor's sidebar lists the job with its progress.
    await sleep(700);
    const { rows } = jobsOf("acc", (text) => text);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row.job, "hall 2");
    assert.equal(row.node, "f1");
    assert.equal(row.total, 10);
    assert.equal(row.state, "running");
    assert.ok(row.sent >= 1 && row.sent < 10, JSON.stringify(row));
    const r = (await next(report, 20000)).payload;
    assert.equal(r.complete, 10);
    // Ended: listed a while longer, with how it ended.
    assert.deepEqual(
      jobsOf("acc", (text) => text).rows.map((q) => [q.job, q.state, q.complete]),
      [["hall 2", "done", 10]],
    );
    const posts = (await control(env.sim, "GET", "/requests?limit=1000")).json.filter(
      (q) => `${q.method} ${q.pathname}` === COMMAND_POSTS,
    );
    assert.equal(posts.length, 10);
    const times = posts.map((q) => q.time).sort((a, b) => a - b);
    // Ten starts at five a second are nine gaps of 200 ms: 1.8 s, less the timers' slack.
    const span = times.at(-1) - times[0];
    assert.ok(span >= 1600, `10 devices at rate 5 started within ${span} ms`);
  });

  it("sends a device given twice, or by its id and its name, once; an unknown name fails alone", async function () {
    await addDevices(env.sim, ["d1"]);
    const { f1, report, each } = await start(env.sim);
    f1.receive({
      payload: ELEMS,
      devices: ["d1", "lcd-board", "d1", SEED.lcd.id, "no-such-device"],
    });
    const r = (await next(report, 15000)).payload;
    assert.equal(r.total, 3);
    const d = byDevice(r);
    assert.deepEqual(Object.keys(d), ["d1", "lcd-board", "no-such-device"]);
    assert.equal(d.d1.outcome, "complete");
    assert.equal(d["lcd-board"].outcome, "complete");
    assert.equal(d["no-such-device"].outcome, "failed");
    // A server that lists devices has the device's own 404 (as edge-send-command reports it).
    assert.equal(d["no-such-device"].error, "not-found");
    assert.equal(await commandsOf(env.sim, "d1"), 1);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 1);
    const failed = (await collect(each, 3)).find((m) => m.outcome === "failed");
    assert.equal(failed.device, "no-such-device");
    assert.equal(failed.edgeError.code, "not-found");
    assert.equal(failed.command, null);
  });

  it("fails an unknown name with device-unknown on a server without a device list, the rest unaffected", async function () {
    await addDevices(env.sim, ["k1", "k2"]);
    const { f1, report } = await start(env.sim);
    // The device read of the unknown name and the list it falls back to: both 404.
    await control(env.sim, "POST", "/faults", {
      method: "GET",
      path: "/device",
      status: 404,
      count: 2,
    });
    f1.receive({ payload: ELEMS, devices: ["k1", "nobody", "k2"] });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome, d.error]),
      [
        ["k1", "complete", null],
        ["nobody", "failed", "device-unknown"],
        ["k2", "complete", null],
      ],
    );
    assert.match(byDevice(r).nobody.message, /No device "nobody"/);
  });

  it("resolves the targets of a dry run and sends nothing", async function () {
    await addDevices(env.sim, ["dry-1", "dry-2"]);
    await control(env.sim, "DELETE", "/requests");
    const { f1, report, each } = await start(env.sim, {
      devices: "dry-1, {{topic}}",
      filter: 'name=="lcd-board"',
    });
    f1.receive({ payload: ELEMS, topic: "", dryRun: true });
    const r = (await next(report, 15000)).payload;
    assert.equal(r.dryRun, true);
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome]),
      [
        ["dry-1", "not-sent"],
        ["lcd-board", "not-sent"],
      ],
    );
    assert.equal(r.notSent, 2);
    await noMessage(each, 300);
    const posts = (await control(env.sim, "GET", "/requests?limit=1000")).json.filter(
      (q) => q.method === "POST",
    );
    assert.deepEqual(posts, []);
    for (const name of ["dry-1", "dry-2", "lcd-board"])
      assert.equal(await commandsOf(env.sim, name), 0);
  });

  it("takes the devices a filter lists, and refuses a filter on a server without a device list", async function () {
    await addDevices(env.sim, ["hall2-a", "hall2-b", "hall3-a"]);
    const { f1, report, caught } = await start(env.sim, {
      filter: 'name>="hall2" && name<"hall3"',
    });
    f1.receive({ payload: ELEMS });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome]),
      [
        ["hall2-a", "complete"],
        ["hall2-b", "complete"],
      ],
    );
    await control(env.sim, "POST", "/faults", { method: "GET", path: "/device", status: 404 });
    f1.receive({ payload: ELEMS });
    const err = await next(caught, 10000);
    assert.equal(caughtCode(err), "no-device-list");
    assert.equal(await commandsOf(env.sim, "hall3-a"), 0);
  });

  it("stops sending on msg.cancel: what was sent is awaited, the rest not sent; the cancel has no output", async function () {
    const names = Array.from({ length: 8 }, (_, i) => `c${i}`);
    await addDevices(env.sim, names);
    const { f1, report, each, caught } = await start(env.sim, {
      devices: names.join(","),
      rate: 4,
    });
    const shown = statuses(f1);
    f1.receive({ payload: ELEMS });
    await next(each, 10000);
    f1.receive({ cancel: true });
    const out = await next(report, 15000);
    const r = out.payload;
    assert.equal(r.cancelled, true);
    assert.equal(r.aborted, false);
    assert.ok(r.complete >= 1 && r.notSent >= 1, JSON.stringify(r));
    assert.equal(r.complete + r.notSent, 8);
    // The same count as the report's and the sidebar's: complete devices of all, not 8/8.
    assert.deepEqual(shown.at(-1), {
      fill: "green",
      shape: "dot",
      text: `cancelled: ${r.complete}/8 complete`,
    });
    for (const d of r.devices)
      assert.equal(await commandsOf(env.sim, d.device), d.outcome === "complete" ? 1 : 0);
    await noMessage(report, 300);
    assert.equal(caught.received.length, 0);
  });

  it("cancels a job whose devices are still being resolved: none is sent", async function () {
    const { f1, report, caught } = await start(env.sim);
    // The id's look-up (GET /device/<id>) answers late, so the cancel comes during it.
    await control(env.sim, "POST", "/faults", {
      method: "GET",
      path: `/device/${SEED.lcd.id}`,
      delayMs: 500,
    });
    f1.receive({ payload: ELEMS, devices: [SEED.lcd.id] });
    await sleep(150);
    f1.receive({ cancel: true });
    const r = (await next(report, 10000)).payload;
    assert.equal(r.cancelled, true);
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome]),
      [["lcd-board", "not-sent"]],
    );
    assert.equal(await commandsOf(env.sim, "lcd-board"), 0);
    assert.equal(caught.received.length, 0);
  });

  it("runs one job at a time: a message during a job waits for it", async function () {
    await addDevices(env.sim, ["q1", "q2"]);
    const { f1, report } = await start(env.sim, { rate: 2 });
    f1.receive({ payload: ELEMS, devices: ["q1", "q2"], job: "first" });
    f1.receive({ payload: ELEMS, devices: ["q2"], job: "second" });
    const [a, b] = await collect(report, 2, 15000);
    assert.equal(a.payload.job, "first");
    assert.equal(b.payload.job, "second");
    assert.ok(b.payload.startedAt >= a.payload.endedAt);
    assert.equal(await commandsOf(env.sim, "q2"), 2);
  });

  it("refuses more than 10,000 devices with too-many-devices before any request, and counts a name given 10,000 times once", async function () {
    const { f1, report, caught } = await start(env.sim);
    await control(env.sim, "DELETE", "/requests");
    const many = Array.from({ length: 20_000 }, (_, i) => `m-${i}`);
    f1.receive({ payload: ELEMS, devices: many, dryRun: true });
    assert.equal(caughtCode(await next(caught, 10000)), "too-many-devices");
    assert.deepEqual((await control(env.sim, "GET", "/requests")).json, []);
    f1.receive({ payload: ELEMS, devices: Array(10_000).fill("lcd-board"), dryRun: true });
    const r = (await next(report, 10000)).payload;
    assert.deepEqual(
      r.devices.map((d) => d.device),
      ["lcd-board"],
    );
  });

  it("reports bad input to a Catch node before any request", async function () {
    const { f1, report, caught } = await start(env.sim);
    await control(env.sim, "DELETE", "/requests");
    f1.receive({ payload: ELEMS, devices: "lcd-board" });
    assert.equal(caughtCode(await next(caught)), "bad-devices");
    f1.receive({ payload: ELEMS, devices: ["lcd-board", { id: 1 }] });
    assert.equal(caughtCode(await next(caught)), "bad-devices");
    f1.receive({ payload: "not elems", devices: ["lcd-board"] });
    assert.equal(caughtCode(await next(caught)), "not-object");
    f1.receive({ payload: ELEMS });
    assert.equal(caughtCode(await next(caught)), "devices-empty");
    await sleep(100);
    assert.equal(report.received.length, 0);
    assert.deepEqual((await control(env.sim, "GET", "/requests")).json, []);
  });

  it("names in its error the wrong entry of msg.devices as the user gave it: NaN, null, blank, an object with a __proto__", async function () {
    const { f1, caught } = await start(env.sim);
    const sentences = [];
    for (const devices of [
      ["lcd-board", NaN],
      [null],
      ["  "],
      [Infinity],
      // What a Function node's `[{ __proto__: {...} }]` makes: the key sets the prototype.
      vm.runInNewContext('[{ "__proto__": { id: "lcd-board" } }]'),
    ]) {
      f1.receive({ payload: ELEMS, devices });
      const err = await next(caught);
      assert.equal(caughtCode(err), "bad-devices");
      sentences.push(err.error.message);
    }
    assert.deepEqual(sentences.slice(0, 4), [
      "msg.devices must be an array of device ids or names ([1] NaN)",
      "msg.devices must be an array of device ids or names ([0] null)",
      "msg.devices must be an array of device ids or names ([0] blank)",
      "msg.devices must be an array of device ids or names ([0] Infinity)",
    ]);
    assert.match(
      sentences[4],
      /\[0\] an object whose prototype is another object, as a "__proto__" key/,
    );
    // The same object as the elems: not "got a Object".
    f1.receive({
      payload: vm.runInNewContext('({ "__proto__": { "/lcd/txt1": "x" } })'),
      devices: ["lcd-board"],
    });
    const elems = await next(caught);
    assert.equal(caughtCode(elems), "not-plain");
    assert.match(
      elems.error.message,
      /got an object whose prototype is another object, as a "__proto__" key/,
    );
  });

  it("tells a message with no device to set Devices, Filter or msg.devices, also when the Filter renders blank", async function () {
    const { f1, caught } = await start(env.sim, { filter: "{{topic}}" });
    await control(env.sim, "DELETE", "/requests");
    for (const msg of [{ topic: "  " }, { devices: [] }]) {
      f1.receive({ payload: ELEMS, ...msg });
      const err = await next(caught);
      assert.equal(caughtCode(err), "devices-empty");
      assert.equal(
        err.error.message,
        "No device: set the node's Devices or Filter property, or msg.devices (an array of device ids or names)",
      );
      assert.doesNotMatch(err.error.message, /deviceId/);
    }
    assert.deepEqual((await control(env.sim, "GET", "/requests")).json, []);
  });

  it("counts a device's retries in its elapsed: from its first send attempt to its outcome", async function () {
    await addDevices(env.sim, ["e1"]);
    const { f1, report, each } = await start(
      env.sim,
      { devices: "e1" },
      { rate: 0, concurrency: 4, retries: 0 },
    );
    await refuseNextSendWith429(env.sim);
    f1.receive({ payload: ELEMS });
    const [d] = (await next(report, 15000)).payload.devices;
    assert.equal(d.outcome, "complete");
    // The second try went after the server's Retry-After of one second.
    assert.ok(d.elapsed >= 1000, `elapsed ${d.elapsed} ms leaves out the first try`);
    assert.equal((await next(each)).elapsed, d.elapsed);
  });

  it("gives each device message the input's topic, and no topic key when the input has none", async function () {
    await addDevices(env.sim, ["tp1"]);
    const { f1, report, each } = await start(env.sim, { devices: "tp1" });
    f1.receive({ payload: ELEMS });
    await next(report, 15000);
    const untitled = await next(each);
    assert.equal(untitled.device, "tp1");
    assert.equal(Object.hasOwn(untitled, "topic"), false, "a topic key without a topic");
    f1.receive({ payload: ELEMS, topic: "hall 2" });
    await next(report, 15000);
    assert.equal((await next(each)).topic, "hall 2");
  });

  it("waits for room when its Concurrency is more than the account's At once and Queue: no device fails queue-full", async function () {
    const names = Array.from({ length: 12 }, (_, i) => `w${i}`);
    await addDevices(env.sim, names);
    const { f1, report, each, caught } = await start(
      env.sim,
      { devices: names.join(","), concurrency: 12 },
      { rate: 0, concurrency: 2, queue: 3 },
    );
    f1.receive({ payload: ELEMS });
    const r = (await next(report, 20000)).payload;
    assert.deepEqual(
      r.devices.filter((d) => d.outcome !== "complete"),
      [],
    );
    assert.equal(r.complete, 12);
    for (const name of names) assert.equal(await commandsOf(env.sim, name), 1);
    assert.equal((await collect(each, 12)).length, 12);
    assert.equal(caught.received.length, 0);
  });

  it("sends again, after its Retry-After, a device whose command the server refused with 429", async function () {
    await addDevices(env.sim, ["t1", "t2"]);
    const { f1, report, caught } = await start(
      env.sim,
      { devices: "t1, t2", concurrency: 1 },
      { rate: 0, concurrency: 4, retries: 0 },
    );
    await refuseNextSendWith429(env.sim);
    f1.receive({ payload: ELEMS });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome, d.error]),
      [
        ["t1", "complete", null],
        ["t2", "complete", null],
      ],
    );
    assert.equal(await commandsOf(env.sim, "t1"), 1);
    assert.equal(caught.received.length, 0);
  });

  it("looks up more ids than the account's At once and Queue hold without failing any with queue-full", async function () {
    const { f1, report } = await start(env.sim, {}, { rate: 0, concurrency: 1, queue: 1 });
    const ids = [SEED.lcd.id, SEED.sensorHub.id, SEED.pump.id];
    f1.receive({ payload: ELEMS, devices: ids, dryRun: true });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome, d.error]),
      ["lcd-board", "sensor-hub", "pump-3"].map((n) => [n, "not-sent", null]),
    );
  });

  it("fails a device named with a slash or as dots alone, with its message on output 2, the rest unaffected", async function () {
    await addDevices(env.sim, ["s1"]);
    const { f1, report, each, caught } = await start(env.sim);
    f1.receive({ payload: ELEMS, devices: ["s1", "hall/2", ".."] });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome, d.error]),
      [
        ["s1", "complete", null],
        ["hall/2", "failed", "bad-device"],
        ["..", "failed", "dot-name"],
      ],
    );
    const msgs = await collect(each, 3, 5000);
    assert.deepEqual(msgs.map((m) => [m.device, m.outcome]).sort(), [
      ["..", "failed"],
      ["hall/2", "failed"],
      ["s1", "complete"],
    ]);
    assert.equal(await commandsOf(env.sim, "s1"), 1);
    assert.equal(caught.received.length, 0);
  });

  it("gives a device whose id cannot be looked up its message on output 2 as well", async function () {
    await addDevices(env.sim, ["m1"]);
    const { f1, report, each } = await start(env.sim);
    const unknownId = "d0123456789abcdef01234567";
    f1.receive({ payload: ELEMS, devices: ["m1", unknownId] });
    const r = (await next(report, 15000)).payload;
    assert.deepEqual(
      r.devices.map((d) => [d.device, d.outcome]),
      [
        ["m1", "complete"],
        [unknownId, "failed"],
      ],
    );
    const msgs = await collect(each, 2, 5000);
    const failed = msgs.find((m) => m.device === unknownId);
    assert.equal(failed.outcome, "failed");
    assert.equal(failed.edgeError.code, byDevice(r)[unknownId].error);
    assert.equal(failed.command, null);
    await noMessage(each, 200);
  });

  it("leaves no listener behind on the node's abort signal after each job", async function () {
    await addDevices(env.sim, ["l1"]);
    // The signals listened to, with how often: the node's is listened to by every job (and by
    // its queued calls), each request's own signal by the abort hub once.
    const adds = new Map();
    const add = AbortSignal.prototype.addEventListener;
    AbortSignal.prototype.addEventListener = function (...args) {
      adds.set(this, (adds.get(this) ?? 0) + 1);
      return add.apply(this, args);
    };
    const listeners = () =>
      [...adds].reduce(
        (n, [s, times]) => n + (times > 1 ? getEventListeners(s, "abort").length : 0),
        0,
      );
    try {
      const { f1, report } = await start(env.sim);
      f1.receive({ payload: ELEMS, devices: ["l1"] });
      await next(report, 15000);
      const afterOne = listeners();
      for (let i = 0; i < 3; i++) {
        f1.receive({ payload: ELEMS, devices: ["l1"] });
        await next(report, 15000);
      }
      assert.equal(listeners(), afterOne, "listeners grow with each job");
    } finally {
      AbortSignal.prototype.addEventListener = add;
    }
  });

  it("runs the jobs queued at a full deploy on the redeployed node: each message ends once, in its report", async function () {
    await addDevices(env.sim, ["slow-q"], { offline: ["slow-q"] });
    await addDevices(env.sim, ["rq1", "rq2", "rq3"]);
    const { nodes, credentials } = fleetFlow(env.sim, { timeout: "1500" });
    await load(nodes, credentials, [CORE.catch, FLEET]);
    const f1 = helper.getNode("f1");
    const jobs = ["running", "queued 1", "queued 2", "queued 3", "queued 4", "queued 5"];
    f1.receive({ payload: ELEMS, devices: ["slow-q"], job: "running" });
    f1.receive({ payload: ELEMS, devices: ["rq1"], job: "queued 1" });
    f1.receive({ payload: ELEMS, devices: ["rq2", "rq3"], job: "queued 2" });
    f1.receive({ payload: ELEMS, devices: ["rq1"], job: "queued 3", dryRun: true });
    f1.receive({ payload: ELEMS, devices: ["no-such-q"], job: "queued 4" });
    f1.receive({ payload: ELEMS, devices: ["rq3"], job: "queued 5" });
    await waitFor(async () => (await commandsOf(env.sim, "slow-q")) === 1, { what: "job 1 sent" });
    const before = [helper.getNode("report"), helper.getNode("caught")];
    await deploy(nodes, "full", credentials);
    assert.notEqual(helper.getNode("f1"), f1, "the fleet node was restarted");
    for (const old of before) assert.deepEqual(old.received, [], `${old.id} before the deploy`);
    const got = [];
    for (const id of ["report", "caught"])
      helper.getNode(id).on("input", (msg) => got.push([id, msg]));
    await waitFor(() => got.length >= jobs.length, { timeoutMs: 15000, what: "six ends" });
    await sleep(300);
    const reports = got.filter(([id]) => id === "report").map(([, m]) => m.payload);
    assert.deepEqual(
      got.map(([id, m]) => [id, m.job]),
      jobs.map((job) => ["report", job]),
    );
    assert.deepEqual(
      reports.map((r) => [r.job, r.restored, r.dryRun, r.devices.map((d) => d.outcome)]),
      [
        ["running", true, false, ["timed-out"]],
        ["queued 1", true, false, ["complete"]],
        ["queued 2", true, false, ["complete", "complete"]],
        ["queued 3", true, true, ["not-sent"]],
        ["queued 4", true, false, ["failed"]],
        ["queued 5", true, false, ["complete"]],
      ],
    );
    assert.equal(await commandsOf(env.sim, "slow-q"), 1);
    assert.equal(await commandsOf(env.sim, "rq1"), 1);
    assert.equal(await commandsOf(env.sim, "rq3"), 2);
  });

  it("refuses a message past its own queue of 100 with queue-full; the queued ones run in turn", async function () {
    await addDevices(env.sim, ["slow-1"], { offline: ["slow-1"] });
    const { f1, report, caught } = await start(env.sim, { timeout: "1500" });
    f1.receive({ payload: ELEMS, devices: ["slow-1"], job: "first" });
    for (let i = 0; i < 100; i++)
      f1.receive({ payload: ELEMS, devices: ["lcd-board"], dryRun: true, job: `dry ${i}` });
    f1.receive({ payload: ELEMS, devices: ["lcd-board"], job: "one too many" });
    assert.equal(caughtCode(await next(caught, 5000)), "queue-full");
    const reports = await collect(report, 101, 20000);
    assert.deepEqual(
      reports.map((m) => m.payload.job),
      ["first", ...Array.from({ length: 100 }, (_, i) => `dry ${i}`)],
    );
    assert.equal(reports[0].payload.timedOut, 1);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 0);
    await noMessage(caught, 200);
  });
});
