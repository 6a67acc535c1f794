// edge-await-command where the answer used to be wrong: markers read before their wait started,
// ids of another shape, bursts of markers between two polls, glitches while reading the inbox and
// 10,000 waits on one device. Real Node-RED (test helper) against the simulator.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor, sleep, api } = require("../support/simulator");
const {
  helper,
  next,
  collect,
  noMessage,
  statuses,
  withRedAndSimulator,
} = require("../support/red");
const { startFlow, sendCommand, awaitCommand } = require("../support/flow");
const { serve } = require("../support/http-server");
const { SEED } = require("../support/seed");

const DELAY_NODE = require("@node-red/nodes/core/function/89-delay.js");
const LCD_COMMAND = SEED.lcd.commandStream;
const INBOX_GETS = "GET /v5.0/demo/event";

/**
 * send -> await directly, and send2 -> delay -> the same await. `accountProps` and `awaitProps`
 * change the account and the await node.
 */
async function start(sim, { awaitProps = {}, accountProps = {}, delayMs = 600 } = {}) {
  const { get } = await startFlow(
    sim,
    [
      sendCommand("send", { device: "{{deviceId}}", wires: [["a1"]] }),
      sendCommand("send2", { wires: [["d1"]] }),
      {
        id: "d1",
        type: "delay",
        pauseType: "delay",
        timeout: String(delayMs),
        timeoutUnits: "milliseconds",
        wires: [["a1"]],
      },
      ...awaitCommand({ timeout: "20000", ...awaitProps }),
    ],
    { account: { rate: 0, concurrency: 16, ...accountProps }, extraTypes: [DELAY_NODE] },
  );
  const [send, send2, a1, ok, fault, late, caught] = [
    "send",
    "send2",
    "a1",
    "ok",
    "fault",
    "late",
    "caught",
  ].map(get);
  return { send, send2, a1, ok, fault, late, caught };
}

/**
 * A wait that stays pending on lcd-board: a real event in its :command stream that the device
 * never processes, so the await node polls the inbox the whole time.
 */
async function pendingWait(sim, a1) {
  const res = await control(sim, "POST", "/events", {
    streamId: LCD_COMMAND,
    elems: { "/lcd/txt1": "never run" },
  });
  assert.equal(res.status, 201, res.text);
  a1.receive({
    command: { id: res.json.id, creationDate: res.json.creationDate, device: "lcd-board" },
  });
  await waitFor(() => (sim.stats().byRoute[INBOX_GETS] ?? 0) >= 2, { what: "inbox polls" });
  return res.json.id;
}

/** The inbox reads the simulator logged since its log was last cleared. */
async function inboxReads(sim) {
  const log = (await control(sim, "GET", "/requests?limit=1000")).json;
  return log.filter((r) => r.method === "GET" && r.pathname === "/v5.0/demo/event");
}

const names = (markers) => markers.map((m) => JSON.stringify(m.elems).match(/COMMAND_[A-Z]+/)[0]);

describe("edge-await-command reliability", function () {
  this.timeout(30_000);
  const env = withRedAndSimulator({ commandDelayMs: 20 });

  describe("markers read before their wait starts", function () {
    it("delivers the result of a command that went through a delay node while another wait polled the device", async function () {
      const { send2, a1, ok, late, caught } = await start(env.sim, { delayMs: 800 });
      await pendingWait(env.sim, a1);
      send2.receive({ payload: { "/lcd/txt1": "delayed" } });
      const msg = await next(ok, 10_000);
      assert.deepEqual(names(msg.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
      assert.equal(msg.markers[1].elems.cmd.ref, msg.command.id);
      // The markers really were read before the wait started.
      assert.ok(msg.elapsed < 800, `the wait took ${msg.elapsed} ms`);
      await Promise.all([noMessage(late, 100), noMessage(caught, 0)]);
    });

    it("delivers the result of a command whose POST was answered after the device acted", async function () {
      const { send, a1, ok, late } = await start(env.sim);
      await pendingWait(env.sim, a1);
      await control(env.sim, "POST", "/faults", {
        method: "POST",
        path: "/event",
        answerDelayMs: 800,
      });
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "late answer" } });
      const msg = await next(ok, 10_000);
      assert.deepEqual(names(msg.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
      assert.equal(msg.markers[1].elems.cmd.ref, msg.command.id);
      await noMessage(late, 100);
    });
  });

  it("gives two commands whose results overtake each other their own result when event ids are UUIDs", async function () {
    await control(env.sim, "PUT", "/config", { idStyle: "uuid" });
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, ok, fault } = await start(env.sim);
    send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "first" } });
    send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "second" } });
    const commands = await waitFor(
      async () => {
        const res = await api(env.sim, "GET", `/event/${LCD_COMMAND}?limit=2`);
        return res.json.body.length === 2 ? res.json.body.reverse() : undefined;
      },
      { what: "two commands" },
    );
    const [first, second] = commands;
    assert.match(first.id, /^[0-9a-f-]{36}$/);
    await sleep(200);
    // The second command's result comes first, then the first's.
    const inbox = "s5f3c1a2b0000000000000012";
    const mark = (status, ref) =>
      control(env.sim, "POST", "/events", { streamId: inbox, elems: { cmd: { status, ref } } });
    await mark("COMMAND_COMPLETE", second.id);
    await mark("COMMAND_FAULT", first.id);
    const [good, bad] = await Promise.all([next(ok), next(fault)]);
    assert.equal(good.command.id, second.id);
    assert.equal(bad.command.id, first.id);
  });

  it("delivers all 600 markers of 300 commands the device runs at once", async function () {
    this.timeout(90_000);
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    await control(env.sim, "PUT", "/config", { commandDelayMs: 0 });
    const { send, ok, late, caught } = await start(env.sim, {
      awaitProps: { interval: 10_000, timeout: "60000" },
    });
    for (let i = 0; i < 300; i++) {
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": String(i) } });
    }
    const pending = async () =>
      (await control(env.sim, "GET", "/devices/lcd-board")).json.pendingCommands;
    await waitFor(async () => (await pending()) === 300, {
      timeoutMs: 20_000,
      what: "300 commands sent",
    });
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
    await waitFor(async () => (await pending()) === 0, {
      timeoutMs: 20_000,
      what: "the device to run the 300 commands",
    });
    const msgs = await collect(ok, 300, 60_000);
    assert.equal(new Set(msgs.map((m) => m.command.id)).size, 300);
    for (const m of msgs) assert.equal(m.payload.elems.cmd.ref, m.command.id);
    await Promise.all([noMessage(late, 100), noMessage(caught, 0)]);
    // The premise: a poll read past more than a page of new events (pages of 100, then 500). The
    // early reads that follow the device's answers may take the 600 in a few polls rather than
    // one, as they come; each still reads on from where the last one stopped.
    const log = (await control(env.sim, "GET", "/requests?limit=10000")).json;
    assert.ok(
      log.some((r) => r.method === "GET" && /[?&]start=(1|2|3|4|5|6)00\b/.test(r.url)),
      "no poll read past a page of new events",
    );
  });

  it("delivers every marker from a server that returns at most 40 events a page", async function () {
    this.timeout(90_000);
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    await control(env.sim, "PUT", "/config", { commandDelayMs: 0, maxPageSize: 40 });
    const { send, ok, late, caught } = await start(env.sim, {
      awaitProps: { interval: 5_000, timeout: "45000" },
    });
    for (let i = 0; i < 100; i++) {
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": String(i) } });
    }
    const pending = async () =>
      (await control(env.sim, "GET", "/devices/lcd-board")).json.pendingCommands;
    await waitFor(async () => (await pending()) === 100, {
      timeoutMs: 20_000,
      what: "100 commands sent",
    });
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
    const msgs = await collect(ok, 100, 60_000);
    assert.equal(new Set(msgs.map((m) => m.command.id)).size, 100);
    for (const m of msgs) assert.equal(m.payload.elems.cmd.ref, m.command.id);
    await Promise.all([noMessage(late, 100), noMessage(caught, 0)]);
    // The premise: the server cut pages at 40 and a poll read on past a cut page.
    const log = (await control(env.sim, "GET", "/requests?limit=10000")).json;
    assert.ok(
      log.some((r) => r.method === "GET" && /[?&]start=40\b/.test(r.url)),
      "no poll read past the first 40 events",
    );
  });

  it("stops each poll at the second repeated page from a server that ignores start", async function () {
    // A server of its own: every inbox read answers the same short page, whatever `start` asks.
    const now = Date.now();
    const marker = (i, name, ref) => ({
      id: `ev-${i}`,
      streamId: "s-inbox",
      path: "/demo/devices/lcd-board/:inbox",
      creationDate: now + i,
      elems: { [name]: { ref } },
    });
    const page = [marker(3, "COMMAND_COMPLETE", "cmd-1"), marker(2, "COMMAND_START", "cmd-1")];
    const reads = [];
    const server = await serve((req, res) => {
      reads.push(req.url);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ head: { ok: true, status: 200, errors: [] }, body: page }));
    });
    try {
      const fake = {
        url: server.url,
        company: "demo",
        user: "u",
        token: "token-of-the-test-server",
      };
      const { get } = await startFlow(fake, awaitCommand({ interval: 60_000, timeout: "20000" }), {
        account: { rate: 0, concurrency: 4 },
      });
      // A second wait whose command the page does not name: a short first page that names every
      // pending wait's command would end the read at once, with no repeated page to stop at.
      get("a1").receive({ command: { id: "cmd-1", creationDate: now, device: "lcd-board" } });
      get("a1").receive({ command: { id: "cmd-2", creationDate: now, device: "lcd-board" } });
      const msg = await next(get("ok"), 10_000);
      assert.equal(msg.command.id, "cmd-1");
      // One poll: the page, then the same page twice more, which ends it (a single repeated
      // page can be events pushed down by new ones landing on top, and does not).
      assert.deepEqual(
        reads.slice(0, 3).map((u) => new URL(u, server.url).searchParams.get("start")),
        ["0", "2", "4"],
      );
    } finally {
      await server.close();
    }
  });

  describe("glitches while reading the inbox end no wait", function () {
    const GLITCHES = [
      ["a truncated page", { method: "GET", path: "/event", body: "truncated", count: 3 }],
      ["an HTML page", { method: "GET", path: "/event", body: "html", status: 502, count: 3 }],
      ["a 500", { method: "GET", path: "/event", status: 500, count: 3 }],
    ];
    for (const [what, fault] of GLITCHES) {
      it(`keeps the wait through ${what} and shows that the inbox could not be read`, async function () {
        await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
        const { send, a1, ok, caught, late } = await start(env.sim);
        const shown = statuses(a1);
        send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "x" } });
        await waitFor(() => (env.sim.stats().byRoute[INBOX_GETS] ?? 0) >= 1, { what: "a poll" });
        await control(env.sim, "POST", "/faults", fault);
        await waitFor(async () => (await control(env.sim, "GET", "/faults")).json.length === 0, {
          what: "the faults used up",
        });
        await waitFor(() => shown.some((s) => /^unread: /.test(s.text ?? "")), {
          what: "the status",
        });
        await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
        const msg = await next(ok, 10_000);
        assert.deepEqual(names(msg.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
        await Promise.all([noMessage(caught, 100), noMessage(late, 0)]);
      });
    }

    it("keeps the waits when the account's queue is full during a poll", async function () {
      for (const d of ["lcd-board", "sensor-hub", "pump-3"])
        await control(env.sim, "PUT", `/devices/${d}/online`, { online: false });
      const { send, a1, ok, caught, late } = await start(env.sim, {
        accountProps: { concurrency: 1, queue: 1 },
      });
      const shown = statuses(a1);
      const elems = {
        "lcd-board": { "/lcd/txt1": "x" },
        "sensor-hub": { "/app/enable/value": true },
        "pump-3": { "/lcd/txt1": "y" },
      };
      // One at a time: the account's queue of one would refuse a second command.
      for (const [i, d] of Object.keys(elems).entries()) {
        send.receive({ deviceId: d, payload: elems[d] });
        await waitFor(() => shown.some((s) => s.text === `waiting (${i + 1})`), {
          what: `wait ${i + 1}`,
        });
      }
      // One slow inbox read holds the only slot: of the two other polls one waits, one is refused.
      await control(env.sim, "POST", "/faults", { method: "GET", path: "/event", delayMs: 1500 });
      await waitFor(() => shown.some((s) => /^unread: queue full/.test(s.text ?? "")), {
        timeoutMs: 10_000,
        what: `a queue-full status in ${JSON.stringify(shown.slice(-5))}`,
      });
      for (const d of Object.keys(elems))
        await control(env.sim, "PUT", `/devices/${d}/online`, { online: true });
      const msgs = await collect(ok, 3, 15_000);
      assert.deepEqual(msgs.map((m) => m.command.device).sort(), Object.keys(elems).sort());
      await Promise.all([noMessage(caught, 100), noMessage(late, 0)]);
    });

    it("still ends the waits on a lasting refusal (401)", async function () {
      await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
      const { send, caught, late } = await start(env.sim);
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "x" } });
      await waitFor(() => (env.sim.stats().byRoute[INBOX_GETS] ?? 0) >= 1, { what: "a poll" });
      await control(env.sim, "POST", "/faults", { method: "GET", path: "/event", status: 401 });
      const msg = await next(caught);
      assert.equal(msg.edgeError.code, "auth");
      await noMessage(late, 100);
    });
  });

  describe("a Retry-After on the inbox pauses only the waits it came for", function () {
    /** One inbox read answers 429 with Retry-After: 600 (10 minutes, the longest we wait). */
    const stray429 = () =>
      control(env.sim, "POST", "/faults", {
        method: "GET",
        path: "/event",
        status: 429,
        retryAfter: "600",
        count: 1,
      });

    it("times out the command whose read met the 429, then completes the next command of the device", async function () {
      const { send, ok, late, caught } = await start(env.sim, {
        awaitProps: { timeout: "1500", interval: 100 },
      });
      await stray429();
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "first" } });
      const first = await next(late, 10_000);
      assert.match(first.timedOut.inboxError, /429/);
      // The device answered the first command long ago, and answers this one in 20 ms: its
      // result comes, not a time-out 10 minutes long.
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "second" } });
      const second = await next(ok, 10_000);
      assert.notEqual(second.command.id, first.command.id);
      assert.deepEqual(names(second.markers), ["COMMAND_START", "COMMAND_COMPLETE"]);
      await Promise.all([noMessage(late, 100), noMessage(caught, 0)]);
    });

    it("completes a command sent during the pause once the wait it came for has ended", async function () {
      const { send, ok, late, caught } = await start(env.sim, {
        awaitProps: { timeout: "1500", interval: 100 },
      });
      await stray429();
      send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "first" } });
      await waitFor(async () => (await control(env.sim, "GET", "/faults")).json.length === 0, {
        what: "the 429 answered",
      });
      send.receive({
        deviceId: "lcd-board",
        payload: { "/lcd/txt1": "second" },
        timeout: 8000,
      });
      const first = await next(late, 10_000);
      assert.match(first.timedOut.inboxError, /429/);
      const second = await next(ok, 10_000);
      assert.notEqual(second.command.id, first.command.id);
      await Promise.all([noMessage(late, 100), noMessage(caught, 0)]);
    });
  });

  it("reads the inbox once more after the deadline before reporting timed out", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, ok, late } = await start(env.sim, {
      awaitProps: { interval: 3_600_000, timeout: "3000" },
    });
    // The interval's reads alone: the wait's first read at once, the next an hour away. The early
    // reads (read-schedule.ts) come at times a loaded machine moves, and one of them once found
    // the result instead ("answered after 2055 ms"); which read finds a result that comes after
    // them, on their own schedule, is asserted on virtual time (final-read-clock.spec.js).
    helper.getNode("acc").services.poller.pace = "fixed";
    await control(env.sim, "DELETE", "/requests");
    send.receive({ deviceId: "lcd-board", payload: { "/lcd/txt1": "x" } });
    // The device completes the command after the wait's first read and well before the deadline:
    // only the read after the deadline can see it.
    await waitFor(async () => (await inboxReads(env.sim)).length >= 1, {
      what: "the wait's first read",
    });
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
    const msg = await next(ok, 10_000);
    assert.ok(msg.elapsed >= 2900, `answered after ${msg.elapsed} ms`);
    assert.equal(
      (await inboxReads(env.sim)).length,
      2,
      "the first read and the one after the deadline",
    );
    await noMessage(late, 100);
  });

  it("completes 10,000 awaits on one device", async function () {
    this.timeout(180_000);
    const N = Number(process.env.AWAIT_N ?? 10_000);
    await control(env.sim, "POST", "/devices", {
      name: "busy",
      // The bulk interface adds a "seq" to each command's elems.
      resources: ["/n", "seq"],
      online: false,
      inboxCapacity: 100_000,
    });
    await control(env.sim, "PUT", "/config", { commandDelayMs: 0 });
    const info = (await control(env.sim, "GET", "/devices/busy")).json;
    // The :command stream keeps 1,000 events: add and list them 1,000 at a time.
    const commands = [];
    for (let batch = 0; batch < N / 1000; batch++) {
      const added = await control(env.sim, "POST", "/events", {
        streamId: info.streams.command.id,
        elems: { "/n": batch },
        asCommand: true,
        count: 1000,
      });
      assert.equal(added.status, 201, added.text);
      const list = await api(env.sim, "GET", `/event/${info.streams.command.id}?limit=1000`);
      commands.push(...list.json.body);
    }
    assert.equal(new Set(commands.map((c) => c.id)).size, N);
    commands.sort((a, b) => a.creationDate - b.creationDate);
    const { a1, ok, late, caught } = await start(env.sim, {
      awaitProps: { interval: 200, timeout: "150000" },
    });
    for (const c of commands) {
      a1.receive({ command: { id: c.id, creationDate: c.creationDate, device: "busy" } });
    }
    await control(env.sim, "PUT", "/devices/busy/online", { online: true });
    const msgs = await collect(ok, N, 170_000);
    assert.equal(new Set(msgs.map((m) => m.command.id)).size, N);
    for (const m of msgs) assert.equal(m.payload.elems.cmd.ref, m.command.id);
    await Promise.all([noMessage(late, 0), noMessage(caught, 0)]);
  });

  // How many reads each device gets per interval is asserted on virtual time
  // (test/unit/commands/poll-cadence-clock.spec.js): here the reads of a 6 s window measured the
  // machine too, and beside a loaded parallel pass they queued in the rate limiter (the node said
  // "queued 86", never "waiting (100)", and the count of reads fell; issue 36).
  it("reads each of 100 devices with pending waits under the default rate limit, and each again within 6 s", async function () {
    this.timeout(120_000);
    const devices = Array.from({ length: 100 }, (_, i) => `dev-${i}`);
    for (const name of devices) {
      await control(env.sim, "POST", "/devices", { name, resources: ["/x"], online: false });
    }
    // The account as a user gets it: 20 requests a second, 8 at once; the await's 1 s interval.
    const { send, late, caught } = await start(env.sim, {
      accountProps: { rate: "", concurrency: "" },
      awaitProps: { interval: "", timeout: "120000" },
    });
    for (const name of devices) send.receive({ deviceId: name, payload: { "/x": 1 } });
    // The waits themselves, not the node's status: the account's "queued n" covers that while
    // reads wait for the rate limit.
    const poller = helper.getNode("acc").services.poller;
    await waitFor(() => poller.size === 100, { timeoutMs: 60_000, what: "100 waits" });
    await control(env.sim, "DELETE", "/requests");
    const windowMs = 6000;
    await sleep(windowMs);
    const log = (await control(env.sim, "GET", "/requests?limit=10000")).json;
    const perDevice = new Map(devices.map((d) => [d, 0]));
    for (const r of log) {
      const m = /devices%2F(dev-\d+)%2F%3Ainbox/.exec(r.url);
      if (m) perDevice.set(m[1], perDevice.get(m[1]) + 1);
    }
    const counts = [...perDevice.values()].sort((a, b) => a - b);
    if (process.env.EDGE_REPORT)
      console.log(
        `      reads in ${windowMs} ms per device: min ${counts[0]}, median ${counts[50]}, max ${counts.at(-1)}`,
      );
    // No device is left unread; at 1 s an idle machine makes 6 reads each (the figure is on
    // virtual time, above).
    assert.ok(
      counts[0] >= 1,
      `reads per device in ${windowMs} ms: min ${counts[0]}, max ${counts.at(-1)}`,
    );
    await Promise.all([noMessage(late, 0), noMessage(caught, 0)]);
  });
});
