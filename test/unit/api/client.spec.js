// The API client against the simulator on a free loopback port: the five operations, the headers
// and encoding it sends, and every way a request can fail becoming one EdgeError.
"use strict";
const assert = require("node:assert/strict");
const net = require("node:net");
const { EdgeClient } = require("../../../dist/nodes/lib/api/client");
const { EdgeError } = require("../../../dist/nodes/lib/api/errors");
// An EdgeError's sentence comes from the shipped English catalog, which every node loads with this
// module: alone, this spec saw `http (method=PUT, ...)` where a node's error says "HTTP 400".
require("../../../dist/nodes/lib/node-red/i18n");
const { startSim, control } = require("../../support/simulator");
const { capture } = require("../../support/capture");

const LCD = "d5f3c1a2b0000000000000001";
const LCD_INBOX = "s5f3c1a2b0000000000000012";

async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    capture("client error", err);
    return err;
  }
  assert.fail("expected the call to fail");
}

async function lastRequest(sim) {
  const res = await control(sim, "GET", "/requests?limit=1");
  return res.json[0] ?? res.json.requests?.[0];
}

async function fault(sim, spec) {
  const res = await control(sim, "POST", "/faults", spec);
  assert.equal(res.status, 201, res.text);
}

describe("API client", function () {
  let sim;
  let client;
  const open = [];

  function make(extra = {}) {
    const c = new EdgeClient({
      baseUrl: sim.url,
      company: sim.company,
      user: sim.user,
      token: sim.token,
      timeoutMs: 2000,
      rateLimit: { perSecond: 0 },
      retry: { retries: 0 },
      ...extra,
    });
    open.push(c);
    return c;
  }

  beforeEach(async function () {
    sim = await startSim();
    client = make();
  });

  afterEach(async function () {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await sim.close();
  });

  describe("operations", function () {
    it("gets a device with its whole state", async function () {
      const device = await client.getDevice(LCD);
      assert.equal(device.id, LCD);
      assert.deepEqual(device.state, { "/lcd/txt1": "Hello", "/lcd/txt2": "" });
    });

    it("gets a device by name, the documented fall-back", async function () {
      const device = await client.getDevice("lcd-board");
      assert.equal(device.id, LCD);
    });

    it("replaces the whole state and answers the updated device", async function () {
      const device = await client.updateDevice(LCD, { "/lcd/txt1": "Hi" });
      assert.deepEqual(device.state, { "/lcd/txt1": "Hi" });
      const req = await lastRequest(sim);
      assert.equal(req.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(req.body), { state: { "/lcd/txt1": "Hi" } });
      assert.deepEqual((await client.getDevice(LCD)).state, { "/lcd/txt1": "Hi" });
    });

    it("creates an event by stream path with the spec's text/plain content type", async function () {
      const path = client.streamPath("lcd-board", ":command");
      const event = await client.createEventByPath(
        path,
        { "/lcd/txt1": "from test" },
        { ttl: 5000 },
      );
      assert.match(event.id, /^e[0-9a-f]{24}$/);
      assert.equal(event.path, "/demo/devices/lcd-board/:command");
      assert.equal(event.version, 0);
      assert.deepEqual(event.metadata, { ttl: 5000 });
      const req = await lastRequest(sim);
      assert.equal(req.method, "POST");
      assert.equal(req.headers["content-type"], "text/plain; charset=utf-8");
      assert.deepEqual(JSON.parse(req.body), {
        path,
        elems: { "/lcd/txt1": "from test" },
        metadata: { ttl: 5000 },
      });
    });

    it("creates an event by stream id", async function () {
      const event = await client.createEvent("s5f3c1a2b0000000000000011", {
        lcd: { txt1: "nested" },
      });
      assert.equal(event.streamId, "s5f3c1a2b0000000000000011");
      assert.deepEqual(event.elems, { lcd: { txt1: "nested" } });
    });

    it("lists events newest first with limit and start", async function () {
      await control(sim, "POST", "/events", { streamId: LCD_INBOX, elems: { n: 1 }, count: 5 });
      const first = await client.listEvents(LCD_INBOX, { limit: 2 });
      const next = await client.listEvents(LCD_INBOX, { limit: 2, start: 2 });
      assert.equal(first.length, 2);
      assert.equal(next.length, 2);
      const dates = [...first, ...next].map((e) => e.creationDate);
      assert.deepEqual(
        dates,
        [...dates].sort((a, b) => b - a),
      );
      assert.notEqual(first[1].id, next[0].id);
      const req = await lastRequest(sim);
      assert.match(req.url, /\?limit=2&start=2$/);
    });

    it("lists events by stream path through GET /event?path=", async function () {
      await control(sim, "POST", "/events", { streamId: LCD_INBOX, elems: { n: 1 }, count: 3 });
      const events = await client.listEventsByPath("/demo/devices/lcd-board/:inbox", { limit: 10 });
      assert.equal(events.length, 3);
      const req = await lastRequest(sim);
      assert.equal(
        req.url,
        "/v5.0/demo/event?path=%2Fdemo%2Fdevices%2Flcd-board%2F%3Ainbox&limit=10&start=0",
      );
    });
  });

  describe("redacting what a caller shows", function () {
    it("replaces its token, and every piece of 8 of it, in a text taken from an answer", function () {
      const c = make({ token: " padded-token-0123456789 " });
      // The token is sent trimmed, so a server echoes it trimmed.
      assert.equal(c.redact("name padded-token-0123456789 end"), "name [REDACTED] end");
      assert.equal(c.redact("cut en-0123456"), "cut [REDACTED]");
      assert.equal(c.redact("pump-3"), "pump-3");
    });
  });

  describe("requests", function () {
    it("sends the token always, the user only when configured, and a User-Agent", async function () {
      await client.getDevice(LCD);
      let req = await lastRequest(sim);
      assert.equal(req.headers["x-auth-token"], sim.token);
      assert.equal(req.headers["x-auth-user"], sim.user);
      assert.match(req.headers["user-agent"], /^@edgewire\/node-red-edge-device\/\d+\.\d+\.\d+/);
      await make({ user: "" }).getDevice(LCD);
      req = await lastRequest(sim);
      assert.equal(req.headers["x-auth-user"], undefined);
    });

    it("sends a path segment such as a/b.c?x#y encoded as one segment", async function () {
      const err = await rejection(client.getDevice("a/b.c?x#y"));
      assert.equal(err.code, "not-found");
      const req = await lastRequest(sim);
      assert.equal(req.url, "/v5.0/demo/device/a%2Fb.c%3Fx%23y");
    });

    it("refuses a/../b before any request: a server that decodes %2F would read another device", async function () {
      // Issue 35, item 14: encoded as one segment it went out as a%2F..%2Fb.
      const before = await lastRequest(sim);
      const err = await rejection(client.getDevice("a/../b?x#y"));
      assert.equal(err.code, "dot-name");
      assert.deepEqual(await lastRequest(sim), before);
    });

    it("refuses a name made only of dots, also written %2E, before any request", async function () {
      for (const name of ["..", ".", "%2E%2E", ".%2e", "%252e."]) {
        const err = await rejection(client.getDevice(name));
        assert.equal(err.code, "dot-name", name);
        const list = await rejection(client.listEvents(name));
        assert.equal(list.code, "dot-name", name);
      }
      const path = await rejection(client.listEventsByPath("/demo/devices/%2e%2E/:inbox"));
      assert.equal(path.code, "dot-name");
      assert.throws(() => client.streamPath("..", ":inbox"), { code: "dot-name" });
      assert.equal(sim.stats().total, 0);
    });

    it("refuses a name with an unpaired surrogate as an EdgeError, not a URIError", async function () {
      const err = await rejection(client.getDevice("lcd\ud800"));
      assert.ok(err instanceof EdgeError);
      assert.equal(err.code, "bad-text");
      const path = await rejection(client.listEventsByPath("/demo/devices/\udc00/:inbox"));
      assert.equal(path.code, "bad-text");
      assert.equal(sim.stats().total, 0);
    });

    it("accepts names that hold dots among other characters", async function () {
      for (const name of ["a..b", "..x", "v1.2", "%2E%2Ex"]) {
        const err = await rejection(client.getDevice(name));
        assert.equal(err.code, "not-found", name);
      }
    });

    it("keeps a base URL path prefix and accepts a pasted /v5.0/<company> suffix", async function () {
      const pasted = make({ baseUrl: `${sim.url}/v5.0/demo/` });
      assert.equal((await pasted.getDevice(LCD)).id, LCD);
    });

    it("refuses a base URL that is not http(s)", function () {
      assert.throws(
        () => make({ baseUrl: "ftp://x" }),
        (err) => err instanceof EdgeError && err.code === "bad-config",
      );
    });
  });

  describe("failures", function () {
    it("fails with an auth error carrying the API's text on a wrong token (401)", async function () {
      const err = await rejection(make({ token: "wrong-token" }).getDevice(LCD));
      assert.ok(err instanceof EdgeError);
      assert.equal(err.code, "auth");
      assert.equal(err.status, 401);
      assert.equal(err.apiStatus, 401);
      assert.ok(err.errors.length > 0);
      assert.ok(err.message.includes(err.errors[0]), err.message);
      assert.equal(err.method, "GET");
      assert.equal(err.path, `/v5.0/demo/device/${LCD}`);
    });

    it("fails with an auth error for another company (403)", async function () {
      const err = await rejection(make({ company: "other" }).getDevice(LCD));
      assert.equal(err.code, "auth");
      assert.equal(err.status, 403);
    });

    it("fails with not-found and the API's text for an unknown device (404)", async function () {
      const err = await rejection(client.getDevice("lcd-bord"));
      assert.equal(err.code, "not-found");
      assert.equal(err.status, 404);
      assert.match(err.message, /lcd-bord/);
    });

    it("fails with the API's text on a bad request (400)", async function () {
      const err = await rejection(client.updateDevice(LCD, { "/lcd/txt1": { nested: true } }));
      assert.equal(err.code, "http");
      assert.equal(err.status, 400);
      assert.match(err.message, /HTTP 400/);
    });

    it("fails when head.ok is false even with HTTP 200", async function () {
      await fault(sim, { path: "/device", body: "ok-false" });
      const err = await rejection(client.getDevice(LCD));
      assert.equal(err.code, "api");
      assert.equal(err.status, 200);
      assert.equal(err.apiStatus, 400);
      assert.match(err.message, /Injected: head.ok false/);
    });

    it("fails clearly on an HTML error page", async function () {
      await fault(sim, { path: "/device", body: "html", status: 502 });
      const err = await rejection(client.getDevice(LCD));
      assert.equal(err.code, "http");
      assert.equal(err.status, 502);
      assert.match(err.message, /502 Bad Gateway/);
      assert.doesNotMatch(err.message, /<html>/);
    });

    it("fails as malformed on truncated JSON", async function () {
      await fault(sim, { path: "/device", body: "truncated" });
      const err = await rejection(client.getDevice(LCD));
      assert.equal(err.code, "malformed");
      assert.match(err.message, /not JSON/);
    });

    it("fails as malformed on an envelope without head", async function () {
      await fault(sim, { path: "/device", body: "no-head" });
      assert.equal((await rejection(client.getDevice(LCD))).code, "malformed");
    });

    it("fails as malformed when a device is expected and the body is null", async function () {
      await fault(sim, { path: "/device", body: "null-body" });
      const err = await rejection(client.getDevice(LCD));
      assert.equal(err.code, "malformed");
      assert.match(err.message, /no device/);
    });

    it("accepts event creation answered with body null", async function () {
      await fault(sim, { path: "/event", body: "null-body" });
      assert.equal(
        await client.createEvent("s5f3c1a2b0000000000000011", { "/lcd/txt1": "x" }),
        null,
      );
    });

    it("times out a request the server does not answer in time", async function () {
      await fault(sim, { path: "/device", delayMs: 1500 });
      const err = await rejection(make({ timeoutMs: 200 }).getDevice(LCD));
      assert.equal(err.code, "timeout");
      assert.match(err.message, /200 ms/);
    });

    it("says a timed-out command may or may not have been delivered", async function () {
      await fault(sim, { path: "/event", delayMs: 1500 });
      const err = await rejection(
        make({ timeoutMs: 200 }).createEvent("s5f3c1a2b0000000000000011", { a: 1 }),
      );
      assert.equal(err.code, "timeout-uncertain");
      assert.equal(err.mayHaveBeenSent, true);
    });

    it("fails with refused when nothing listens", async function () {
      const port = await new Promise((resolve) => {
        const srv = net.createServer().listen(0, "127.0.0.1", () => {
          const p = srv.address().port;
          srv.close(() => resolve(p));
        });
      });
      const err = await rejection(make({ baseUrl: `http://127.0.0.1:${port}` }).getDevice(LCD));
      assert.equal(err.code, "refused");
      assert.match(err.message, /Connection refused/);
    });

    it("fails with reset when the connection drops", async function () {
      await fault(sim, { path: "/device", drop: "before" });
      assert.equal((await rejection(client.getDevice(LCD))).code, "reset");
    });

    it("refuses a body over the payload limit before sending it", async function () {
      const small = make({ maxPayloadBytes: 100 });
      const err = await rejection(
        small.createEvent("s5f3c1a2b0000000000000011", { text: "x".repeat(200) }),
      );
      assert.equal(err.code, "payload-too-large");
      assert.equal(sim.stats().total, 0);
    });

    it("redacts any 8 or more characters of the token that a server echoes, cut or whole", async function () {
      const http = require("node:http");
      const token = sim.token;
      const echo = http.createServer((req, res) => {
        const sent = String(req.headers["x-auth-token"]);
        res.writeHead(400, { "content-type": "application/json" });
        const errors = [
          `Invalid token ${sent.slice(0, 20)}…`,
          `was ${sent.slice(5, 13)}, ${sent.slice(3, 10)} and ${sent}`,
        ];
        res.end(JSON.stringify({ head: { status: 400, ok: false, errors }, body: null }));
      });
      await new Promise((resolve) => echo.listen(0, "127.0.0.1", resolve));
      try {
        const err = await rejection(
          make({ baseUrl: `http://127.0.0.1:${echo.address().port}` }).getDevice(LCD),
        );
        const shown = `${err.message} ${JSON.stringify(err)} ${err.stack}`;
        for (let i = 0; i + 8 <= token.length; i++)
          assert.ok(!shown.includes(token.slice(i, i + 8)), `"${token.slice(i, i + 8)}" shown`);
        // Seven characters are too few to tell from ordinary text, and stay.
        assert.match(
          err.message,
          /Invalid token \[REDACTED\]…; was \[REDACTED\], .{7} and \[REDACTED\]/,
        );
      } finally {
        await new Promise((resolve) => echo.close(resolve));
      }
    });

    it("never puts the token in an error, even when the server echoes it", async function () {
      // The simulator never echoes a token; a server that does is the case to prove, so a tiny
      // local one plays it.
      const http = require("node:http");
      const echo = http.createServer((req, res) => {
        res.writeHead(401, { "content-type": "application/json" });
        const text = `Invalid token ${req.headers["x-auth-token"]}`;
        res.end(JSON.stringify({ head: { status: 401, ok: false, errors: [text] }, body: null }));
      });
      await new Promise((resolve) => echo.listen(0, "127.0.0.1", resolve));
      try {
        const err = await rejection(
          make({ baseUrl: `http://127.0.0.1:${echo.address().port}` }).getDevice(LCD),
        );
        assert.equal(err.code, "auth");
        assert.match(err.message, /Invalid token \[REDACTED\]/);
        assert.ok(!JSON.stringify(err).includes(sim.token));
        assert.ok(!err.message.includes(sim.token));
      } finally {
        await new Promise((resolve) => echo.close(resolve));
      }
    });
  });
});
