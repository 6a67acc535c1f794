"use strict";
const assert = require("node:assert/strict");
const {
  startSim,
  api,
  control,
  inbox,
  inboxOf,
  deviceInfo,
  sleep,
} = require("../support/simulator");

function statusOf(event) {
  const e = event.elems;
  if (e.cmd) return e.cmd.status;
  if (typeof e.status === "string") return e.status;
  return Object.keys(e)[0];
}

function command(sim, device, elems, metadata) {
  const body = { path: `/${sim.company}/devices/${device}/:command`, elems };
  if (metadata) body.metadata = metadata;
  return api(sim, "POST", "/event", { body });
}

describe("simulated devices", function () {
  let sim;
  afterEach(async function () {
    if (sim) await sim.close();
    sim = undefined;
  });

  describe("processing commands", function () {
    beforeEach(async function () {
      sim = await startSim();
    });

    it("puts COMMAND_START then COMMAND_COMPLETE naming the command in the inbox", async function () {
      const sent = await command(sim, "lcd-board", { "/lcd/txt1": "Hi" });
      assert.equal(sent.status, 201);
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.deepEqual(
        events.map((e) => e.elems),
        [
          { cmd: { status: "COMMAND_START", ref: sent.json.body.id } },
          { cmd: { status: "COMMAND_COMPLETE", ref: sent.json.body.id } },
        ],
      );
      assert.ok(events[0].creationDate >= sent.json.body.creationDate);
      assert.match(events[0].id, /^e[0-9a-f]{24}$/);
    });

    it("processes a command sent by stream id", async function () {
      const info = await deviceInfo(sim, "pump-3");
      const sent = await api(sim, "POST", `/event/${info.streams.command.id}`, {
        body: { elems: { app: { enable: { value: true } } } },
      });
      assert.equal(sent.status, 201);
      const events = await inboxOf(sim, "pump-3", 2);
      assert.deepEqual(events.map(statusOf), ["COMMAND_START", "COMMAND_COMPLETE"]);
    });

    it("keeps the command visible in the :command stream", async function () {
      const sent = await command(sim, "lcd-board", { lcd: { txt2: "x" } });
      const path = encodeURIComponent("/demo/devices/lcd-board/:command");
      const res = await api(sim, "GET", `/event?path=${path}`);
      assert.equal(res.json.body[0].id, sent.json.body.id);
    });

    it("matches a resource with or without its /value suffix", async function () {
      await command(sim, "sensor-hub", { "virtual/mode": "manual" });
      await command(sim, "sensor-hub", { "virtual/mode/value": "auto" });
      await command(sim, "sensor-hub", { "/app/period/value": 10, "app/enable": true });
      const events = await inboxOf(sim, "sensor-hub", 6);
      assert.deepEqual(events.map(statusOf), [
        "COMMAND_START",
        "COMMAND_COMPLETE",
        "COMMAND_START",
        "COMMAND_COMPLETE",
        "COMMAND_START",
        "COMMAND_COMPLETE",
      ]);
    });

    it("answers COMMAND_FAULT for a resource the device does not have", async function () {
      const sent = await command(sim, "pump-3", { "/lcd/txt2": "nope" });
      const events = await inboxOf(sim, "pump-3", 2);
      assert.equal(events[0].elems.cmd.status, "COMMAND_START");
      assert.equal(events[1].elems.cmd.status, "COMMAND_FAULT");
      assert.equal(events[1].elems.cmd.ref, sent.json.body.id);
      assert.match(events[1].elems.cmd.reason, /lcd\/txt2/);
    });

    it("processes the commands of a device one at a time, in order", async function () {
      const ids = [];
      for (let i = 0; i < 4; i += 1) {
        const sent = await command(sim, "lcd-board", { "/lcd/txt1": `n${i}` });
        ids.push(sent.json.body.id);
      }
      const events = await inboxOf(sim, "lcd-board", 8);
      const expected = ids.flatMap((id) => [
        { cmd: { status: "COMMAND_START", ref: id } },
        { cmd: { status: "COMMAND_COMPLETE", ref: id } },
      ]);
      assert.deepEqual(
        events.map((e) => e.elems),
        expected,
      );
    });

    it("waits commandDelayMs before each marker", async function () {
      await control(sim, "PUT", "/config", { commandDelayMs: 150 });
      await command(sim, "lcd-board", { "/lcd/txt1": "slow" });
      await sleep(60);
      assert.equal((await inbox(sim, "lcd-board")).length, 0);
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.ok(events[1].creationDate - events[0].creationDate >= 100);
    });

    it("does not process events added by the control interface unless asked", async function () {
      const info = await deviceInfo(sim, "lcd-board");
      await control(sim, "POST", "/events", {
        streamId: info.streams.command.id,
        elems: { "/lcd/txt1": "seeded" },
      });
      await sleep(60);
      assert.equal((await inbox(sim, "lcd-board")).length, 0);
      const sent = await control(sim, "POST", "/events", {
        streamId: info.streams.command.id,
        elems: { "/lcd/txt1": "run" },
        asCommand: true,
      });
      assert.equal(sent.status, 201);
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.equal(events[1].elems.cmd.ref, sent.json.id);
    });
  });

  describe("marker styles", function () {
    it('writes { "<MARKER>": { id } } in the "key" style', async function () {
      sim = await startSim({ markerStyle: "key" });
      const sent = await command(sim, "lcd-board", { "/lcd/txt1": "k" });
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.deepEqual(
        events.map((e) => e.elems),
        [
          { COMMAND_START: { id: sent.json.body.id } },
          { COMMAND_COMPLETE: { id: sent.json.body.id } },
        ],
      );
    });

    it('writes { status } without any id in the "no-id" style', async function () {
      sim = await startSim({ markerStyle: "no-id" });
      await command(sim, "lcd-board", { "/lcd/txt1": "k" });
      await command(sim, "lcd-board", { "/lcd/nope": "k" });
      const events = await inboxOf(sim, "lcd-board", 4);
      assert.deepEqual(
        events.slice(0, 3).map((e) => e.elems),
        [{ status: "COMMAND_START" }, { status: "COMMAND_COMPLETE" }, { status: "COMMAND_START" }],
      );
      assert.equal(events[3].elems.status, "COMMAND_FAULT");
      assert.ok(!JSON.stringify(events.map((e) => e.elems)).includes('"e'));
    });

    it("switches the style at run time through the control interface", async function () {
      sim = await startSim();
      const config = await control(sim, "PUT", "/config", { markerStyle: "key" });
      assert.equal(config.json.markerStyle, "key");
      await api(sim, "PUT", "/device/lcd-board", { body: { state: { "/lcd/txt1": "x" } } });
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.deepEqual(
        events.map((e) => Object.keys(e.elems)[0]),
        ["PUSH_CONFIGURATION_START", "PUSH_CONFIGURATION_COMPLETE"],
      );
    });

    it("gives events UUIDs in the uuid id style, and its markers name them", async function () {
      sim = await startSim({ idStyle: "uuid" });
      const sent = await command(sim, "lcd-board", { "/lcd/txt1": "u" });
      const id = sent.json.body.id;
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.deepEqual(
        events.map((e) => e.elems.cmd.ref),
        [id, id],
      );
      assert.ok(events.every((e) => /^[0-9a-f-]{36}$/.test(e.id)));
    });

    it("switches the id style through the control interface and refuses an unknown one", async function () {
      sim = await startSim();
      assert.equal((await control(sim, "PUT", "/config", { idStyle: "uuid" })).status, 200);
      const sent = await command(sim, "lcd-board", { "/lcd/txt1": "u" });
      assert.equal(sent.json.body.id.length, 36);
      assert.equal((await control(sim, "PUT", "/config", { idStyle: "int" })).status, 400);
    });

    it("returns no more events than maxPageSize, whatever the limit, and refuses a bad one", async function () {
      sim = await startSim();
      await command(sim, "lcd-board", { "/lcd/txt1": "p" });
      await inboxOf(sim, "lcd-board", 2);
      const inbox = `/${sim.company}/devices/lcd-board/:inbox`;
      const page = async (limit, start) =>
        (
          await api(
            sim,
            "GET",
            `/event?path=${encodeURIComponent(inbox)}&limit=${limit}&start=${start}`,
          )
        ).json.body.length;
      const total = await page(1000, 0);
      assert.ok(total >= 2);
      assert.equal((await control(sim, "PUT", "/config", { maxPageSize: 1 })).status, 200);
      assert.equal(await page(1000, 0), 1);
      assert.equal(await page(1000, total - 1), 1);
      assert.equal(await page(1000, total), 0);
      assert.equal((await control(sim, "PUT", "/config", { maxPageSize: -1 })).status, 400);
      assert.equal((await control(sim, "PUT", "/config", { maxPageSize: 0 })).status, 200);
      assert.equal(await page(1000, 0), total);
    });

    it("refuses an unknown marker style", async function () {
      sim = await startSim();
      const res = await control(sim, "PUT", "/config", { markerStyle: "xml" });
      assert.equal(res.status, 400);
    });
  });

  describe("offline devices", function () {
    beforeEach(async function () {
      sim = await startSim();
    });

    it("answers COMMAND_FAULT at ttl expiry and never COMMAND_START", async function () {
      const off = await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
      assert.deepEqual(off.json, { name: "lcd-board", online: false });
      const sent = await command(sim, "lcd-board", { "/lcd/txt1": "late" }, { ttl: 100 });
      await sleep(50);
      assert.equal((await inbox(sim, "lcd-board")).length, 0);
      const [fault] = await inboxOf(sim, "lcd-board", 1);
      assert.equal(fault.elems.cmd.status, "COMMAND_FAULT");
      assert.equal(fault.elems.cmd.ref, sent.json.body.id);
      assert.match(fault.elems.cmd.reason, /ttl expired/);
      assert.ok(fault.creationDate - sent.json.body.creationDate >= 95);
      await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
      await sleep(60);
      assert.deepEqual((await inbox(sim, "lcd-board")).map(statusOf), ["COMMAND_FAULT"]);
    });

    it("honours metadata.timeout like ttl", async function () {
      await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
      await command(sim, "lcd-board", { "/lcd/txt1": "late" }, { timeout: 30 });
      const [fault] = await inboxOf(sim, "lcd-board", 1);
      assert.equal(fault.elems.cmd.status, "COMMAND_FAULT");
    });

    it("processes waiting commands in order once back online", async function () {
      await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
      const a = await command(sim, "lcd-board", { "/lcd/txt1": "a" });
      const b = await command(sim, "lcd-board", { "/lcd/txt1": "b" }, { ttl: 60000 });
      await sleep(50);
      assert.equal((await inbox(sim, "lcd-board")).length, 0);
      assert.equal((await deviceInfo(sim, "lcd-board")).pendingCommands, 2);
      await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
      const events = await inboxOf(sim, "lcd-board", 4);
      assert.deepEqual(
        events.map((e) => [e.elems.cmd.status, e.elems.cmd.ref]),
        [
          ["COMMAND_START", a.json.body.id],
          ["COMMAND_COMPLETE", a.json.body.id],
          ["COMMAND_START", b.json.body.id],
          ["COMMAND_COMPLETE", b.json.body.id],
        ],
      );
    });

    it("clears pending commands and their timers on close", async function () {
      await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
      await command(sim, "lcd-board", { "/lcd/txt1": "a" }, { ttl: 60000 });
      await sim.close();
      sim = undefined;
    });
  });
});
