// edge-send-command in a real Node-RED runtime against the simulator.
"use strict";
const assert = require("node:assert/strict");
const { control, inboxOf } = require("../support/simulator");
const { unload, next, statuses, withRedAndSimulator, caughtCode } = require("../support/red");
const { startNode } = require("../support/flow");
const { SEED } = require("../support/seed");

const LCD_COMMAND = SEED.lcd.commandStream;

function start(sim, props = {}, accountProps = {}, creds = {}) {
  return startNode(
    sim,
    {
      type: "edge-send-command",
      target: "device",
      device: SEED.lcd.name,
      stream: "",
      elems: "",
      ttl: "",
      ...props,
    },
    { account: accountProps, credentials: creds },
  );
}

async function lastRequest(sim) {
  return (await control(sim, "GET", "/requests?limit=1")).json[0];
}

describe("edge-send-command", function () {
  const env = withRedAndSimulator();

  it("sends msg.payload as elems to the device's :command stream by path", async function () {
    const { n1, out } = await start(env.sim);
    const shown = statuses(n1);
    n1.receive({ payload: { "/lcd/txt1": "Hello world" } });
    const msg = await next(out);
    assert.match(msg.payload.id, /^e[0-9a-f]{24}$/);
    assert.deepEqual(msg.payload.elems, { "/lcd/txt1": "Hello world" });
    assert.deepEqual(msg.command, {
      id: msg.payload.id,
      streamId: LCD_COMMAND,
      path: "/demo/devices/lcd-board/:command",
      creationDate: msg.payload.creationDate,
      device: "lcd-board",
      ttl: undefined,
      sentAt: msg.command.sentAt,
    });
    const req = await lastRequest(env.sim);
    assert.equal(req.url, "/v5.0/demo/event");
    assert.deepEqual(JSON.parse(req.body), {
      path: "/demo/devices/lcd-board/:command",
      elems: { "/lcd/txt1": "Hello world" },
    });
    assert.equal(shown[0].fill, "blue");
    assert.equal(shown.at(-1).fill, "green");
    assert.equal(shown.at(-1).text, "sent");
    const inbox = await inboxOf(env.sim, "lcd-board", 2);
    assert.match(JSON.stringify(inbox), /COMMAND_COMPLETE/);
  });

  it("sends nested elems as written, never rewriting the keys", async function () {
    const { n1, out } = await start(env.sim);
    n1.receive({ payload: { lcd: { txt1: "nested" } } });
    const msg = await next(out);
    assert.deepEqual(JSON.parse((await lastRequest(env.sim)).body).elems, {
      lcd: { txt1: "nested" },
    });
    assert.deepEqual(msg.payload.elems, { lcd: { txt1: "nested" } });
  });

  it("sends to a stream id with POST /event/<id> from the Stream property or msg.streamId", async function () {
    const { n1, out } = await start(env.sim, { target: "stream", stream: "" });
    n1.receive({ streamId: LCD_COMMAND, payload: { "/lcd/txt2": "by id" } });
    const msg = await next(out);
    assert.equal((await lastRequest(env.sim)).url, `/v5.0/demo/event/${LCD_COMMAND}`);
    assert.equal(msg.command.streamId, LCD_COMMAND);
    assert.equal(msg.command.device, "lcd-board");
  });

  it("sends to a stream given by its path (as the editor's picker fills it in) with POST /event", async function () {
    const path = "/demo/devices/lcd-board/:command";
    const { n1, out } = await start(env.sim, { target: "stream", stream: path });
    n1.receive({ payload: { "/lcd/txt2": "by path" } });
    const msg = await next(out);
    const req = await lastRequest(env.sim);
    assert.equal(req.url, "/v5.0/demo/event");
    assert.equal(JSON.parse(req.body).path, path);
    assert.equal(msg.command.device, "lcd-board");
  });

  it("renders the Elems property with mustache when msg.payload is not an object, escaping for JSON", async function () {
    const { n1, out } = await start(env.sim, {
      elems: '{"/lcd/txt1": "{{payload}}", "/lcd/txt2": {{count}}}',
    });
    n1.receive({ payload: 'say "hi" & <bye>', count: 3 });
    await next(out);
    assert.deepEqual(JSON.parse((await lastRequest(env.sim)).body).elems, {
      "/lcd/txt1": 'say "hi" & <bye>',
      "/lcd/txt2": 3,
    });
  });

  it("uses the device from msg.deviceId and mustache in the Device property", async function () {
    const { n1, out } = await start(env.sim, { device: "{{topic}}" });
    n1.receive({ topic: "pump-3", payload: { "/app/enable/value": true } });
    const msg = await next(out);
    assert.equal(msg.command.device, "pump-3");
    const second = await start2(env.sim, { device: "" });
    second.n1.receive({ deviceId: "sensor-hub", payload: { "virtual/mode/value": "eco" } });
    assert.equal((await next(second.out)).command.device, "sensor-hub");
  });

  async function start2(sim, props) {
    await unload();
    return start(env.sim, props);
  }

  it("turns a device id into its name once per account for the command's stream path", async function () {
    const { n1, out } = await start(env.sim, { device: "" });
    n1.receive({ deviceId: "d5f3c1a2b0000000000000001", payload: { "/lcd/txt1": "by id" } });
    const first = await next(out);
    assert.equal(first.command.device, "lcd-board");
    assert.equal(first.command.path, "/demo/devices/lcd-board/:command");
    n1.receive({ deviceId: "d5f3c1a2b0000000000000001", payload: { "/lcd/txt1": "again" } });
    await next(out);
    const byRoute = env.sim.stats().byRoute;
    assert.equal(byRoute["GET /v5.0/demo/device/d5f3c1a2b0000000000000001"], 1);
    assert.equal(byRoute["POST /v5.0/demo/event"], 2);
  });

  it("sends the ttl as metadata.ttl, with msg.ttl overriding the property", async function () {
    const { n1, out } = await start(env.sim, { ttl: "5000" });
    n1.receive({ payload: { "/lcd/txt1": "a" } });
    assert.equal((await next(out)).command.ttl, 5000);
    assert.deepEqual(JSON.parse((await lastRequest(env.sim)).body).metadata, { ttl: 5000 });
    n1.receive({ payload: { "/lcd/txt1": "b" }, ttl: 900 });
    assert.equal((await next(out)).command.ttl, 900);
    assert.deepEqual(JSON.parse((await lastRequest(env.sim)).body).metadata, { ttl: 900 });
  });

  it("outputs payload null and a command with the local send time when the server returns no body", async function () {
    await control(env.sim, "POST", "/faults", { path: "/event", body: "null-body" });
    const { n1, out } = await start(env.sim);
    const before = Date.now();
    n1.receive({ payload: { "/lcd/txt1": "x" } });
    const msg = await next(out);
    assert.equal(msg.payload, null);
    assert.equal(msg.command.id, undefined);
    assert.equal(msg.command.device, "lcd-board");
    assert.ok(msg.command.creationDate >= before && msg.command.creationDate <= Date.now());
  });

  const invalid = [
    ["an empty object", { payload: {} }, {}, /msg\.payload is empty/],
    ["an array", { payload: [1] }, {}, /msg\.payload must be an object, got an array/],
    [
      "a string with no Elems property",
      { payload: "x" },
      {},
      /msg\.payload must be an object, got a string/,
    ],
    [
      "a null value",
      { payload: { "/a": null } },
      {},
      /the value of "\/a" must be a string, number or boolean, got null/,
    ],
    ["a nested array", { payload: { a: { b: [1] } } }, {}, /the value of "a\/b" .* got an array/],
    ["an empty nested object", { payload: { a: {} } }, {}, /msg\.payload at "a" is empty/],
    [
      "invalid Elems JSON",
      { payload: "x" },
      { elems: '{"/a": {{payload}}' },
      /Elems is not valid JSON after mustache rendering/,
    ],
    [
      "Elems that are not an object",
      { payload: 1 },
      { elems: "[1]" },
      /Elems must be an object, got an array/,
    ],
    [
      "a negative msg.ttl",
      { payload: { a: 1 }, ttl: -1 },
      {},
      /ttl must be a whole number from 0 to 2147483647, got -1/,
    ],
    [
      "a fractional ttl",
      { payload: { a: 1 } },
      { ttl: "1.5" },
      /ttl must be a whole number .* got "1\.5"/,
    ],
    ["an empty device", { payload: { a: 1 } }, { device: "" }, /No device/],
    ["an empty stream", { payload: { a: 1 } }, { target: "stream", stream: "" }, /No stream/],
  ];
  for (const [what, input, props, message] of invalid) {
    it(`reports ${what} to a Catch node before any request`, async function () {
      const { n1, caught } = await start(env.sim, props);
      n1.receive(input);
      const msg = await next(caught);
      assert.match(msg.error.message, message);
      assert.equal(env.sim.stats().total, 0);
    });
  }

  it("reports an unknown device as the device's 404, as edge-device-state does, not as a missing stream", async function () {
    const { n1, caught } = await start(env.sim, { device: "lcd-bord" });
    n1.receive({ payload: { a: 1 } });
    const msg = await next(caught);
    assert.equal(caughtCode(msg), "not-found");
    assert.equal(msg.statusCode, 404);
    assert.match(
      msg.error.message,
      /Not found \(HTTP 404\) for GET \/v5\.0\/demo\/device\/lcd-bord/,
    );
    assert.doesNotMatch(msg.error.message, /Stream not found/);
  });

  it("reports an unknown device by its name on a server that takes ids only", async function () {
    const { startRestricted } = require("../support/restricted-server");
    const server = await startRestricted(env.sim, { idsOnly: true });
    try {
      const { n1, caught } = await start(server, { device: "lcd-bord" });
      n1.receive({ payload: { a: 1 } });
      const msg = await next(caught);
      assert.equal(msg.statusCode, 404);
      assert.match(msg.error.message, /device\/lcd-bord/);
      assert.doesNotMatch(msg.error.message, /Stream not found/);
    } finally {
      await server.close();
    }
  });

  it("reports an unknown stream id (404) to a Catch node", async function () {
    const { n1, caught } = await start(env.sim, {
      target: "stream",
      stream: "s000000000000000000000bad",
    });
    n1.receive({ payload: { a: 1 } });
    const msg = await next(caught);
    assert.equal(msg.statusCode, 404);
    assert.match(msg.error.message, /Not found \(HTTP 404\)/);
  });

  it("reports a wrong token (401) to a Catch node", async function () {
    const { n1, caught } = await start(env.sim, {}, {}, { token: "nope" });
    n1.receive({ payload: { a: 1 } });
    const msg = await next(caught);
    assert.equal(msg.statusCode, 401);
    assert.equal(caughtCode(msg), "auth");
  });
});
