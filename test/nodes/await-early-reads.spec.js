// edge-await-command against the simulator, reads following the commands (issue 20): after the
// account's first answer, each command's result is found by an early read or a few, long before
// the interval's read; the interval's reads of a pending inbox go on beside them. Reads are
// counted from the simulator's request log, never timed.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("../support/simulator");
const { helper, next, noMessage, withRedAndSimulator } = require("../support/red");
const { startFlow, sendCommand, awaitCommand } = require("../support/flow");

/** Inbox reads of lcd-board in the simulator's log since it was last cleared. */
async function inboxReads(sim) {
  const log = (await control(sim, "GET", "/requests?limit=10000")).json;
  return log.filter((r) => r.method === "GET" && /lcd-board%2F%3Ainbox/.test(r.url)).length;
}

describe("edge-await-command reads follow the commands (simulator)", function () {
  this.timeout(60_000);
  const env = withRedAndSimulator();

  it("finds each result within a few early reads, with a 10 s interval, one command at a time", async function () {
    // COMMAND_START 100 ms after the command, COMMAND_COMPLETE 100 ms later.
    await control(env.sim, "PUT", "/config", { commandDelayMs: 100 });
    const { get } = await startFlow(
      env.sim,
      [
        sendCommand("send", { wires: [["a1"]] }),
        ...awaitCommand({ interval: 10_000, timeout: "20000" }),
      ],
      { account: { rate: "", concurrency: "" } },
    );
    const [send, ok] = [get("send"), get("ok")];
    // The account's first command: no pace known, so its result comes by the read after the
    // deadline (msg.timeout), and teaches the schedule.
    send.receive({ payload: { "/lcd/txt1": "warm-up" }, timeout: 1500 });
    await next(ok, 10_000);
    const perCommand = [];
    for (let i = 0; i < 6; i++) {
      await control(env.sim, "DELETE", "/requests");
      send.receive({ payload: { "/lcd/txt1": `step ${i}` } });
      // Well inside the 10 s interval: only early reads can have found it.
      const msg = await next(ok, 8_000);
      assert.equal(msg.payload.elems.cmd.ref, msg.command.id);
      perCommand.push(await inboxReads(env.sim));
    }
    const total = perCommand.reduce((a, b) => a + b, 0);
    assert.ok(total <= 3 * perCommand.length, `inbox reads per command: ${perCommand.join(", ")}`);
    assert.ok(helper.getNode("acc").services.poller.gaveWay === 0);
    await Promise.all([noMessage(get("late"), 0), noMessage(get("caught"), 0)]);
  });
});
