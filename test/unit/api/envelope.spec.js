// nodes/lib/api/envelope.ts: what counts as success, and the one error each kind of failure
// becomes (docs/api-notes.md, The envelope). The answers are written here as a server sends them.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { readEnvelope } = lib("api/envelope");

const TOKEN = "tok-0123456789abcdef";

function answer(status, body, headers = {}) {
  return { status, headers, text: typeof body === "string" ? body : JSON.stringify(body) };
}

function read(res) {
  return readEnvelope(res, "GET", "/v5.0/demo/device/d1", TOKEN);
}

function failure(res) {
  try {
    read(res);
  } catch (err) {
    return err;
  }
  assert.fail("the answer was taken as a success");
}

const head = (extra = {}) => ({ status: 200, ok: true, messages: [], errors: [], ...extra });

describe("unit: api/envelope", function () {
  it("should take a 2xx envelope with head.ok as success and return its body", function () {
    const env = read(answer(200, { head: head(), body: { id: "d1", state: {} } }));
    assert.deepEqual(env.body, { id: "d1", state: {} });
    assert.equal(env.head.ok, true);
    assert.equal(env.head.status, 200);
  });

  it("should take head.status from the envelope, or the HTTP status when it has none", function () {
    assert.equal(read(answer(201, { head: head({ status: 201 }), body: null })).head.status, 201);
    assert.equal(read(answer(201, { head: { ok: true } })).head.status, 201);
  });

  it("should not need messages, errors or references in head", function () {
    const env = read(answer(200, { head: {}, body: [] }));
    assert.deepEqual(env.body, []);
    assert.deepEqual(env.head.errors, []);
  });

  it("should map HTTP failures to auth, not-found, rate-limited and http", function () {
    const cases = { 401: "auth", 403: "auth", 404: "not-found", 429: "rate-limited", 500: "http" };
    for (const [status, code] of Object.entries(cases)) {
      const err = failure(
        answer(Number(status), {
          head: head({ status: Number(status), ok: false, errors: ["x"] }),
        }),
      );
      assert.equal(err.code, code, status);
      assert.equal(err.status, Number(status));
      assert.equal(err.apiStatus, Number(status));
      assert.deepEqual(err.errors, ["x"]);
      assert.equal(err.method, "GET");
      assert.equal(err.path, "/v5.0/demo/device/d1");
    }
  });

  it("should fail a 2xx answer with head.ok false or errors, coded by head.status", function () {
    const cases = [
      [{ ok: false, status: 400, errors: ["bad"] }, "api"],
      [{ ok: true, status: 200, errors: ["oops"] }, "api"],
      [{ ok: false, status: 401, errors: [] }, "auth"],
      [{ ok: false, status: 403 }, "auth"],
      [{ ok: false, status: 404, errors: ["gone"] }, "not-found"],
    ];
    for (const [h, code] of cases) {
      const err = failure(answer(200, { head: h }));
      assert.equal(err.code, code, JSON.stringify(h));
      assert.equal(err.status, 200);
      assert.equal(err.apiStatus, h.status);
    }
  });

  it("should make the message from head.errors, else head.messages, else the status", function () {
    assert.match(
      failure(answer(400, { head: head({ ok: false, errors: ["one", { two: 2 }] }) })).message,
      /one; \{"two":2\}/,
    );
    assert.match(
      failure(answer(400, { head: head({ ok: false, messages: ["said"] }) })).message,
      /said/,
    );
    assert.match(failure(answer(400, { head: head({ ok: false }) })).message, /HTTP 400/);
  });

  it("should call a 2xx answer that is not JSON, or has no head, malformed", function () {
    const html = failure(answer(200, "<html><body><h1>Welcome</h1></body></html>"));
    assert.equal(html.code, "malformed");
    assert.match(html.message, /not JSON: Welcome/);
    assert.equal(failure(answer(200, { body: {} })).code, "malformed");
    assert.equal(failure(answer(200, "[1,2]")).code, "malformed");
    assert.equal(failure(answer(204, "")).code, "malformed");
  });

  it("should code an error page by its HTTP status, with an excerpt of its text", function () {
    const err = failure(answer(502, "<html><title>Bad Gateway</title></html>"));
    assert.equal(err.code, "http");
    assert.match(err.message, /Bad Gateway/);
    const noHead = failure(answer(404, { message: "nope" }));
    assert.equal(noHead.code, "not-found");
    assert.match(noHead.message, /no details/);
  });

  it("should read Retry-After on 429 and 503 only", function () {
    assert.equal(failure(answer(429, "", { "retry-after": "2" })).retryAfterMs, 2000);
    assert.equal(failure(answer(503, "", { "retry-after": "1" })).retryAfterMs, 1000);
    assert.equal(failure(answer(500, "", { "retry-after": "1" })).retryAfterMs, undefined);
  });

  it("should say a failed request may have reached the server", function () {
    assert.equal(failure(answer(500, "")).mayHaveBeenSent, true);
  });

  it("should say a request answered 404 was not acted on (issue 35, item 13)", function () {
    const notFound = { head: head({ status: 404, ok: false, errors: ["Stream not found"] }) };
    assert.equal(failure(answer(404, notFound)).mayHaveBeenSent, false);
    assert.equal(failure(answer(404, "<html>Not Found</html>")).mayHaveBeenSent, false);
    // A 200 whose head says 404: the API's own word too.
    assert.equal(failure(answer(200, notFound)).mayHaveBeenSent, false);
  });

  it("should keep the token out of the message and the errors when the server echoes it", function () {
    const echoed = failure(
      answer(401, { head: head({ status: 401, ok: false, errors: [`bad token ${TOKEN}`] }) }),
    );
    assert.ok(!echoed.message.includes(TOKEN));
    assert.ok(!JSON.stringify(echoed.errors).includes(TOKEN));
    assert.match(echoed.message, /\[REDACTED\]/);
    const page = failure(answer(500, `<p>you sent ${TOKEN}</p>`));
    assert.ok(!page.message.includes(TOKEN));
  });

  it("should cut a long error text in the message and keep all of it in errors", function () {
    const long = "x".repeat(1000);
    const err = failure(answer(400, { head: head({ ok: false, errors: [long] }) }));
    assert.ok(err.message.length < 600, String(err.message.length));
    assert.equal(err.errors[0], long);
  });
});
