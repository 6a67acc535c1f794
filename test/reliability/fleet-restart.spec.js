// edge-fleet-command across a Node-RED restart in the middle of a job: a real Node-RED process
// with a `localfilesystem` context store, stopped (as a user stops it, with SIGINT, so the store
// flushes) and started again on the same user directory. One device's command is created by the
// server but its answer held back until after the stop, so the job stops while that device is
// being sent: the restarted job must find the command in the device's :command stream and await
// it, not send it again. What leaves the node is posted to a collector in this process.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { api, control, waitFor, sleep } = require("../support/simulator");
const { withRestarts, deployFlows, pressInject } = require("../support/node-red-process");
const { addDevices, commandsOf, commandsOfAll, fleetProcessFlow } = require("../support/fleet");
const { savedJob } = require("../support/saved-jobs");

const WAIT = 30000;
const DEVICES = ["fr-1", "fr-2", "fr-3", "fr-4", "fr-5"];

/** Inject i1 into fleet f1; the report is posted to /report, each device's message to /device. */
const flows = (sim, sink, fleetProps = {}, accountProps = {}) =>
  fleetProcessFlow(sim, sink, {
    label: "fleet restart",
    text: "after a restart",
    keep: "kept",
    devices: DEVICES,
    report: "report: msg.payload, keep: msg.keep",
    device: "device: msg.device, outcome: msg.outcome, id: msg.command && msg.command.id",
    accountProps,
    fleetProps: { concurrency: 2, timeout: "60000", ...fleetProps },
  });

describe("edge-fleet-command across a Node-RED restart", function () {
  this.timeout(180000);
  const env = withRestarts("/report", "/device", "/error");

  /** Five offline devices; the first command is created at once but answered 20 s later. */
  async function prepare() {
    await addDevices(env.sim, DEVICES, { offline: DEVICES });
    await control(env.sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      answerDelayMs: 20000,
      count: 1,
    });
  }

  /** Concurrency 2: two devices are sent (one still waiting for its answer), three are not. */
  async function twoSent() {
    await pressInject(env.red, WAIT);
    await waitFor(async () => (await commandsOfAll(env.sim, DEVICES)) === 2, {
      timeoutMs: WAIT,
      intervalMs: 100,
      what: "two commands sent",
    });
    await sleep(300);
  }

  /** Brings the devices online and checks the one report and the five device messages. */
  async function checkResumed() {
    const { sim, sink } = env;
    for (const name of DEVICES)
      await control(sim, "PUT", `/devices/${name}/online`, { online: true });
    await waitFor(() => sink.got["/report"].length >= 1, {
      timeoutMs: WAIT,
      intervalMs: 100,
      what: `the report (errors ${JSON.stringify(sink.got["/error"])})\n${env.red?.output().slice(-3000)}`,
    });
    const [{ report, keep }] = sink.got["/report"];
    assert.equal(keep, "kept");
    assert.equal(report.restored, true);
    assert.equal(report.total, 5);
    assert.equal(report.complete, 5, JSON.stringify(report));
    assert.deepEqual(report.devices.map((d) => d.device).sort(), DEVICES);
    for (const name of DEVICES)
      assert.equal(await commandsOf(env.sim, name), 1, `${name} sent twice`);
    await sleep(1500);
    assert.equal(sink.got["/report"].length, 1);
    const each = sink.got["/device"];
    assert.deepEqual(each.map((m) => m.device).sort(), DEVICES);
    assert.ok(each.every((m) => m.outcome === "complete" && typeof m.id === "string"));
    assert.deepEqual(sink.got["/error"], []);
  }

  it("resumes the job after a restart: no device is sent the command twice, the report accounts for each once", async function () {
    await prepare();
    await env.startRed();
    await deployFlows(env.red.url, flows(env.sim, env.sink));
    await twoSent();
    await env.stopRed();
    assert.deepEqual(env.sink.got["/report"], []);
    assert.deepEqual(env.sink.got["/device"], []);
    await env.startRed();
    await checkResumed();
  });

  it("runs a job queued behind the running one after a restart, once, after the resumed job", async function () {
    await prepare();
    await env.startRed();
    await deployFlows(env.red.url, flows(env.sim, env.sink));
    await twoSent();
    // A second, identical job waits for its turn when Node-RED stops.
    await pressInject(env.red, WAIT);
    await sleep(300);
    await env.stopRed();
    assert.deepEqual(env.sink.got["/report"], []);
    await env.startRed();
    for (const name of DEVICES)
      await control(env.sim, "PUT", `/devices/${name}/online`, { online: true });
    await waitFor(() => env.sink.got["/report"].length >= 2, {
      timeoutMs: WAIT,
      intervalMs: 100,
      what: "two reports",
    });
    const [first, second] = env.sink.got["/report"].map((r) => r.report);
    assert.notEqual(first.job, second.job);
    assert.ok(second.startedAt >= first.endedAt, "the queued job ran after the resumed one");
    for (const r of [first, second]) {
      assert.equal(r.restored, true);
      assert.equal(r.complete, 5, JSON.stringify(r));
    }
    assert.equal(env.sink.got["/report"][1].keep, "kept");
    // Once per job: neither job sent a device twice, and the queued one was not lost.
    for (const name of DEVICES) assert.equal(await commandsOf(env.sim, name), 2, name);
    await sleep(1000);
    assert.equal(env.sink.got["/report"].length, 2);
    assert.deepEqual(env.sink.got["/error"], []);
  });

  it("drops a saved job whose settings are out of range or whose devices are over 10,000, with a warning naming the node, and runs the next job", async function () {
    const { sim, sink } = env;
    await addDevices(sim, DEVICES);
    await env.startRed();
    await deployFlows(env.red.url, flows(sim, sink));
    await env.stopRed();
    // Saved jobs as an edited or copied store file could hold them: In flight 0 would start no
    // device and hold the node's turn for good; 10,001 devices pass the bound of every loop.
    const startedAt = Date.now() - 1000;
    const job = (name, settings, devices) =>
      savedJob(name, {
        startedAt,
        settings: { intervalMs: 200, concurrency: 2, ...settings },
        devices,
        msg: { _msgid: `m-${name}`, payload: {} },
      });
    const pending = [{ device: "fr-1", state: "pending" }];
    const many = Array.from({ length: 10_001 }, (_, i) => ({
      device: `many-${i}`,
      state: "ended",
      outcome: "not-sent",
    }));
    const bad = {
      "edgewire-fleet-bad-concurrency": [
        "settings.concurrency",
        job("zero", { concurrency: 0 }, pending),
      ],
      "edgewire-fleet-bad-rate": ["settings.rate", job("fast", { rate: -1 }, pending)],
      "edgewire-fleet-bad-devices": ["devices", job("many", {}, many)],
    };
    const file = path.join(env.userDir, "context", "t1", "f1.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify(Object.fromEntries(Object.entries(bad).map(([k, [, v]]) => [k, v]))),
    );
    const red = await env.startRed();
    await pressInject(red, WAIT);
    await waitFor(() => sink.got["/report"].length >= 1, {
      timeoutMs: WAIT,
      intervalMs: 100,
      what: `the report (errors ${JSON.stringify(sink.got["/error"])})\n${red.output().slice(-3000)}`,
    });
    const [{ report }] = sink.got["/report"];
    assert.equal(report.restored, false);
    assert.equal(report.complete, 5, JSON.stringify(report));
    await sleep(500);
    assert.equal(sink.got["/report"].length, 1, "a dropped job reported");
    const log = red.output();
    for (const [key, [field]] of Object.entries(bad)) {
      const line =
        `[warn] [edge-fleet-command:f1] A saved fleet job (${key}) ` +
        `is not valid (field ${field}) and was dropped`;
      assert.ok(log.includes(line), `no warning for ${key}:\n${log}`);
    }
  });

  it("does not send again a device that a later process sent for a cleanly stopped job before it was killed", async function () {
    // The restart property's schedule (seed -1382766675, path 2): a job saved at a clean stop
    // (SIGINT) was resumed by the next process, which sent two devices and was killed before its
    // store wrote; the third process read the clean stop's record, took it for exact and sent both
    // again. Here the store holds that record and the server those two commands.
    const { sim, sink } = env;
    await addDevices(sim, DEVICES);
    await env.startRed();
    await deployFlows(env.red.url, flows(sim, sink));
    await env.stopRed();
    const stoppedAt = Date.now() - 2000;
    const record = {
      ...savedJob("j-clean", {
        startedAt: stoppedAt - 1000,
        settings: { concurrency: 2, timeoutMs: 20000, intervalMs: 200 },
        devices: DEVICES.map((device) => ({ device, state: "pending" })),
        msg: { _msgid: "m-clean", payload: {}, keep: "kept" },
      }),
      savedAt: stoppedAt,
      closedAt: stoppedAt,
    };
    const file = path.join(env.userDir, "context", "t1", "f1.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ "edgewire-fleet-j-clean": record }));
    // What the killed process sent after that stop, with the job's elems.
    for (const device of DEVICES.slice(0, 2)) {
      const body = {
        path: `/${sim.company}/devices/${device}/:command`,
        elems: record.settings.elems,
      };
      const sent = await api(sim, "POST", "/event", { body });
      assert.equal(sent.status, 201, sent.text);
    }
    await env.startRed();
    await waitFor(() => sink.got["/report"].length >= 1, {
      timeoutMs: WAIT,
      intervalMs: 100,
      what: `the report (errors ${JSON.stringify(sink.got["/error"])})\n${env.red?.output().slice(-3000)}`,
    });
    const [{ report }] = sink.got["/report"];
    assert.equal(report.restored, true);
    assert.equal(report.complete, 5, JSON.stringify(report));
    for (const name of DEVICES) assert.equal(await commandsOf(sim, name), 1, `${name} sent twice`);
    // The two it found say that their command may have been told before.
    const told = sink.got["/device"].filter((m) => DEVICES.slice(0, 2).includes(m.device));
    assert.equal(told.length, 2, JSON.stringify(sink.got["/device"]));
    assert.deepEqual(sink.got["/error"], []);
  });

  it("resumes the job after a full redeploy with Node-RED's default store", async function () {
    await prepare();
    await env.startRed();
    const nodes = flows(env.sim, env.sink, { store: "" });
    await deployFlows(env.red.url, nodes);
    await twoSent();
    await deployFlows(env.red.url, nodes);
    await checkResumed();
  });

  it("does not send again a device whose send a redeploy cut short, when the server makes the command late", async function () {
    const { sim, sink } = env;
    await addDevices(sim, DEVICES);
    // The first command is made 4 s after its request came: the redeploy cuts the request off
    // before, and the server still makes the command (as a server does with a request it took).
    await control(sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      delayMs: 4000,
      count: 1,
    });
    await env.startRed();
    const nodes = flows(sim, sink, { store: "", concurrency: 1 }, { timeout: 6000, retries: 0 });
    await deployFlows(env.red.url, nodes);
    await pressInject(env.red, WAIT);
    const pressed = Date.now();
    await sleep(400);
    await deployFlows(env.red.url, nodes);
    await waitFor(() => sink.got["/report"].length >= 1, {
      timeoutMs: WAIT,
      intervalMs: 100,
      what: `the report (errors ${JSON.stringify(sink.got["/error"])})`,
    });
    const [{ report }] = sink.got["/report"];
    assert.equal(report.restored, true);
    assert.equal(report.complete, 5, JSON.stringify(report));
    // Counted once the late command is surely made.
    await sleep(Math.max(0, pressed + 5000 - Date.now()));
    for (const name of DEVICES)
      assert.equal(await commandsOf(env.sim, name), 1, `${name} sent twice`);
  });
});
