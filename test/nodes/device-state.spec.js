// edge-device-state in a real Node-RED runtime (test helper) against the simulator.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("../support/simulator");
const { next, collect, statuses, withRedAndSimulator, caughtCode } = require("../support/red");
const { startNode } = require("../support/flow");
const { SEED } = require("../support/seed");

const LCD = SEED.lcd.id;

function start(sim, props = {}, accountProps = {}, creds = {}) {
  return startNode(
    sim,
    { type: "edge-device-state", device: "", mode: "get", ...props },
    { account: accountProps, credentials: creds },
  );
}

describe("edge-device-state", function () {
  const env = withRedAndSimulator();

  it("gets a device: msg.payload is its state and msg.device the whole device", async function () {
    const { n1, out } = await start(env.sim, { device: LCD });
    const shown = statuses(n1);
    n1.receive({ payload: "go" });
    const msg = await next(out);
    assert.deepEqual(msg.payload, { "/lcd/txt1": "Hello", "/lcd/txt2": "" });
    assert.equal(msg.device.id, LCD);
    assert.equal(msg.device.name, "lcd-board");
    assert.deepEqual(shown[0], { fill: "blue", shape: "dot", text: "requesting" });
    assert.equal(shown.at(-1).fill, "green");
    assert.equal(shown.at(-1).text, "read, 2 keys");
  });

  it("uses msg.deviceId when the Device property is empty", async function () {
    const { n1, out } = await start(env.sim, { device: "" });
    n1.receive({ deviceId: "sensor-hub" });
    const msg = await next(out);
    assert.equal(msg.payload["/app/period/value"], 60);
  });

  it("renders mustache in the Device property against the msg", async function () {
    const { n1, out } = await start(env.sim, { device: "{{payload.id}}" });
    n1.receive({ payload: { id: "sensor-hub" } });
    const msg = await next(out);
    assert.equal(msg.device.name, "sensor-hub");
  });

  it("inserts mustache values without HTML escaping and sends them encoded", async function () {
    const { n1, caught } = await start(env.sim, { device: "{{payload.id}}" });
    n1.receive({ payload: { id: "a&b/c.d" } });
    await next(caught);
    // The device path first; after its 404 the name is looked up in the device list.
    const urls = (await control(env.sim, "GET", "/requests?limit=2")).json.map((r) => r.url);
    assert.ok(urls.includes("/v5.0/demo/device/a%26b%2Fc.d"), String(urls));
  });

  it("replaces the whole state with msg.payload", async function () {
    const { n1, out } = await start(env.sim, { device: "lcd-board", mode: "replace" });
    const shown = statuses(n1);
    n1.receive({ payload: { "/lcd/txt1": "Bye", "/lcd/period": 5, "/lcd/on": true } });
    const msg = await next(out);
    assert.deepEqual(msg.payload, { "/lcd/txt1": "Bye", "/lcd/period": 5, "/lcd/on": true });
    assert.equal(msg.device.id, LCD);
    assert.equal(shown.at(-1).text, "replaced, 3 keys");
    n1.receive({ payload: { "/lcd/txt1": "One" } });
    await next(out);
    assert.equal(shown.at(-1).text, "replaced, 1 key");
  });

  it("merges keys into the state, removing those set to null", async function () {
    const { n1, out } = await start(env.sim, { device: "lcd-board", mode: "merge" });
    n1.receive({ payload: { "/lcd/txt1": "Merged", "/lcd/txt2": null, "/lcd/txt3": "new" } });
    const msg = await next(out);
    assert.deepEqual(msg.payload, { "/lcd/txt1": "Merged", "/lcd/txt3": "new" });
  });

  it("keeps all of 20 merges of different keys sent at once to one device", async function () {
    const { n1, out } = await start(
      env.sim,
      { device: "lcd-board", mode: "merge" },
      { rate: 0, concurrency: 8 },
    );
    const all = collect(out, 20, 10000);
    for (let i = 0; i < 20; i++) n1.receive({ payload: { [`/k/${i}`]: i } });
    await all;
    const res = await fetch(`${env.sim.url}/v5.0/demo/device/lcd-board`, {
      headers: { "x-auth-token": env.sim.token },
    });
    const state = (await res.json()).body.state;
    for (let i = 0; i < 20; i++) assert.equal(state[`/k/${i}`], i, `key /k/${i} was lost`);
    assert.equal(state["/lcd/txt1"], "Hello");
  });

  it("coalesces the statuses of a busy node and ends on the last result", async function () {
    const { n1, out } = await start(env.sim, { device: LCD }, { rate: 0 });
    const shown = statuses(n1);
    const all = collect(out, 50);
    for (let i = 0; i < 50; i++) n1.receive({ payload: i });
    await all;
    assert.ok(shown.length < 50, `${shown.length} status updates for 50 messages`);
    assert.equal(shown.at(-1).fill, "green");
    assert.equal(shown.at(-1).text, "read, 2 keys");
  });

  const invalid = [
    [
      "a string payload in replace",
      "replace",
      "text",
      /msg\.payload must be an object, got a string/,
    ],
    ["an array payload in merge", "merge", [1, 2], /msg\.payload must be an object, got an array/],
    [
      "a nested value in replace",
      "replace",
      { "/a": { b: 1 } },
      /the value of "\/a" must be a string, number or boolean, got an object/,
    ],
    [
      "an array value in merge",
      "merge",
      { "/a": [1] },
      /the value of "\/a" must be a string, number or boolean, got an array/,
    ],
    [
      "null in replace",
      "replace",
      { "/a": null },
      /null removes a key and is allowed in merge mode only/,
    ],
    ["NaN in replace", "replace", { "/a": NaN }, /got NaN/],
  ];
  for (const [what, mode, payload, message] of invalid) {
    it(`reports ${what} to a Catch node before any request`, async function () {
      const { n1, caught } = await start(env.sim, { device: "lcd-board", mode });
      const shown = statuses(n1);
      n1.receive({ payload });
      const msg = await next(caught);
      assert.match(msg.error.message, message);
      assert.equal(msg.error.source.id, "n1");
      assert.equal(env.sim.stats().total, 0);
      assert.equal(shown.at(-1).fill, "red");
      assert.equal(shown.at(-1).shape, "ring");
    });
  }

  it("reports an empty device after mustache to a Catch node", async function () {
    const { n1, caught } = await start(env.sim, { device: "{{payload.missing}}" });
    n1.receive({ payload: {} });
    const msg = await next(caught);
    assert.match(msg.error.message, /No device/);
    assert.equal(env.sim.stats().total, 0);
  });

  it("reports an unknown device (404) to a Catch node with the API's message and status", async function () {
    const { n1, caught } = await start(env.sim, { device: "lcd-bord" });
    const shown = statuses(n1);
    n1.receive({ payload: 1 });
    const msg = await next(caught);
    assert.match(msg.error.message, /Not found \(HTTP 404\).*lcd-bord/);
    assert.equal(caughtCode(msg), "not-found");
    assert.equal(msg.statusCode, 404);
    assert.equal(msg.edgeError.status, 404);
    assert.ok(msg.edgeError.errors.length > 0);
    // A short status; the whole sentence is in the error.
    assert.deepEqual(shown.at(-1), { fill: "red", shape: "ring", text: "404 not found" });
  });

  it("reports a wrong token (401) to a Catch node", async function () {
    const { n1, caught } = await start(env.sim, { device: LCD }, {}, { token: "not-the-token" });
    n1.receive({ payload: 1 });
    const msg = await next(caught);
    assert.match(msg.error.message, /refused the credentials \(HTTP 401\)/);
    assert.equal(msg.statusCode, 401);
  });

  it("cannot be redirected by msg properties such as baseUrl, headers or token", async function () {
    const { n1, out } = await start(env.sim, { device: LCD });
    n1.receive({
      baseUrl: "http://127.0.0.2:1",
      url: "http://127.0.0.2:1",
      headers: { "x-auth-token": "x" },
      token: "x",
    });
    const msg = await next(out);
    assert.equal(msg.device.id, LCD);
    const [req] = (await control(env.sim, "GET", "/requests?limit=1")).json;
    assert.equal(req.headers["x-auth-token"], env.sim.token);
  });

  it("reports a missing account as an error", async function () {
    const { n1, caught } = await start(env.sim, { account: "" });
    n1.receive({ deviceId: LCD });
    const msg = await next(caught);
    assert.match(msg.error.message, /No account is configured/);
  });
});

// One meaning for Device: an id or a name, against a server that takes no name in a device path.
describe("edge-device-state against a server that knows devices by id only", function () {
  const env = withRedAndSimulator();
  const { startRestricted } = require("../support/restricted-server");
  let server;

  afterEach(async function () {
    await server?.close();
    server = undefined;
  });

  it("reads, replaces and merges a device given by name, looking its id up once in the device list", async function () {
    server = await startRestricted(env.sim, { idsOnly: true });
    const { n1, out } = await start(server, { device: "lcd-board" });
    n1.receive({ payload: 1 });
    assert.equal((await next(out)).device.id, LCD);
    n1.receive({ payload: 2 });
    assert.equal((await next(out)).device.id, LCD);
    // The name was answered 404 once, then listed once; from then on only the id is used.
    assert.deepEqual(server.seen, [
      "GET /v5.0/demo/device/lcd-board",
      "GET /v5.0/demo/device",
      `GET /v5.0/demo/device/${LCD}`,
      `GET /v5.0/demo/device/${LCD}`,
    ]);
  });

  it("merges by name on such a server", async function () {
    server = await startRestricted(env.sim, { idsOnly: true });
    const { n1, out } = await start(server, { device: "lcd-board", mode: "merge" });
    n1.receive({ payload: { "/lcd/txt2": "by name" } });
    const msg = await next(out);
    assert.deepEqual(msg.payload, { "/lcd/txt1": "Hello", "/lcd/txt2": "by name" });
  });

  it("says to use the id when the server lists no devices either", async function () {
    server = await startRestricted(env.sim, { idsOnly: true, noList: 405 });
    const { n1, caught } = await start(server, { device: "lcd-board" });
    n1.receive({ payload: 1 });
    const msg = await next(caught);
    assert.equal(caughtCode(msg), "device-unknown");
    assert.match(msg.error.message, /No device "lcd-board".*Use the device id/);
  });

  it("still reports an unknown name as 404 when the list has no device of that name", async function () {
    server = await startRestricted(env.sim, { idsOnly: true });
    const { n1, caught } = await start(server, { device: "no-such-board" });
    n1.receive({ payload: 1 });
    const msg = await next(caught);
    assert.equal(caughtCode(msg), "not-found");
  });
});
