// nodes/lib/node-red/status.ts: a busy node's status updates coalesced to one per interval (the
// latest wins), an update that matters shown at once. No timing is asserted: the specs wait for
// the coalesced update to arrive.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { StatusThrottle } = lib("node-red/status");

function recordingNode() {
  const shown = [];
  const waiters = [];
  return {
    shown,
    status(s) {
      shown.push(s);
      for (const w of waiters.splice(0)) w();
    },
    /** Resolves once `n` statuses have been shown. */
    async until(n) {
      const deadline = Date.now() + 10000;
      while (shown.length < n) {
        if (Date.now() > deadline) throw new Error(`only ${shown.length} statuses shown`);
        await new Promise((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
  };
}

describe("unit: node-red/status", function () {
  it("should show the first update at once and coalesce the rest to the latest", async function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.soon({ text: "1" });
    s.soon({ text: "2" });
    s.soon(() => ({ text: "3" }));
    assert.deepEqual(node.shown, [{ text: "1" }]);
    await node.until(2);
    assert.deepEqual(node.shown, [{ text: "1" }, { text: "3" }]);
  });

  it("should show an update that matters at once and drop the coalesced one due", async function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.soon({ text: "busy 1" });
    s.soon({ text: "busy 2" });
    s.now(() => ({ text: "idle" }));
    assert.deepEqual(node.shown.at(-1), { text: "idle" });
    const count = node.shown.length;
    // Another update, coalesced behind "idle", proves the dropped one never came.
    s.soon({ text: "later" });
    await node.until(count + 1);
    assert.deepEqual(
      node.shown.map((x) => x.text),
      ["busy 1", "idle", "later"],
    );
  });

  it("should clear the status and anything still due", async function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.soon({ text: "a" });
    s.soon({ text: "b" });
    s.clear();
    s.soon({ text: "c" });
    await node.until(3);
    assert.deepEqual(node.shown, [{ text: "a" }, {}, { text: "c" }]);
  });
});
