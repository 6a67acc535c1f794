// The API client behind a gateway (issue 35, items 4 and 13): a 429 or 503 proves the API did
// nothing only when it is the API's own answer, in its envelope. A gateway in front of it (Envoy
// after an upstream reset) answers 503 with its own page after it forwarded the request, so a
// command met by such an answer may have been made: it is not sent again, and its error says so.
// A local server plays the gateway and the API at once and counts what reached it.
"use strict";
const assert = require("node:assert/strict");
const { EdgeClient } = require("../../../dist/nodes/lib/api/client");
const { serve } = require("../../support/http-server");

const TOKEN = "gateway-token-0123456789abcdef";
const ENVOY_PAGE =
  "<html><body><h1>503 Service Unavailable</h1>upstream connect error or disconnect/reset " +
  "before headers. reset reason: connection termination</body></html>";

const envelope = (status, body, errors = []) =>
  JSON.stringify({
    head: { status, ok: status < 300, messages: [], errors, references: {} },
    body,
  });

/** What the server answers, in turn, for each request of a method: [status, headers, text]. */
const ANSWERS = {
  envoy503: [503, { "content-type": "text/html" }, ENVOY_PAGE],
  bare429: [429, { "retry-after": "0" }, ""],
  empty503: [503, {}, ""],
  api503: [503, { "content-type": "application/json" }, envelope(503, null, ["busy"])],
  api429: [
    429,
    { "content-type": "application/json", "retry-after": "0" },
    envelope(429, null, ["slow down"]),
  ],
  api404: [404, { "content-type": "application/json" }, envelope(404, null, ["Stream not found"])],
  html404: [404, { "content-type": "text/html" }, "<html><body>Not Found</body></html>"],
  created: [201, { "content-type": "application/json" }, envelope(201, { id: "e1", elems: {} })],
  device: [200, { "content-type": "application/json" }, envelope(200, { id: "d1", state: {} })],
};

describe("unit: api/client behind a gateway", function () {
  let server;
  let requests;
  let script;
  const clients = [];

  beforeEach(async function () {
    requests = [];
    script = [];
    server = await serve((req, res) => {
      req.resume();
      req.on("end", () => {
        requests.push(req.method);
        const [status, headers, text] = ANSWERS[script.shift() ?? "created"];
        res.writeHead(status, headers);
        res.end(text);
      });
    });
  });

  afterEach(async function () {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server.close();
  });

  function client(retries = 2) {
    const c = new EdgeClient({
      baseUrl: server.url,
      company: "demo",
      token: TOKEN,
      timeoutMs: 2000,
      rateLimit: { perSecond: 0 },
      retry: { retries, baseDelayMs: 1, maxDelayMs: 5 },
    });
    clients.push(c);
    return c;
  }

  const send = (c) => c.createEventByPath("/demo/devices/pump-3/:command", { "/pump/on": true });

  for (const [what, answer, status] of [
    ["a 503 with the gateway's HTML page", "envoy503", 503],
    ["a 429 with Retry-After: 0 and no body", "bare429", 429],
    ["a 503 with an empty body", "empty503", 503],
  ]) {
    it(`sends a command once and fails it gateway-uncertain, mayHaveBeenSent, after ${what}`, async function () {
      script = [answer, "created", "created"];
      const err = await send(client(2)).then(
        () => assert.fail("expected the command to fail"),
        (e) => e,
      );
      assert.deepEqual(requests, ["POST"], "one POST reached the server");
      assert.equal(err.code, "gateway-uncertain");
      assert.equal(err.status, status);
      assert.equal(err.mayHaveBeenSent, true);
      assert.equal(err.toJSON().mayHaveBeenSent, true);
      assert.match(err.params.path, /\/v5\.0\/demo\/event$/);
    });
  }

  it("still sends a command again after the API's own 503 and 429 (their envelope)", async function () {
    script = ["api503", "api429", "created"];
    const event = await send(client(2));
    assert.equal(event.id, "e1");
    assert.deepEqual(requests, ["POST", "POST", "POST"]);
  });

  it("still retries a read after a gateway's 503 page: a read changes nothing", async function () {
    script = ["envoy503", "device"];
    const device = await client(2).getDevice("d1");
    assert.equal(device.id, "d1");
    assert.deepEqual(requests, ["GET", "GET"]);
  });

  it("says a command refused with 404 was not sent, with or without the API's envelope", async function () {
    for (const answer of ["api404", "html404"]) {
      script = [answer];
      requests = [];
      const err = await client(2)
        .createEvent("s1", { "/pump/on": true })
        .then(
          () => assert.fail("expected the command to fail"),
          (e) => e,
        );
      assert.equal(err.code, "not-found", answer);
      assert.equal(err.mayHaveBeenSent, false, answer);
      assert.deepEqual(requests, ["POST"], answer);
    }
  });
});
