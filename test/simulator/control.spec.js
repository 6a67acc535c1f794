"use strict";
const assert = require("node:assert/strict");
const { startSim, api, control, deviceInfo } = require("../support/simulator");

describe("simulator control interface", function () {
  let sim;
  beforeEach(async function () {
    sim = await startSim();
  });
  afterEach(async function () {
    await sim.close();
  });

  it("counts /v5.0 requests by method and raw pathname", async function () {
    await api(sim, "GET", "/device/lcd-board");
    await api(sim, "GET", "/device/lcd-board");
    await api(sim, "GET", "/event/s5f3c1a2b0000000000000101?limit=1");
    await control(sim, "GET", "/stats");
    const stats = (await control(sim, "GET", "/stats")).json;
    assert.deepEqual(stats, {
      total: 3,
      byRoute: {
        "GET /v5.0/demo/device/lcd-board": 2,
        "GET /v5.0/demo/event/s5f3c1a2b0000000000000101": 1,
      },
    });
    assert.deepEqual(sim.stats(), stats);
    await control(sim, "POST", "/stats/reset");
    assert.deepEqual(sim.stats(), { total: 0, byRoute: {} });
  });

  it("logs the last requests with their headers, body, time and status", async function () {
    const before = Date.now();
    await api(sim, "POST", "/event?x=1", {
      body: { path: "/demo/telemetry", elems: { a: 1 } },
    });
    await api(sim, "GET", "/device/nope");
    const log = (await control(sim, "GET", "/requests")).json;
    assert.equal(log.length, 2);
    const [first, second] = log;
    assert.equal(first.method, "POST");
    assert.equal(first.url, "/v5.0/demo/event?x=1");
    assert.equal(first.pathname, "/v5.0/demo/event");
    assert.equal(first.headers["x-auth-token"], sim.token);
    assert.equal(first.headers["content-type"], "text/plain; charset=utf-8");
    assert.deepEqual(JSON.parse(first.body), { path: "/demo/telemetry", elems: { a: 1 } });
    assert.equal(first.status, 201);
    assert.ok(first.time >= before - 5 && first.time <= Date.now() + 5);
    assert.equal(second.status, 404);
    assert.equal(
      (await control(sim, "GET", "/requests?limit=1")).json[0].pathname,
      second.pathname,
    );
    await control(sim, "DELETE", "/requests");
    assert.deepEqual((await control(sim, "GET", "/requests")).json, []);
  });

  it("truncates logged bodies to 2000 characters", async function () {
    await api(sim, "POST", "/event/s5f3c1a2b0000000000000101", {
      body: { elems: { long: "x".repeat(5000) } },
    });
    const [entry] = (await control(sim, "GET", "/requests?limit=1")).json;
    assert.equal(entry.body.length, 2000);
  });

  it("creates a device with its streams and answers 409 for a taken name", async function () {
    const res = await control(sim, "POST", "/devices", {
      name: "valve-9",
      resources: ["/app/open/value"],
      state: { "/app/open/value": false },
    });
    assert.equal(res.status, 201, res.text);
    assert.match(res.json.id, /^d[0-9a-f]{24}$/);
    assert.equal(res.json.name, "valve-9");
    assert.equal(res.json.online, true);
    assert.match(res.json.streams.command.id, /^s[0-9a-f]{24}$/);
    assert.equal(res.json.streams.inbox.path, "/demo/devices/valve-9/:inbox");
    const got = await api(sim, "GET", "/device/valve-9");
    assert.deepEqual(got.json.body.state, { "/app/open/value": false });
    assert.equal((await control(sim, "POST", "/devices", { name: "valve-9" })).status, 409);
  });

  it("creates a device in another company", async function () {
    const res = await control(sim, "POST", "/devices", { name: "x1", company: "other" });
    assert.equal(res.status, 201);
    assert.equal(res.json.path, "/other/devices/x1");
  });

  it("describes a device with its stream ids and online flag", async function () {
    const info = await deviceInfo(sim, "lcd-board");
    assert.equal(info.device.id, "d5f3c1a2b0000000000000001");
    assert.equal(info.streams.command.path, "/demo/devices/lcd-board/:command");
    assert.equal(info.streams.command.count, 0);
    assert.equal(info.online, true);
    assert.equal((await control(sim, "GET", "/devices/nope")).status, 404);
  });

  it("creates a stream and finds it by path", async function () {
    const res = await control(sim, "POST", "/streams", { path: "/demo/logs", capacity: 50 });
    assert.equal(res.status, 201);
    assert.match(res.json.id, /^s[0-9a-f]{24}$/);
    assert.equal(res.json.name, "logs");
    assert.equal(res.json.capacity, 50);
    assert.equal(typeof res.json.creationDate, "number");
    const got = await control(sim, "GET", "/streams?path=/demo/logs");
    assert.equal(got.json.id, res.json.id);
    assert.equal(got.json.count, 0);
    assert.equal((await control(sim, "GET", "/streams?path=/demo/none")).status, 404);
    assert.equal((await control(sim, "POST", "/streams", { path: "/demo/logs" })).status, 409);
    const big = await control(sim, "POST", "/streams", { path: "/demo/x", capacity: 100001 });
    assert.equal(big.status, 400);
  });

  it("adds an event with a chosen creation date, in date order", async function () {
    const stream = (await control(sim, "POST", "/streams", { path: "/demo/dated" })).json;
    await control(sim, "POST", "/events", {
      path: "/demo/dated",
      elems: { n: 2 },
      creationDate: 2000,
    });
    await control(sim, "POST", "/events", {
      path: "/demo/dated",
      elems: { n: 3 },
      creationDate: 3000,
    });
    const one = await control(sim, "POST", "/events", {
      streamId: stream.id,
      elems: { n: 1 },
      creationDate: 1000,
    });
    assert.equal(one.status, 201);
    assert.equal(one.json.creationDate, 1000);
    const list = await api(sim, "GET", `/event/${stream.id}`);
    assert.deepEqual(
      list.json.body.map((e) => e.elems.n),
      [3, 2, 1],
    );
  });

  it("adds a list of events to several streams in one request, or none if one is bad", async function () {
    await control(sim, "POST", "/streams", { path: "/demo/list-a" });
    const b = (await control(sim, "POST", "/streams", { path: "/demo/list-b" })).json;
    const res = await control(sim, "POST", "/events", {
      events: [
        { path: "/demo/list-a", elems: { n: 1 } },
        { streamId: b.id, elems: { n: 2 } },
        { path: "/demo/list-a", elems: { n: 3 } },
      ],
    });
    assert.equal(res.status, 201);
    assert.equal(res.json.added, 3);
    const a = await control(sim, "GET", "/streams?path=/demo/list-a");
    assert.equal(a.json.count, 2);
    const bad = await control(sim, "POST", "/events", {
      events: [
        { path: "/demo/list-b", elems: { n: 4 } },
        { path: "/demo/none", elems: { n: 5 } },
      ],
    });
    assert.equal(bad.status, 400);
    assert.equal((await control(sim, "GET", "/streams?path=/demo/list-b")).json.count, 1);
  });

  it("answers 404 for an unknown control route", async function () {
    assert.equal((await control(sim, "GET", "/nothing")).status, 404);
  });

  it("answers 400 for malformed control JSON", async function () {
    const res = await fetch(`${sim.url}/_sim/devices`, { method: "POST", body: "{" });
    assert.equal(res.status, 400);
  });

  it("resets to the seed", async function () {
    await control(sim, "POST", "/devices", { name: "temp" });
    await control(sim, "PUT", "/config", {
      commandDelayMs: 500,
      markerStyle: "key",
      idStyle: "uuid",
      maxPageSize: 40,
    });
    await control(sim, "POST", "/faults", { status: 500, count: 10 });
    await api(sim, "PUT", "/device/lcd-board", { body: { state: {} } });
    const reset = await control(sim, "POST", "/reset");
    assert.equal(reset.status, 200);
    assert.deepEqual(sim.stats(), { total: 0, byRoute: {} });
    assert.deepEqual((await control(sim, "GET", "/faults")).json, []);
    const config = (await control(sim, "GET", "/config")).json;
    assert.deepEqual(config, {
      commandDelayMs: 5,
      markerStyle: "value",
      idStyle: "octave",
      maxPageSize: 0,
    });
    assert.equal((await control(sim, "GET", "/devices/temp")).status, 404);
    const device = await api(sim, "GET", "/device/lcd-board");
    assert.equal(device.json.body.state["/lcd/txt1"], "Hello");
  });

  it("starts from a seed given as an object", async function () {
    await sim.close();
    sim = await startSim({
      seed: {
        companies: [{ name: "acme", users: [{ name: "bob", token: "t-1" }] }],
        devices: [{ name: "d1", resources: ["/x"] }],
      },
    });
    assert.equal(sim.company, "acme");
    assert.equal(sim.user, "bob");
    assert.equal(sim.token, "t-1");
    assert.equal((await api(sim, "GET", "/device/d1")).status, 200);
  });
});
