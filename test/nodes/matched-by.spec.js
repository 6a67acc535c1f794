// What the await node's output says of how its result was matched (issue 35, item 10): a marker
// that names the command's id is its own; one that names no command was taken by its date, and
// on such a server two identical commands answered out of order swap results. The output says
// which (msg.matchedBy), so a flow can tell. Real Node-RED against an inbox of the spec's own.
"use strict";
const assert = require("node:assert/strict");
const { helper, collect, load, withRed, CORE } = require("../support/red");
const { flowOf, awaitCommand } = require("../support/flow");
const { inboxServer, account, marker } = require("../support/inbox-server");

describe("edge-await-command's msg.matchedBy", function () {
  this.timeout(20_000);
  withRed();
  let server;

  beforeEach(async function () {
    server = await inboxServer([]);
  });
  afterEach(async function () {
    await server.close();
  });

  async function resultFor(elems) {
    const f = flowOf(account(server), awaitCommand({ timeout: "5000" }), {
      account: { rate: 0 },
    });
    await load(f.nodes, f.credentials, [CORE.catch]);
    const created = Date.now() - 1000;
    helper
      .getNode("a1")
      .receive({ command: { id: "41", device: "lcd-board", creationDate: created } });
    server.state.events.push(marker(created + 10, elems));
    const [got] = await collect(helper.getNode("ok"), 1, 10_000);
    return got;
  }

  it("is absent when the result's marker names the command's id", async function () {
    const got = await resultFor({ status: "COMMAND_COMPLETE", ref: "41" });
    assert.equal(got.payload.elems.ref, "41");
    assert.equal("matchedBy" in got, false);
  });

  it('is "date" when the marker of the result names no command and was taken by its date', async function () {
    const got = await resultFor({ status: "COMMAND_COMPLETE" });
    assert.equal(got.payload.elems.status, "COMMAND_COMPLETE");
    assert.equal(got.matchedBy, "date");
  });
});
