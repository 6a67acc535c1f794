// A tab or a node disabled by a deploy, and enabled again (issue 35, item 5). Node-RED closes a
// disabled node with `removed` as if it were deleted; its pending waits and its fleet jobs were
// dropped without a word, and the enable brought nothing back. Real Node-RED (test helper): the
// await node against an inbox of the spec's own, the fleet node against the simulator.
"use strict";
const assert = require("node:assert/strict");
const {
  deploy,
  helper,
  collect,
  noMessage,
  load,
  watch,
  withRed,
  CORE,
} = require("../support/red");
const { flowOf, awaitCommand } = require("../support/flow");
const { inboxServer, account, marker } = require("../support/inbox-server");
const { control, sleep, waitFor, startSim } = require("../support/simulator");
const { addDevices, commandsOf, fleetNode } = require("../support/fleet");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");

/** `nodes` with the tab disabled ("tab"), one node `d: true` (its id), or as they are (null). */
function disabled(nodes, what) {
  return nodes.map((n) => {
    if (what === "tab" && n.type === "tab") return { ...n, disabled: true };
    if (n.id === what) return { ...n, d: true };
    return n;
  });
}

describe("a tab or a node disabled by a deploy, then enabled again", function () {
  this.timeout(30_000);
  withRed();

  describe("edge-await-command", function () {
    let server;

    beforeEach(async function () {
      server = await inboxServer([]);
    });
    afterEach(async function () {
      await server.close();
    });

    const flow = () =>
      flowOf(account(server), awaitCommand({ timeout: "20000" }), { account: { rate: 0 } });

    /** a1 waits for command 31 on lcd-board, and has read the inbox once. */
    async function pending() {
      const f = flow();
      await load(f.nodes, f.credentials, [CORE.catch]);
      const a1 = helper.getNode("a1");
      a1.receive({ _msgid: "w1", command: { id: "31", device: "lcd-board" }, keep: "kept" });
      await waitFor(() => server.state.reads >= 1, { what: "a first read of the inbox" });
      return { f, a1 };
    }

    for (const what of ["tab", "a1"])
      it(`ends a wait pending across ${what === "tab" ? "a disabled tab" : "a node disabled with d: true"} once, with msg.restored, after the enable`, async function () {
        const { f, a1 } = await pending();
        const warnings = [];
        a1.on("call:warn", (call) => warnings.push(String(call.args[0])));
        await deploy(disabled(f.nodes, what), "flows", f.credentials);
        assert.equal(helper.getNode("a1"), null, "a1 is not running while disabled");
        // The device answers while the node is disabled: nothing reads it meanwhile.
        server.state.events.push(marker(Date.now(), { status: "COMMAND_COMPLETE", ref: "31" }));
        await sleep(300);
        await deploy(f.nodes, "flows", f.credentials);
        watch(f.nodes);
        const [msg] = await collect(helper.getNode("ok"), 1, 10_000);
        assert.equal(msg.restored, true);
        assert.equal(msg.keep, "kept");
        assert.equal(String(msg.command.id), "31");
        await Promise.all([
          noMessage(helper.getNode("ok"), 300),
          noMessage(helper.getNode("late"), 0),
          noMessage(helper.getNode("caught"), 0),
        ]);
        assert.deepEqual(
          warnings.filter((w) => /deleted/.test(w)),
          [],
          "a disabled node is not deleted",
        );
      });

    it("warns, naming the command and its device, when a deploy deletes a node with a wait pending", async function () {
      const { f, a1 } = await pending();
      const warnings = [];
      a1.on("call:warn", (call) => warnings.push(String(call.args[0])));
      const without = f.nodes.filter((n) => !["a1", "ok", "fault", "late"].includes(n.id));
      await deploy(without, "flows", f.credentials);
      const abandoned = warnings.filter((w) => /deleted by a deploy/.test(w));
      assert.equal(abandoned.length, 1, JSON.stringify(warnings));
      assert.match(abandoned[0], /31 \(lcd-board\)/);
      // Added back, it starts with nothing: what was deleted stays deleted.
      await deploy(f.nodes, "flows", f.credentials);
      watch(f.nodes);
      server.state.events.push(marker(Date.now(), { status: "COMMAND_COMPLETE", ref: "31" }));
      await noMessage(helper.getNode("ok"), 500);
    });
  });

  describe("edge-fleet-command", function () {
    let sim;

    before(async function () {
      sim = await startSim({ commandDelayMs: 10 });
    });
    after(async function () {
      await sim.close();
    });

    const fleetFlow = () =>
      flowOf(
        sim,
        [
          fleetNode({ timeout: "20000" }),
          { id: "report", type: "helper" },
          { id: "each", type: "helper" },
        ],
        { account: { rate: 0, concurrency: 16 } },
      );

    it("resumes a job running when its tab was disabled, and reports it once with msg.restored", async function () {
      await addDevices(sim, ["dis-1", "dis-2"], { offline: ["dis-1", "dis-2"] });
      const { nodes, credentials } = fleetFlow();
      await load(nodes, credentials, [CORE.catch, FLEET]);
      helper
        .getNode("f1")
        .receive({ payload: { "/lcd/txt1": "x" }, devices: ["dis-1", "dis-2"], job: "dis" });
      await waitFor(async () => (await commandsOf(sim, "dis-2")) === 1, { what: "both sent" });
      await deploy(disabled(nodes, "tab"), "flows", credentials);
      // The devices run their commands while the tab is disabled.
      for (const d of ["dis-1", "dis-2"])
        await control(sim, "PUT", `/devices/${d}/online`, { online: true });
      await sleep(300);
      await deploy(nodes, "flows", credentials);
      watch(nodes);
      const [msg] = await collect(helper.getNode("report"), 1, 15_000);
      assert.equal(msg.restored, true);
      assert.equal(msg.payload.job, "dis");
      assert.deepEqual(
        msg.payload.devices.map((d) => [d.device, d.outcome]),
        [
          ["dis-1", "complete"],
          ["dis-2", "complete"],
        ],
      );
      assert.equal(await commandsOf(sim, "dis-1"), 1);
      assert.equal(await commandsOf(sim, "dis-2"), 1);
      await Promise.all([
        noMessage(helper.getNode("report"), 300),
        noMessage(helper.getNode("caught"), 0),
      ]);
    });
  });
});
