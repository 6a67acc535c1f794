// edge-await-command, fed by edge-send-command, in a real Node-RED runtime against the simulator.
"use strict";
const assert = require("node:assert/strict");
const diagnostics = require("node:diagnostics_channel");
const { control, sleep, waitFor } = require("../support/simulator");
const {
  unload,
  next,
  collect,
  noMessage,
  statuses,
  helper,
  withRedAndSimulator,
} = require("../support/red");
const { startFlow, sendCommand, awaitCommand } = require("../support/flow");
const { SEED } = require("../support/seed");

const COMPLETE_NODE = require("@node-red/nodes/core/common/24-complete.js");
const LCD_INBOX = SEED.lcd.inboxStream;
const INBOX_BY_PATH = "GET /v5.0/demo/event";
const INBOX_BY_ID = `GET /v5.0/demo/event/${LCD_INBOX}`;

async function start(sim, props = {}, sendProps = {}) {
  const { get } = await startFlow(
    sim,
    [
      sendCommand("send", { wires: [["a1"]], ...sendProps }),
      ...awaitCommand(props),
      { id: "done1", type: "complete", scope: ["a1"], uncaught: false, wires: [["completed"]] },
      { id: "completed", type: "helper" },
    ],
    { account: { rate: 0, concurrency: 16 }, extraTypes: [COMPLETE_NODE] },
  );
  const [send, a1, ok, fault, late, caught, completed] = [
    "send",
    "a1",
    "ok",
    "fault",
    "late",
    "caught",
    "completed",
  ].map(get);
  return { send, a1, ok, fault, late, caught, completed };
}

const names = (markers) => markers.map((m) => JSON.stringify(m.elems).match(/COMMAND_[A-Z]+/)[0]);

describe("edge-await-command", function () {
  const env = withRedAndSimulator({ commandDelayMs: 20 });

  it("sends a completed command to output 1 with its markers and the time waited", async function () {
    const { send, a1, ok } = await start(env.sim);
    const shown = statuses(a1);
    send.receive({ payload: { "/lcd/txt1": "done?" } });
    const msg = await next(ok);
    assert.match(JSON.stringify(msg.payload.elems), /COMMAND_COMPLETE/);
    assert.deepEqual(names(msg.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
    assert.ok(msg.elapsed >= 0 && msg.elapsed < 5000);
    assert.equal(msg.command.device, "lcd-board");
    assert.ok(
      shown.some((s) => s.fill === "yellow" && /^started/.test(s.text)),
      JSON.stringify(shown),
    );
    assert.equal(shown.at(-1).fill, "green");
    assert.match(shown.at(-1).text, /^complete \d+ ms$/);
  });

  it("reads the inbox through the path fall-back when no Inbox is set", async function () {
    const { send, ok } = await start(env.sim);
    send.receive({ payload: { "/lcd/txt1": "x" } });
    await next(ok);
    assert.ok(env.sim.stats().byRoute[INBOX_BY_PATH] > 0);
    assert.equal(env.sim.stats().byRoute[INBOX_BY_ID], undefined);
  });

  it("reads the inbox by stream id when the Inbox property is set", async function () {
    const { send, ok } = await start(env.sim, { inbox: LCD_INBOX });
    send.receive({ payload: { "/lcd/txt1": "x" } });
    await next(ok);
    assert.ok(env.sim.stats().byRoute[INBOX_BY_ID] > 0);
  });

  it("sends a faulted command to output 2", async function () {
    const { send, fault, ok } = await start(env.sim);
    send.receive({ payload: { "/no/such/resource": 1 } });
    const shown = statuses(helper.getNode("a1"));
    const msg = await next(fault);
    assert.match(JSON.stringify(msg.payload.elems), /COMMAND_FAULT/);
    await noMessage(ok, 100);
    assert.equal(shown.at(-1).fill, "red");
    assert.match(shown.at(-1).text, /^fault \d+ ms$/);
  });

  it("sends a command the device never answers to output 3 after the timeout, with payload null", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1, late } = await start(env.sim, { timeout: 300 });
    const shown = statuses(a1);
    send.receive({ payload: { "/lcd/txt1": "x" } });
    const msg = await next(late);
    assert.equal(msg.payload, null);
    assert.deepEqual(msg.markers, []);
    assert.ok(msg.elapsed >= 290, `elapsed ${msg.elapsed}`);
    assert.equal(shown.at(-1).text, "timed out, may still run");
    assert.equal(msg.timedOut.timeout, 300);
    assert.equal(msg.timedOut.ttl, null);
    assert.match(msg.timedOut.note, /may still run it at any later time/);
  });

  it("takes the timeout from msg.timeout, then the command's ttl", async function () {
    // Online but slow: an offline device would report the ttl's expiry as COMMAND_FAULT.
    await control(env.sim, "PUT", "/config", { commandDelayMs: 10_000 });
    const { send, late } = await start(env.sim, {}, { ttl: "250" });
    send.receive({ payload: { "/lcd/txt1": "x" } });
    const first = await next(late, 3000);
    // Which timeout each wait had, from what the wait itself says and lower bounds on when it
    // ended: upper bounds on elapsed failed when a loaded machine delayed the read after the
    // deadline (issue 36).
    assert.equal(first.timedOut.timeout, 250);
    assert.ok(first.elapsed >= 240, `elapsed ${first.elapsed}`);
    send.receive({ payload: { "/lcd/txt1": "x" }, timeout: 100 });
    const second = await next(late, 3000);
    assert.equal(second.timedOut.timeout, 100);
    assert.ok(second.elapsed >= 90, `elapsed ${second.elapsed}`);
  });

  it("treats a ttl of 0 as no ttl and waits the default timeout", async function () {
    const { send, ok, caught } = await start(env.sim, {}, { ttl: "0" });
    send.receive({ payload: { "/lcd/txt1": "x" } });
    const msg = await next(ok);
    assert.equal(msg.command.ttl, 0);
    await noMessage(caught, 50);
  });

  for (const style of ["key", "no-id"]) {
    it(`recognises markers carried as ${style === "key" ? "a key" : "a value without the command's id"}`, async function () {
      await control(env.sim, "PUT", "/config", { markerStyle: style });
      const { send, ok } = await start(env.sim);
      send.receive({ payload: { "/lcd/txt1": "x" } });
      const msg = await next(ok);
      assert.deepEqual(names(msg.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
    });
  }

  it("ignores configuration-push markers and other inbox events", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1, ok } = await start(env.sim, { timeout: 3000 });
    const shown = statuses(a1);
    send.receive({ payload: { "/lcd/txt1": "x" } });
    await sleep(100);
    await fetch(`${env.sim.url}/v5.0/demo/device/lcd-board`, {
      method: "PUT",
      headers: { "x-auth-token": env.sim.token, "content-type": "application/json" },
      body: JSON.stringify({ state: { "/lcd/txt1": "pushed" } }),
    });
    await control(env.sim, "POST", "/events", {
      streamId: LCD_INBOX,
      elems: { note: "COMMAND_STARTED_NOT" },
    });
    await noMessage(ok, 300);
    assert.ok(
      !shown.some((s) => s.fill === "yellow"),
      "started shown before the device was online",
    );
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
    const msg = await next(ok);
    assert.deepEqual(names(msg.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
  });

  it("gives two interleaved commands on one device each their own result", async function () {
    const { send, ok, fault } = await start(env.sim);
    const okMsg = next(ok);
    const faultMsg = next(fault);
    send.receive({ payload: { "/lcd/txt1": "good" } });
    send.receive({ payload: { "/bad/resource": "bad" } });
    const [good, bad] = await Promise.all([okMsg, faultMsg]);
    assert.deepEqual(good.command.id, good.markers[0].elems.cmd.ref);
    assert.deepEqual(bad.command.id, bad.markers.at(-1).elems.cmd.ref);
    assert.notEqual(good.command.id, bad.command.id);
  });

  it("reports msg without msg.command to a Catch node", async function () {
    const { a1, caught } = await start(env.sim);
    a1.receive({ payload: 1 });
    const msg = await next(caught);
    assert.match(msg.error.message, /msg\.command is missing/);
  });

  it("reports an unknown inbox to a Catch node", async function () {
    const { send, caught } = await start(env.sim, { inbox: "s0000000000000000000000aa" });
    send.receive({ payload: { "/lcd/txt1": "x" } });
    const msg = await next(caught);
    assert.equal(msg.statusCode, 404);
  });

  it("cancels the node's waits on msg.reset: each ends with done() and no output", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1, ok, late, completed } = await start(env.sim, { timeout: 5000 });
    const shown = statuses(a1);
    const ended = collect(completed, 3, 3000);
    send.receive({ payload: { "/lcd/txt1": "1" } });
    send.receive({ payload: { "/lcd/txt1": "2" } });
    // Both waits have started (a fixed 150 ms was not always enough on a loaded machine).
    await waitFor(() => shown.some((s) => s.text === "waiting (2)"), { what: "two waits" });
    a1.receive({ reset: true });
    const msgs = await ended;
    assert.equal(msgs.filter((m) => m.command).length, 2);
    await Promise.all([noMessage(ok, 200), noMessage(late, 200)]);
    assert.equal(helper.getNode("acc").services.poller.size, 0);
  });

  it("ends pending waits and stops polling when the flow is closed", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1 } = await start(env.sim, { timeout: 60000 });
    const shown = statuses(a1);
    for (let i = 0; i < 5; i++) send.receive({ payload: { "/lcd/txt1": String(i) } });
    // The five waits have started: a fixed 200 ms was not always enough on a loaded machine.
    await waitFor(() => shown.some((s) => s.text === "waiting (5)"), { what: "five waits" });
    const poller = helper.getNode("acc").services.poller;
    assert.equal(poller.size, 1);
    const started = Date.now();
    await unload();
    const took = Date.now() - started;
    // The waits' 60 s are not waited for. Node-RED gives a close 15 s and then goes on, saying
    // "Close timed out"; the bound is that, not a speed: 2 s was exceeded beside a loaded
    // parallel pass (issue 36).
    assert.ok(took < 15_000, `close took ${took} ms`);
    const said = JSON.stringify(helper.log().args ?? []);
    assert.doesNotMatch(said, /Close timed out|stopping-error/);
    assert.equal(poller.size, 0);
    // Requests the account's client made after the close, as undici creates them: the
    // simulator's count also took in a read sent before the close and logged after it, on a
    // loaded machine ("5 !== 4", issue 36).
    const closedAt = performance.now();
    const made = [];
    const onCreate = ({ request }) => {
      if (env.sim.url.startsWith(request.origin)) made.push(performance.now());
    };
    diagnostics.subscribe("undici:request:create", onCreate);
    try {
      await sleep(200);
    } finally {
      diagnostics.unsubscribe("undici:request:create", onCreate);
    }
    assert.deepEqual(
      made.filter((at) => at >= closedAt),
      [],
      "requests went on after close",
    );
  });

  it("makes 50 awaits on one device cost no more inbox requests per interval than one", async function () {
    this.timeout(20000);
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const interval = 100;
    const window = 1000;
    async function count(n) {
      const { send } = await start(env.sim, { interval, timeout: 30000 });
      for (let i = 0; i < n; i++) send.receive({ payload: { "/lcd/txt1": String(i) } });
      await sleep(200);
      await control(env.sim, "POST", "/stats/reset");
      await sleep(window);
      const polls = env.sim.stats().byRoute[INBOX_BY_PATH] ?? 0;
      await unload();
      return polls;
    }
    const one = await count(1);
    const fifty = await count(50);
    assert.ok(one >= 5, `one await polled ${one} times in ${window} ms`);
    assert.ok(fifty <= one + 1, `50 awaits polled ${fifty} times, one await ${one} times`);
    assert.ok(fifty <= window / interval + 1, `50 awaits polled ${fifty} times in ${window} ms`);
  });

  describe("saved waits and warnings", function () {
    /** The wait records this node keeps in Node-RED's default context store. */
    const saved = (node) =>
      node
        .context()
        .keys()
        .filter((k) => k.startsWith("edgewire-await-"));

    it("keeps a pending wait in the context store and forgets it when the result comes", async function () {
      await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
      const { send, a1, ok } = await start(env.sim, { timeout: 20000 });
      send.receive({ payload: { "/lcd/txt1": "x" }, keep: 1 });
      await waitFor(() => saved(a1).length === 1, { what: "a saved wait" });
      const record = a1.context().get(saved(a1)[0]);
      assert.equal(record.commandId.length, 25);
      assert.ok(record.deadline > Date.now());
      assert.equal(JSON.parse(record.msg).keep, 1);
      await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
      await next(ok);
      assert.deepEqual(saved(a1), []);
    });

    it("forgets the saved waits on msg.reset", async function () {
      await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
      const { send, a1, completed } = await start(env.sim, { timeout: 20000 });
      send.receive({ payload: { "/lcd/txt1": "x" } });
      send.receive({ payload: { "/lcd/txt1": "y" } });
      await waitFor(() => saved(a1).length === 2, { what: "two saved waits" });
      a1.receive({ reset: true });
      await collect(completed, 3);
      assert.deepEqual(saved(a1), []);
    });

    it("drops a message property that cannot be saved and names it in a warning", async function () {
      await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
      const { send, a1, caught } = await start(env.sim, { timeout: 20000 });
      const warnings = [];
      a1.on("call:warn", (call) => warnings.push(String(call.args[0])));
      const loop = { name: "loop" };
      loop.self = loop;
      send.receive({ payload: { "/lcd/txt1": "x" }, loop, big: 10n, fine: "yes" });
      await waitFor(() => saved(a1).length === 1, { what: "a saved wait" });
      const msg = JSON.parse(a1.context().get(saved(a1)[0]).msg);
      assert.equal(msg.fine, "yes");
      assert.equal(msg.loop, undefined);
      assert.equal(msg.big, undefined);
      assert.ok(
        warnings.some((w) => /cannot be saved/.test(w) && /loop, big/.test(w)),
        JSON.stringify(warnings),
      );
      await noMessage(caught, 50);
    });

    it("warns once, in the log and the status, when the command's ttl is longer than the timeout", async function () {
      await control(env.sim, "PUT", "/config", { commandDelayMs: 10_000 });
      const { send, a1, late } = await start(env.sim, { timeout: 200 }, { ttl: "60000" });
      const warnings = [];
      a1.on("call:warn", (call) => warnings.push(String(call.args[0])));
      const shown = statuses(a1);
      send.receive({ payload: { "/lcd/txt1": "x" } });
      send.receive({ payload: { "/lcd/txt1": "y" } });
      const [first] = await collect(late, 2, 5000);
      assert.equal(warnings.filter((w) => /ttl \(60000 ms\) is longer/.test(w)).length, 1);
      assert.ok(
        shown.some((s) => /^ttl > timeout/.test(s.text)),
        JSON.stringify(shown),
      );
      assert.equal(first.timedOut.ttl, 60000);
      assert.ok(first.timedOut.mayRunUntil > Date.now());
      assert.match(first.timedOut.note, /may still run the command until its ttl ends/);
    });
  });
});
