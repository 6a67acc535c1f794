// The blue busy status ("requesting", or the await's "waiting") of the worker nodes: it shows
// when a message's work starts, and a message refused before any request shows its red error
// alone, with no blue status flashing first (issue 23).
"use strict";
const assert = require("node:assert/strict");
const { next, statuses, withRedAndSimulator } = require("../support/red");
const { sleep } = require("../support/simulator");
const { startNode, awaitCommand } = require("../support/flow");

const blue = (list) => list.filter((s) => s.fill === "blue");

describe("the busy status of the worker nodes", function () {
  const env = withRedAndSimulator();

  const cases = [
    [
      "edge-device-state",
      { type: "edge-device-state", device: "", mode: "get" },
      { payload: 1 },
      { payload: 1, deviceId: "lcd-board" },
    ],
    [
      "edge-send-command",
      { type: "edge-send-command", target: "device", device: "lcd-board", elems: "", ttl: "" },
      { payload: "not an object" },
      { payload: { "/lcd/txt1": "busy" } },
    ],
    [
      "edge-list-events",
      { type: "edge-list-events", stream: "", mode: "page", limit: 2, start: 0, maxEvents: 10 },
      { payload: 1 },
      { payload: 1, streamId: "/demo/readings" },
    ],
  ];
  for (const [type, node, refused, accepted] of cases) {
    it(`${type}: shows no blue status for a message refused before any request, and blue for one that makes a request`, async function () {
      const { n1, out, caught } = await startNode(env.sim, node);
      const shown = statuses(n1);
      n1.receive(refused);
      await next(caught);
      assert.equal(env.sim.stats().total, 0, "the refused message made a request");
      assert.deepEqual(blue(shown), []);
      assert.equal(shown.at(-1).fill, "red");
      // Statuses are coalesced for a moment after one is shown (status.ts): past it, the next
      // busy status shows at once.
      await sleep(200);
      n1.receive(accepted);
      await next(out);
      assert.equal(blue(shown).length >= 1, true, JSON.stringify(shown));
      assert.equal(blue(shown)[0].text, "requesting");
    });
  }

  it("edge-await-command: shows no waiting status for a message without msg.command", async function () {
    const [a1, ...helpers] = awaitCommand();
    const { n1, caught } = await startNode(env.sim, { ...a1, id: "n1" }, { extraNodes: helpers });
    const shown = statuses(n1);
    n1.receive({ payload: "no command" });
    await next(caught);
    // The status throttle shows a busy status within a moment: give a wrong one time to come.
    await sleep(200);
    assert.deepEqual(blue(shown), []);
    assert.equal(shown.at(-1).fill, "red");
  });
});
