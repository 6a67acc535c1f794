// edge-fleet-command when Node-RED is killed (SIGKILL) in the middle of a rollout, with a
// `localfilesystem` context store that writes its cache to disk every second (issue 28, medium 6):
// the record on disk is up to a second old, so devices sent in that second read back as pending.
// What each device executed is read from the simulator's own `:command` streams; what left the
// node is posted to a collector in this process, which outlives both Node-RED processes.
"use strict";
const assert = require("node:assert/strict");
const { waitFor } = require("../support/simulator");
const { withRestarts, deployFlows, pressInject } = require("../support/node-red-process");
const { addDevices, commandsOf, commandsOfAll, fleetProcessFlow } = require("../support/fleet");

const WAIT = 30000;
const DEVICES = Array.from({ length: 60 }, (_, i) => `crash-${i + 1}`);
/** A file store flushed every second, as the run had it, beside the default memory one. */
const FLUSHED_EVERY_SECOND = {
  contextStorage: {
    default: { module: "memory" },
    file: { module: "localfilesystem", config: { flushInterval: 1 } },
  },
};

/** Inject i1 into fleet f1 (store "file"); its report goes to /report, each device's to /device. */
const flows = (sim, sink) =>
  fleetProcessFlow(sim, sink, {
    label: "fleet crash",
    text: "once only",
    devices: DEVICES,
    report: "report: msg.payload",
    device:
      "device: msg.device, outcome: msg.outcome, mayHaveBeenSent: msg.mayHaveBeenSent === true",
    // Ten sends a second, and a short request budget: a resumed look-up waits one budget at most.
    accountProps: { rate: 10, timeout: 2000, retries: 0 },
    fleetProps: { timeout: "20000" },
  });

describe("edge-fleet-command killed in the middle of a rollout", function () {
  this.timeout(180000);
  const env = withRestarts("/report", "/device", "/error");

  it("sends no device the command twice after a crash inside the store's flush window, and ends each device once", async function () {
    const { sim, sink } = env;
    await addDevices(sim, DEVICES);
    await env.startRed(FLUSHED_EVERY_SECOND);
    await deployFlows(env.red.url, flows(sim, sink));
    await pressInject(env.red, WAIT);
    // Killed while it sends: ten a second, so the last second's sends are not on disk yet.
    await waitFor(async () => (await commandsOfAll(sim, DEVICES)) >= 25, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: "25 commands sent",
    });
    const { child } = env.red;
    await new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGKILL");
    });
    env.red = undefined;
    assert.deepEqual(sink.got["/report"], []);

    await env.startRed(FLUSHED_EVERY_SECOND);
    await waitFor(() => sink.got["/report"].length >= 1, {
      timeoutMs: 60000,
      intervalMs: 100,
      what: `the report (errors ${JSON.stringify(sink.got["/error"])})\n${env.red?.output().slice(-3000)}`,
    });
    // What the devices executed: the flow asked each for one command.
    for (const name of DEVICES)
      assert.equal(await commandsOf(env.sim, name), 1, `${name} sent twice`);

    const [{ report }] = sink.got["/report"];
    assert.equal(report.restored, true);
    assert.equal(report.total, 60);
    assert.deepEqual(report.devices.map((d) => d.device).sort(), [...DEVICES].sort());
    assert.equal(
      report.complete,
      60,
      JSON.stringify(report.devices.filter((d) => d.outcome !== "complete")),
    );
    assert.deepEqual(sink.got["/error"], []);
    // Each device ends once: one message, or a second one only when it says that its command
    // went out before the crash (its first may have been told then; the documented exception).
    const byDevice = new Map(DEVICES.map((name) => [name, []]));
    for (const m of sink.got["/device"]) byDevice.get(m.device).push(m);
    for (const [name, messages] of byDevice) {
      assert.ok(messages.length >= 1, `${name} has no message`);
      const plain = messages.filter((m) => !m.mayHaveBeenSent);
      assert.ok(plain.length <= 1, `${name} ended twice: ${JSON.stringify(messages)}`);
      assert.ok(messages.length <= 2, `${name} ended ${messages.length} times`);
      if (messages.length === 2) assert.equal(messages[1].mayHaveBeenSent, true, name);
    }
  });
});
