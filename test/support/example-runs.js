// The examples run against the simulator in a real Node-RED (test helper), as a user runs them:
// only the account's base URL and credentials filled in, as the comment in each flow tells users.
// test/package/examples.spec.js runs the files in examples/; test/package/saved-flows.spec.js runs
// the same checks on the examples as 0.1.0 saved them (test/fixtures/flows-0.1.0.json), so that
// an example that changes is still checked as users saved it before.
"use strict";
const assert = require("node:assert/strict");
const { control, sleep, waitFor } = require("./simulator");
const { helper, load, statuses, withRedAndSimulator } = require("./red");

const CORE_FILES = {
  inject: "common/20-inject.js",
  debug: "common/21-debug.js",
  catch: "common/25-catch.js",
  comment: "common/90-comment.js",
  function: "function/10-function.js",
  join: "sequence/17-split.js",
  switch: "function/10-switch.js",
  change: "function/15-change.js",
  "http proxy": "network/06-httpproxy.js",
  rbe: "function/rbe.js",
  "tls-config": "network/05-tls.js",
};
const core = (type) => require(`@node-red/nodes/core/${CORE_FILES[type]}`);
/** Ours beyond the nodes test/support/red.js loads for every flow. */
const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");

/** The example as Node-RED loads it, pointed at this test's simulator. */
function prepared(flow, sim) {
  return flow.map((n) => (n.type === "edge-account" ? { ...n, baseUrl: sim.url } : n));
}

function credentialsOf(flow, sim) {
  const creds = {};
  for (const n of flow)
    if (n.type === "edge-account") creds[n.id] = { user: sim.user, token: sim.token };
  return creds;
}

/** Loads an example and records what reaches each of its debug nodes, by name. */
async function run(flow, sim) {
  const nodes = prepared(flow, sim);
  const coreTypes = [...new Set(nodes.map((n) => n.type))].filter((t) => CORE_FILES[t]);
  const extra = coreTypes.map(core);
  if (nodes.some((n) => n.type === "edge-fleet-command")) extra.push(FLEET);
  await load(nodes, credentialsOf(flow, sim), extra);
  const seen = {};
  const waiters = [];
  for (const n of nodes.filter((x) => x.type === "debug")) {
    seen[n.name] = [];
    helper.getNode(n.id).on("input", (msg) => {
      seen[n.name].push(msg);
      for (const w of waiters.splice(0)) w();
    });
  }
  const inject = (name) => {
    const node = nodes.find((n) => n.type === "inject" && n.name === name);
    assert.ok(node, `no inject node named ${name}`);
    helper.getNode(node.id).receive({});
  };
  /** Resolves with the debug messages of `name` once there are n of them (within ms). */
  const debugged = (name, n = 1, ms = 5000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const errors = (seen.error ?? []).map((m) => m.error && m.error.message);
        reject(new Error(`${seen[name]?.length ?? 0}/${n} at debug "${name}"; errors: ${errors}`));
      }, ms);
      const check = () => {
        if ((seen[name]?.length ?? 0) >= n) {
          clearTimeout(timer);
          resolve(seen[name].slice(0, n));
        } else waiters.push(check);
      };
      check();
    });
  return { inject, debugged, seen };
}

/**
 * The tests of the six examples against a fresh simulator each; `example(file)` gives the flow of
 * an example by its file name in examples/.
 */
function exampleRuns(example) {
  const env = withRedAndSimulator({ commandDelayMs: 20 });

  it("should read, replace and merge the lcd-board state", async function () {
    const { inject, debugged } = await run(
      example("01-device-state-read-replace-merge.json"),
      env.sim,
    );
    inject("read");
    const [read] = await debugged("state");
    assert.deepEqual(read.payload, { "/lcd/txt1": "Hello", "/lcd/txt2": "" });
    inject("replace: two lines");
    const [replaced] = await debugged("replaced state");
    assert.deepEqual(replaced.payload, {
      "/lcd/txt1": "Replaced",
      "/lcd/txt2": "by the example",
    });
    inject("merge: second line");
    const [merged] = await debugged("merged state");
    assert.deepEqual(merged.payload, {
      "/lcd/txt1": "Replaced",
      "/lcd/txt2": "merged at the second line",
    });
  });

  it("should read, replace and merge by device name against a server that knows ids only", async function () {
    const { startRestricted } = require("../support/restricted-server");
    const server = await startRestricted(env.sim, { idsOnly: true });
    try {
      const { inject, debugged } = await run(
        example("01-device-state-read-replace-merge.json"),
        server,
      );
      inject("read");
      const [read] = await debugged("state");
      assert.equal(read.payload["/lcd/txt1"], "Hello");
      inject("replace: two lines");
      await debugged("replaced state");
      inject("merge: second line");
      const [merged] = await debugged("merged state");
      assert.equal(merged.payload["/lcd/txt2"], "merged at the second line");
      assert.ok(server.seen.includes("GET /v5.0/demo/device/lcd-board"), "no name was tried");
    } finally {
      await server.close();
    }
  });

  it("should send a command and end on each of the three await outputs", async function () {
    const flow02 = example("02-send-command-and-await-result.json");
    const { inject, debugged, seen } = await run(flow02, env.sim);
    inject("text → complete");
    const [complete] = await debugged("complete");
    assert.match(JSON.stringify(complete.payload.elems), /COMMAND_COMPLETE/);
    assert.equal(complete.command.device, "lcd-board");
    inject("unknown resource → fault");
    const [fault] = await debugged("fault");
    assert.match(JSON.stringify(fault.payload.elems), /COMMAND_FAULT/);
    // The device is offline while the 5 ms wait runs: online, it answers 20 ms after the command,
    // and a read after the deadline that a loaded machine delays past that finds the result (the
    // wait then ends complete, as it should, and "timed out" never came: issue 36).
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    inject("5 ms wait → timed out");
    const [timedOut] = await debugged("timed out");
    assert.equal(timedOut.payload, null);
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
    // The warning the comment announces, under the await node's name.
    const awaitNode = flow02.find((n) => n.type === "edge-await-command");
    const warned = helper
      .getNode(awaitNode.id)
      .warn.getCalls()
      .map((c) => String(c.args[0]));
    assert.ok(
      warned.some((w) => /ttl \(10000 ms\) is longer than this node's timeout \(5 ms\)/.test(w)),
      JSON.stringify(warned),
    );
    assert.ok(awaitNode.name);
    assert.equal((await debugged("sent event", 3)).length, 3);
    assert.equal(seen.error.length, 0);
    // The fault comes of an object msg.payload sent in place of the typed Elems: the example
    // chooses that (Command: msg.payload) and is not warned; 0.1.0 saved the node without a
    // Command, and it keeps that version's rule, said once.
    const sendNode = flow02.find((n) => n.type === "edge-send-command");
    const sender = helper.getNode(sendNode.id);
    const sendWarned = sender.warn
      .getCalls()
      .filter((c) => c.thisValue === sender)
      .map((c) => String(c.args[0]));
    if (sendNode.elemsFrom === undefined) {
      assert.equal(sendWarned.length, 1, JSON.stringify(sendWarned));
      assert.match(sendWarned[0], /as nodes saved by version 0\.1\.0 do/);
    } else assert.deepEqual(sendWarned, []);
    const lcd = await control(env.sim, "GET", "/devices/lcd-board");
    assert.equal(lcd.status, 200);
  });

  it("should complete a command whose ttl is within the await's timeout, without a ttl warning", async function () {
    const { inject, debugged, seen } = await run(
      example("06-command-ttl-within-timeout.json"),
      env.sim,
    );
    inject("text, ttl 5 s");
    const [complete] = await debugged("complete");
    assert.equal(complete.command.ttl, 5000);
    assert.equal(seen.error?.length ?? 0, 0);
    const awaitNode = helper.getNode("e5a1c0d600000006");
    assert.equal(typeof awaitNode.warn.callCount, "number");
    // The test helper configures no context store, as Node-RED's shipped settings.js: the node
    // says once that a restart loses its waits, and that is its only warning.
    const warnings = awaitNode.warn.getCalls().map((call) => String(call.args[0]));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0], /^The context store of this node's pending waits is not persistent/);
  });

  it("should list the five readings page by page, all at once and one per event, while telemetry grows", async function () {
    const { inject, debugged, seen } = await run(
      example("03-list-events-page-by-page-and-all.json"),
      env.sim,
    );
    // What sensor-hub does under npm start (example 05's stream): it must not reach example 03.
    const report = await control(env.sim, "POST", "/events", {
      path: "/demo/telemetry",
      elems: { temperature: 23, humidity: 42, device: "sensor-hub" },
    });
    assert.ok(report.status < 300, `the reading was not added: ${report.status}`);
    inject("page by page");
    const pages = await debugged("one page", 3);
    assert.deepEqual(
      pages.map((m) => m.payload.length),
      [2, 2, 1],
    );
    assert.deepEqual(
      pages.map((m) => m.paging.start),
      [0, 2, 4],
    );
    inject("all at once");
    const [all] = await debugged("all events");
    assert.equal(all.payload.length, 5);
    assert.deepEqual(
      all.payload.map((e) => e.id),
      pages.flatMap((m) => m.payload.map((e) => e.id)),
    );
    inject("one per event");
    assert.equal((await debugged("each event", 5)).length, 5);
    const [joined] = await debugged("joined");
    assert.equal(joined.payload.length, 5);
    assert.equal(seen["one page"].length, 3, "the page loop stops at the short page");
    assert.equal(seen.error.length, 0);
  });

  it("should set the LCD text, wait for completion and read the inbox markers", async function () {
    const { inject, debugged, seen } = await run(
      example("04-set-lcd-text-await-read-events.json"),
      env.sim,
    );
    inject("set LCD text");
    const [events] = await debugged("inbox events");
    const text = JSON.stringify(events.payload);
    assert.match(text, /COMMAND_COMPLETE/);
    assert.match(text, /COMMAND_START/);
    assert.ok(events.payload.length <= 5);
    const commands = await fetch(`${env.sim.url}/_sim/devices/lcd-board`).then((r) => r.json());
    assert.equal(commands.pendingCommands, 0);
    assert.equal(seen.fault.length + seen["timed out"].length + seen.error.length, 0);
  });

  it("should switch the pump on a telemetry threshold, only when it changes, and await each result", async function () {
    const flow = example("05-watch-telemetry-threshold-command.json");
    const { debugged, seen } = await run(flow, env.sim);
    const watch = flow.find((n) => n.type === "edge-watch-events");
    const shown = statuses(helper.getNode(watch.id));
    await waitFor(() => shown.some((s) => s.text === "watching"), {
      timeoutMs: 10000,
      what: "the watch to start",
    });
    // What sensor-hub reports with the simulator's --telemetry, one reading at a time.
    const report = (temperature) =>
      control(env.sim, "POST", "/events", {
        path: "/demo/telemetry",
        elems: { temperature, humidity: 42, device: "sensor-hub" },
      });
    await report(24.1);
    const [off] = await debugged("complete", 1, 10000);
    assert.equal(off.command.device, "pump-3");
    await report(25.6);
    const [, on] = await debugged("complete", 2, 10000);
    assert.match(JSON.stringify(on.payload.elems), /COMMAND_COMPLETE/);
    // Still above the threshold: no new command.
    await report(25.9);
    await debugged("telemetry", 3, 10000);
    // Give a wrong third command time to show up (as noMessage does elsewhere).
    await sleep(1000);
    const pump = await control(env.sim, "GET", "/devices/pump-3");
    assert.equal(pump.json.streams.command.count, 2, "commands sent");
    assert.equal(seen.complete.length, 2);
    assert.deepEqual(
      seen.telemetry.map((m) => m.payload.elems.temperature),
      [24.1, 25.6, 25.9],
    );
    assert.equal(seen.fault.length + seen["timed out"].length + seen.error.length, 0);
  });
}

module.exports = { CORE_FILES, exampleRuns, run };
