// A server whose event ids are short numbers or names (`7`, `cmd-42`) and whose inbox holds the
// markers of other commands (`17`, `cmd-421`, `2001`): a marker completes only the wait whose id
// it names as a whole token, and a created command with an empty or missing id is refused at send
// (issue 19). Real Node-RED (test helper) against servers written here, not the simulator: the
// simulator's ids are all of one length.
"use strict";
const assert = require("node:assert/strict");
const { next, noMessage, caughtCode, withRed } = require("../support/red");
const { startFlow, sendCommand, awaitCommand } = require("../support/flow");
const { serve } = require("../support/http-server");
const { envelope, inboxServer, account, marker } = require("../support/inbox-server");

/** Resolves once the await node has read the inbox `n` times. */
async function readsOf(server, n) {
  while (server.state.reads < n) await new Promise((r) => setTimeout(r, 20));
}

/** Nothing leaves the fault and late outputs, and nothing is caught. */
const noFaultLateOrCaught = (get) =>
  Promise.all([
    noMessage(get("fault"), 100),
    noMessage(get("late"), 0),
    noMessage(get("caught"), 0),
  ]);

describe("short ids and the markers of other commands", function () {
  this.timeout(20_000);
  withRed();

  // The inbox servers of the await tests, closed after the flow is unloaded (withRed's hook).
  const servers = [];
  afterEach(async function () {
    for (const server of servers.splice(0)) await server.close();
  });

  /** An await node "a1" (15 s timeout) on an inbox server holding `events`: {server, get}. */
  async function awaitOn(events) {
    const server = await inboxServer(events);
    servers.push(server);
    const { get } = await startFlow(account(server), awaitCommand({ timeout: "15000" }), {
      account: { rate: 0 },
    });
    return { server, get };
  }

  it("does not complete the wait for command 7 with the marker of command 17, and completes it with its own", async function () {
    const now = Date.now();
    const { server, get } = await awaitOn([
      marker(now + 1, { status: "COMMAND_COMPLETE", ref: "17" }),
    ]);
    get("a1").receive({ command: { id: "7", creationDate: now, device: "lcd-board" } });
    // Its own marker comes only once the foreign one was read twice.
    await readsOf(server, 2);
    server.state.events.push(marker(now + 2, { status: "COMMAND_COMPLETE", ref: "7" }));
    const msg = await next(get("ok"), 10_000);
    assert.equal(msg.payload.elems.ref, "7");
    assert.deepEqual(
      msg.markers.map((m) => m.elems.ref),
      ["7"],
    );
    await Promise.all([noMessage(get("late"), 100), noMessage(get("caught"), 0)]);
  });

  it("gives cmd-42, 1 and 7 their own markers beside those of cmd-421, 2001 and 17", async function () {
    const now = Date.now();
    const { server, get } = await awaitOn([
      marker(now + 1, { COMMAND_COMPLETE: { ref: "cmd-421" } }),
      marker(now + 2, { status: "COMMAND_COMPLETE", text: "command 2001 done" }),
      marker(now + 3, { status: "COMMAND_FAULT", ref: "17" }),
    ]);
    for (const id of ["cmd-42", "1", "7"])
      get("a1").receive({ command: { id, creationDate: now, device: "lcd-board" } });
    await readsOf(server, 2);
    server.state.events.push(
      marker(now + 4, { COMMAND_COMPLETE: { ref: "cmd-42" } }),
      marker(now + 5, { status: "COMMAND_COMPLETE", text: "command 1 done" }),
      marker(now + 6, { status: "COMMAND_COMPLETE", ref: "7" }),
    );
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await next(get("ok"), 10_000));
    const byId = Object.fromEntries(got.map((m) => [m.command.id, m.payload.elems]));
    assert.deepEqual(byId, {
      "cmd-42": { COMMAND_COMPLETE: { ref: "cmd-42" } },
      1: { status: "COMMAND_COMPLETE", text: "command 1 done" },
      7: { status: "COMMAND_COMPLETE", ref: "7" },
    });
    await noFaultLateOrCaught(get);
  });

  it("does not complete or fault the wait for command 7 with markers naming 17, 70 or 7.1 as JSON numbers, and completes it with 7 as a number", async function () {
    const now = Date.now();
    const { server, get } = await awaitOn([
      marker(now + 1, { cmd: { status: "COMMAND_COMPLETE", ref: 17 } }),
      marker(now + 2, { cmd: { status: "COMMAND_FAULT", ref: 17 } }),
      marker(now + 3, { status: "COMMAND_COMPLETE", command: 17 }),
      marker(now + 4, { status: "COMMAND_FAULT", command: 70 }),
      marker(now + 5, { status: "COMMAND_COMPLETE", ref: 7.1 }),
    ]);
    get("a1").receive({ command: { id: "7", creationDate: now, device: "lcd-board" } });
    // Its own marker comes only once the foreign ones were read twice.
    await readsOf(server, 2);
    server.state.events.push(marker(now + 6, { cmd: { status: "COMMAND_COMPLETE", ref: 7 } }));
    const msg = await next(get("ok"), 10_000);
    assert.deepEqual(msg.payload.elems, { cmd: { status: "COMMAND_COMPLETE", ref: 7 } });
    assert.equal(msg.markers.length, 1, JSON.stringify(msg.markers));
    await noFaultLateOrCaught(get);
  });

  it("completes the wait from a server whose inbox events have JSON numbers as their ids", async function () {
    const now = Date.now();
    const numbered = (id, creationDate, elems) => ({ ...marker(creationDate, elems), id });
    const { server, get } = await awaitOn([
      numbered(3, now - 1000, { status: "COMMAND_COMPLETE", ref: 6 }),
    ]);
    get("a1").receive({ command: { id: "7", creationDate: now, device: "lcd-board" } });
    await readsOf(server, 1);
    server.state.events.push(numbered(8, now + 1, { status: "COMMAND_COMPLETE", ref: 7 }));
    const msg = await next(get("ok"), 10_000);
    assert.equal(msg.payload.elems.ref, 7);
    assert.equal(msg.markers.length, 1, JSON.stringify(msg.markers));
    await noFaultLateOrCaught(get);
  });

  it("gives the waits for 7 and 17 each its own marker when the markers name them as JSON numbers", async function () {
    const now = Date.now();
    const { server, get } = await awaitOn([]);
    for (const id of ["7", "17"])
      get("a1").receive({ command: { id, creationDate: now, device: "lcd-board" } });
    await readsOf(server, 1);
    server.state.events.push(
      marker(now + 1, { status: "COMMAND_FAULT", command: 17 }),
      marker(now + 2, { status: "COMMAND_COMPLETE", command: 7 }),
    );
    const ok = await next(get("ok"), 10_000);
    const fault = await next(get("fault"), 10_000);
    assert.equal(ok.command.id, "7");
    assert.equal(ok.payload.elems.command, 7);
    assert.equal(fault.command.id, "17");
    assert.equal(fault.payload.elems.command, 17);
    await Promise.all([noMessage(get("ok"), 100), noMessage(get("caught"), 0)]);
  });

  for (const [what, body] of [
    ["an empty id", { id: "", streamId: "s-cmd", creationDate: 1 }],
    ["no id", { streamId: "s-cmd", creationDate: 1 }],
    // A space is a whole token of many a marker's text; -1 and 0 are no counter's ids (issue 28).
    ["an id that is a space", { id: " ", streamId: "s-cmd", creationDate: 1 }],
    ["an id of -1", { id: -1, streamId: "s-cmd", creationDate: 1 }],
    ["an id of 0", { id: 0, streamId: "s-cmd", creationDate: 1 }],
  ]) {
    it(`refuses at send a created command answered with ${what}`, async function () {
      const posts = [];
      const server = await serve((req, res) => {
        posts.push(`${req.method} ${req.url}`);
        envelope(res, body);
      });
      try {
        const { get } = await startFlow(
          account(server),
          [sendCommand("send", { wires: [["out"]] }), { id: "out", type: "helper" }],
          { account: { rate: 0 } },
        );
        get("send").receive({ payload: { "/lcd/txt1": "hi" } });
        const caught = await next(get("caught"));
        assert.equal(caughtCode(caught), "no-command-id");
        assert.match(caught.error.message, /no-command-id|no event id/);
        assert.equal(caught.edgeError.method, "POST");
        // Sent once, never again: a retry could run the command twice.
        assert.deepEqual(posts, ["POST /v5.0/demo/event"]);
        await noMessage(get("out"), 100);
      } finally {
        await server.close();
      }
    });
  }

  it("takes a created command's id sent as a whole number as the same id in text", async function () {
    const server = await serve((req, res) => {
      envelope(res, { id: 7, streamId: "s-cmd", creationDate: 1 });
    });
    try {
      const { get } = await startFlow(
        account(server),
        [sendCommand("send", { wires: [["out"]] }), { id: "out", type: "helper" }],
        { account: { rate: 0 } },
      );
      get("send").receive({ payload: { "/lcd/txt1": "hi" } });
      const out = await next(get("out"));
      assert.equal(out.command.id, "7");
      await noMessage(get("caught"), 0);
    } finally {
      await server.close();
    }
  });
});
