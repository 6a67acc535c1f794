"use strict";
const assert = require("node:assert/strict");
const net = require("node:net");
const { startSim, api, control, inboxOf } = require("../support/simulator");

const LCD = "d5f3c1a2b0000000000000001";
const TELEMETRY = "s5f3c1a2b0000000000000101";

function assertError(res, status, pattern) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.json.head.status, status);
  assert.equal(res.json.head.ok, false);
  assert.ok(Array.isArray(res.json.head.errors) && res.json.head.errors.length > 0);
  for (const e of res.json.head.errors) assert.equal(typeof e, "string");
  if (pattern) assert.match(res.json.head.errors[0], pattern);
  assert.equal(res.json.body, null);
}

describe("simulator API", function () {
  let sim;
  beforeEach(async function () {
    sim = await startSim();
  });
  afterEach(async function () {
    await sim.close();
  });

  describe("authentication", function () {
    it("answers 401 when the token is missing", async function () {
      assertError(
        await api(sim, "GET", `/device/${LCD}`, { headers: { "x-auth-token": null } }),
        401,
      );
    });

    it("answers 401 when the token is wrong", async function () {
      const res = await api(sim, "GET", `/device/${LCD}`, { headers: { "x-auth-token": "nope" } });
      assertError(res, 401);
    });

    it("answers 401 when X-Auth-User is not the token's user", async function () {
      const res = await api(sim, "GET", `/device/${LCD}`, {
        headers: { "x-auth-user": "mallory" },
      });
      assertError(res, 401);
    });

    it("accepts a request without X-Auth-User", async function () {
      const res = await api(sim, "GET", `/device/${LCD}`, { headers: { "x-auth-user": null } });
      assert.equal(res.status, 200);
    });

    it("answers 403 for a valid token of another company", async function () {
      const res = await api(sim, "GET", `/device/${LCD}`, {
        headers: { "x-auth-token": "other-token-fedcba9876543210", "x-auth-user": null },
      });
      assertError(res, 403);
    });

    it("answers 403 for an unknown company with a valid token", async function () {
      assertError(await api(sim, "GET", `/device/${LCD}`, { company: "nobody" }), 403);
    });

    it("exposes the seed's company, user and token", function () {
      assert.equal(sim.company, "demo");
      assert.equal(sim.user, "demo-user");
      assert.equal(sim.token, "demo-token-0123456789abcdef");
      assert.match(sim.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(sim.url, `http://127.0.0.1:${sim.port}`);
    });
  });

  describe("GET /device", function () {
    it("answers the device in the envelope", async function () {
      const res = await api(sim, "GET", `/device/${LCD}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json.head, {
        status: 200,
        ok: true,
        messages: [],
        errors: [],
        references: {},
      });
      const device = res.json.body;
      assert.equal(device.id, LCD);
      assert.equal(device.name, "lcd-board");
      assert.equal(device.path, "/demo/devices/lcd-board");
      assert.equal(typeof device.avSystemId, "string");
      assert.equal(typeof device.blueprintId.id, "string");
      assert.equal(typeof device.blueprintId.version, "number");
      assert.equal(typeof device.broadcastDate, "number");
      assert.deepEqual(device.state, { "/lcd/txt1": "Hello", "/lcd/txt2": "" });
    });

    it("finds a device by its name", async function () {
      const res = await api(sim, "GET", "/device/sensor-hub");
      assert.equal(res.status, 200);
      assert.equal(res.json.body.name, "sensor-hub");
      assert.deepEqual(res.json.body.state, {
        "/app/period/value": 60,
        "/app/enable/value": true,
        "virtual/mode/value": "auto",
      });
    });

    it("answers 404 with a readable error for an unknown device", async function () {
      const res = await api(sim, "GET", "/device/lcd-bord");
      assertError(res, 404);
      assert.deepEqual(res.json.head.errors, ["Device not found: lcd-bord"]);
    });

    it("does not show a device of another company", async function () {
      assertError(await api(sim, "GET", "/device/other-board"), 404);
    });
  });

  describe("PUT /device", function () {
    it("replaces the whole state and answers the updated device", async function () {
      const res = await api(sim, "PUT", "/device/sensor-hub", {
        body: { state: { "/app/period/value": 30, "/app/enable/value": false } },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.head.ok, true);
      assert.equal(res.json.body.name, "sensor-hub");
      assert.deepEqual(res.json.body.state, {
        "/app/period/value": 30,
        "/app/enable/value": false,
      });
      const again = await api(sim, "GET", "/device/sensor-hub");
      assert.deepEqual(again.json.body.state, res.json.body.state);
    });

    it("puts PUSH_CONFIGURATION markers in the inbox", async function () {
      await api(sim, "PUT", `/device/${LCD}`, { body: { state: { "/lcd/txt1": "Hi" } } });
      const events = await inboxOf(sim, "lcd-board", 2);
      assert.deepEqual(
        events.map((e) => e.elems.cmd.status),
        ["PUSH_CONFIGURATION_START", "PUSH_CONFIGURATION_COMPLETE"],
      );
      assert.equal(events[0].elems.cmd.ref, undefined);
    });

    it("answers 400 for malformed JSON", async function () {
      assertError(await api(sim, "PUT", `/device/${LCD}`, { raw: '{"state": {' }), 400, /JSON/);
    });

    for (const [what, state] of [
      ["an array value", { "/lcd/txt1": ["a"] }],
      ["a null value", { "/lcd/txt1": null }],
      ["a nested object", { "/lcd": { txt1: "a" } }],
      ["a state that is an array", ["a"]],
      ["a missing state", undefined],
    ]) {
      it(`answers 400 for ${what} in state`, async function () {
        const res = await api(sim, "PUT", `/device/${LCD}`, { body: { state } });
        assertError(res, 400);
        const device = await api(sim, "GET", `/device/${LCD}`);
        assert.equal(device.json.body.state["/lcd/txt1"], "Hello");
      });
    }

    it("answers 404 for an unknown device", async function () {
      assertError(await api(sim, "PUT", "/device/nope", { body: { state: {} } }), 404);
    });
  });

  describe("POST /event", function () {
    it("answers 201 with the created event", async function () {
      const before = Date.now();
      const res = await api(sim, "POST", "/event", {
        body: { path: "/demo/telemetry", elems: { temperature: 20 }, metadata: { ttl: 5000 } },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.head.status, 201);
      assert.equal(res.json.head.ok, true);
      assert.deepEqual(res.json.head.messages, [
        "Your request has been processed successfully. A new resource has been created.",
      ]);
      const event = res.json.body;
      assert.match(event.id, /^e[0-9a-f]{24}$/);
      assert.equal(parseInt(event.id.slice(1, 9), 16), Math.floor(event.creationDate / 1000));
      assert.equal(event.streamId, TELEMETRY);
      assert.equal(event.path, "/demo/telemetry");
      assert.equal(event.version, 0);
      assert.ok(event.creationDate >= before && event.creationDate <= Date.now());
      assert.deepEqual(event.elems, { temperature: 20 });
      assert.deepEqual(event.metadata, { ttl: 5000 });
    });

    it("gives every event a distinct id", async function () {
      const ids = new Set();
      for (let i = 0; i < 20; i += 1) {
        const res = await api(sim, "POST", `/event/${TELEMETRY}`, { body: { elems: { i } } });
        ids.add(res.json.body.id);
      }
      assert.equal(ids.size, 20);
    });

    it("accepts nested elems the way real clients send them", async function () {
      const res = await api(sim, "POST", "/event", {
        body: { path: "/demo/devices/lcd-board/:command", elems: { lcd: { txt1: "x" } } },
      });
      assert.equal(res.status, 201);
      assert.deepEqual(res.json.body.elems, { lcd: { txt1: "x" } });
    });

    it("creates an event by stream id", async function () {
      const res = await api(sim, "POST", `/event/${TELEMETRY}`, { body: { elems: { a: 1 } } });
      assert.equal(res.status, 201);
      assert.equal(res.json.body.streamId, TELEMETRY);
      const list = await api(sim, "GET", `/event/${TELEMETRY}?limit=1`);
      assert.equal(list.json.body[0].id, res.json.body.id);
    });

    it("accepts any content type", async function () {
      const res = await api(sim, "POST", `/event/${TELEMETRY}`, {
        body: { elems: { a: 1 } },
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.status, 201);
    });

    it("answers 404 when no stream has the path", async function () {
      const res = await api(sim, "POST", "/event", {
        body: { path: "/demo/nope", elems: { a: 1 } },
      });
      assertError(res, 404, /\/demo\/nope/);
    });

    it("answers 404 for an unknown stream id", async function () {
      const res = await api(sim, "POST", "/event/s000000000000000000000000", {
        body: { elems: { a: 1 } },
      });
      assertError(res, 404);
    });

    it("answers 404 for a stream of another company", async function () {
      const res = await api(sim, "POST", "/event", {
        body: { path: "/other/devices/other-board/:command", elems: { a: 1 } },
      });
      assertError(res, 404);
    });

    for (const [what, elems] of [
      ["empty elems", {}],
      ["elems that are an array", [1]],
      ["missing elems", undefined],
      ["a null value in elems", { a: null }],
      ["an array value in elems", { a: [1] }],
      ["an array nested in elems", { a: { b: [1] } }],
    ]) {
      it(`answers 400 for ${what}`, async function () {
        const res = await api(sim, "POST", `/event/${TELEMETRY}`, { body: { elems } });
        assertError(res, 400);
      });
    }

    it("answers 400 for a ttl that is not an integer", async function () {
      const res = await api(sim, "POST", `/event/${TELEMETRY}`, {
        body: { elems: { a: 1 }, metadata: { ttl: "soon" } },
      });
      assertError(res, 400, /ttl/);
    });

    it("answers 400 for malformed JSON", async function () {
      assertError(await api(sim, "POST", `/event/${TELEMETRY}`, { raw: "{elems:" }), 400);
    });
  });

  describe("GET /event", function () {
    async function fill(n) {
      const stream = await control(sim, "POST", "/streams", { path: "/demo/paged" });
      assert.equal(stream.status, 201);
      for (let i = 0; i < n; i += 1) {
        await api(sim, "POST", `/event/${stream.json.id}`, { body: { elems: { i } } });
      }
      return stream.json.id;
    }

    it("lists events newest first", async function () {
      const id = await fill(5);
      const res = await api(sim, "GET", `/event/${id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.json.body.map((e) => e.elems.i),
        [4, 3, 2, 1, 0],
      );
      const dates = res.json.body.map((e) => e.creationDate);
      assert.deepEqual(
        dates,
        [...dates].sort((a, b) => b - a),
      );
    });

    it("pages with limit and start", async function () {
      const id = await fill(7);
      const res = await api(sim, "GET", `/event/${id}?limit=3&start=2`);
      assert.deepEqual(
        res.json.body.map((e) => e.elems.i),
        [4, 3, 2],
      );
    });

    it("lists oldest first with order=asc", async function () {
      const id = await fill(4);
      const res = await api(sim, "GET", `/event/${id}?order=asc&limit=3&start=1`);
      assert.deepEqual(
        res.json.body.map((e) => e.elems.i),
        [1, 2, 3],
      );
    });

    it("answers 20 events by default", async function () {
      const added = await control(sim, "POST", "/events", {
        streamId: TELEMETRY,
        elems: { bulk: true },
        count: 30,
      });
      assert.deepEqual(added.json, { added: 30, streamId: TELEMETRY });
      const res = await api(sim, "GET", `/event/${TELEMETRY}`);
      assert.equal(res.json.body.length, 20);
      assert.equal(res.json.body[0].elems.seq, 29);
    });

    it("answers an empty array when start is beyond the end", async function () {
      const id = await fill(2);
      const res = await api(sim, "GET", `/event/${id}?start=5`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json.body, []);
    });

    for (const query of ["limit=abc", "limit=-1", "limit=1.5", "start=-2", "start=x"]) {
      it(`answers 400 for ${query}`, async function () {
        assertError(await api(sim, "GET", `/event/${TELEMETRY}?${query}`), 400);
      });
    }

    it("lists a stream by path", async function () {
      const res = await api(sim, "GET", "/event?path=/demo/telemetry&limit=2");
      assert.equal(res.status, 200);
      assert.equal(res.json.body.length, 2);
      assert.equal(res.json.body[0].path, "/demo/telemetry");
    });

    it("answers 404 for an unknown path", async function () {
      assertError(await api(sim, "GET", "/event?path=/demo/nope"), 404);
    });

    it("answers 404 for an unknown stream id", async function () {
      assertError(await api(sim, "GET", "/event/s000000000000000000000000"), 404);
    });

    it("drops the oldest events past the stream's capacity", async function () {
      const stream = await control(sim, "POST", "/streams", { path: "/demo/small", capacity: 3 });
      assert.equal(stream.json.capacity, 3);
      for (let i = 0; i < 5; i += 1) {
        await api(sim, "POST", "/event", { body: { path: "/demo/small", elems: { i } } });
      }
      const res = await api(sim, "GET", `/event/${stream.json.id}?limit=100`);
      assert.deepEqual(
        res.json.body.map((e) => e.elems.i),
        [4, 3, 2],
      );
    });

    it("pages through 100,000 events quickly", async function () {
      // "Quickly" is this process's CPU time, which the simulator and the client share here: the
      // wall clock also counts the time other processes had the CPUs, and a loaded machine took
      // 13 of the 15 s it allowed (issue 36). The test's own timeout is a bound, not a speed.
      this.timeout(60_000);
      const stream = await control(sim, "POST", "/streams", {
        path: "/demo/big",
        capacity: 100000,
      });
      const added = await control(sim, "POST", "/events", {
        streamId: stream.json.id,
        elems: { v: 1 },
        count: 100000,
      });
      assert.equal(added.json.added, 100000);
      const cpu = process.cpuUsage();
      let seen = 0;
      for (let start = 0; start < 100000; start += 1000) {
        const res = await api(sim, "GET", `/event/${stream.json.id}?limit=1000&start=${start}`);
        assert.equal(res.json.body.length, 1000);
        if (start === 0) assert.equal(res.json.body[0].elems.seq, 99999);
        seen += res.json.body.length;
      }
      assert.equal(seen, 100000);
      const { user, system } = process.cpuUsage(cpu);
      const ms = (user + system) / 1000;
      assert.ok(ms < 15000, `${Math.round(ms)} ms of CPU`);
    });
  });

  describe("HTTP handling", function () {
    it("answers 404 in the envelope for an unknown path", async function () {
      assertError(await api(sim, "GET", "/nothing/here"), 404);
      const root = await fetch(`${sim.url}/elsewhere`);
      assert.equal(root.status, 404);
      assert.equal((await root.json()).head.ok, false);
    });

    it("answers 405 for an unknown method", async function () {
      assertError(await api(sim, "DELETE", `/device/${LCD}`), 405);
      assertError(await api(sim, "PATCH", `/event/${TELEMETRY}`, { raw: "{}" }), 405);
    });

    it("answers 413 for a body larger than 1 MB", async function () {
      const big = JSON.stringify({ elems: { x: "a".repeat(1024 * 1024 + 10) } });
      assertError(await api(sim, "POST", `/event/${TELEMETRY}`, { raw: big }), 413);
    });

    it("survives a socket aborted in the middle of a request", async function () {
      await new Promise((resolve, reject) => {
        const socket = net.connect(sim.port, "127.0.0.1", () => {
          socket.write(
            `POST /v5.0/demo/event/${TELEMETRY} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"el`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 20);
        });
        socket.on("error", reject);
      });
      await new Promise((resolve, reject) => {
        const socket = net.connect(sim.port, "127.0.0.1", () => {
          socket.end("GARBAGE\r\n\r\n");
        });
        socket.on("error", reject);
        socket.on("close", resolve);
        socket.resume();
      });
      const res = await api(sim, "GET", `/device/${LCD}`);
      assert.equal(res.status, 200);
    });

    it("serves many requests over keep-alive connections", async function () {
      // A bound, not a speed: 1,000 requests took more than 10 s beside a loaded parallel pass
      // (issue 36); what is asserted is that every one was served.
      this.timeout(60_000);
      const workers = Array.from({ length: 10 }, async () => {
        for (let i = 0; i < 100; i += 1) {
          const res = await api(sim, "GET", `/event/${TELEMETRY}?limit=5`);
          assert.equal(res.status, 200);
        }
      });
      await Promise.all(workers);
      assert.equal(sim.stats().total, 1000);
    });
  });
});
