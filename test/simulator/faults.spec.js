"use strict";
const assert = require("node:assert/strict");
const { startSim, api, control, inboxOf, sleep } = require("../support/simulator");

const TELEMETRY = "s5f3c1a2b0000000000000101";

async function count(sim) {
  const res = await control(sim, "GET", "/streams?path=/demo/telemetry");
  return res.json.count;
}

function post(sim, elems = { a: 1 }) {
  return api(sim, "POST", `/event/${TELEMETRY}`, { body: { elems } });
}

describe("simulator fault injection", function () {
  let sim;
  beforeEach(async function () {
    sim = await startSim();
  });
  afterEach(async function () {
    await sim.close();
  });

  it("answers the injected status with Retry-After without processing", async function () {
    const added = await control(sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      status: 429,
      retryAfter: "2",
    });
    assert.equal(added.status, 201);
    assert.match(added.json.id, /\S/);
    const before = await count(sim);
    const res = await post(sim);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("retry-after"), "2");
    assert.deepEqual(res.json.head.errors, ["Injected fault 429"]);
    assert.equal(res.json.head.ok, false);
    assert.equal(res.json.head.status, 429);
    assert.equal(res.json.body, null);
    assert.equal(await count(sim), before);
  });

  it("honours count and then answers normally", async function () {
    await control(sim, "POST", "/faults", { path: "/event", status: 503, count: 2 });
    assert.equal((await post(sim)).status, 503);
    assert.equal((await api(sim, "GET", `/event/${TELEMETRY}`)).status, 503);
    assert.equal((await post(sim)).status, 201);
    assert.deepEqual((await control(sim, "GET", "/faults")).json, []);
  });

  it("applies only to the matching method and path prefix", async function () {
    await control(sim, "POST", "/faults", {
      method: "PUT",
      path: "/device/lcd-board",
      status: 500,
    });
    assert.equal((await api(sim, "GET", "/device/lcd-board")).status, 200);
    assert.equal((await api(sim, "PUT", "/device/pump-3", { body: { state: {} } })).status, 200);
    const res = await api(sim, "PUT", "/device/lcd-board", {
      body: { state: { "/lcd/txt1": "x" } },
    });
    assert.equal(res.status, 500);
    const device = await api(sim, "GET", "/device/lcd-board");
    assert.equal(device.json.body.state["/lcd/txt1"], "Hello");
  });

  it("delays the answer by delayMs", async function () {
    await control(sim, "POST", "/faults", { delayMs: 150 });
    const started = Date.now();
    const res = await api(sim, "GET", "/device/lcd-board");
    assert.equal(res.status, 200);
    assert.ok(Date.now() - started >= 140);
  });

  it("with answerDelayMs, processes the request at once and answers late", async function () {
    await control(sim, "POST", "/faults", { method: "POST", answerDelayMs: 1500 });
    const path = `/${sim.company}/devices/lcd-board/:command`;
    const answered = api(sim, "POST", "/event", { body: { path, elems: { "/lcd/txt1": "x" } } });
    // The device runs the command while the answer is still on its way.
    const events = await inboxOf(sim, "lcd-board", 2, 3000);
    assert.match(JSON.stringify(events[1].elems), /COMMAND_COMPLETE/);
    let done = false;
    void answered.then(() => (done = true));
    assert.equal(done, false);
    const res = await answered;
    assert.equal(res.status, 201);
    assert.equal(events[1].elems.cmd.ref, res.json.body.id);
  });

  it('drops the connection "before" processing: no event is created', async function () {
    await control(sim, "POST", "/faults", { path: "/event", drop: "before" });
    const before = await count(sim);
    await assert.rejects(post(sim));
    assert.equal(await count(sim), before);
    assert.equal((await post(sim)).status, 201);
  });

  it('drops the connection "after" processing: the event is created and the command runs', async function () {
    await control(sim, "POST", "/faults", { path: "/event", drop: "after" });
    const before = await count(sim);
    await assert.rejects(post(sim));
    assert.equal(await count(sim), before + 1);
    await control(sim, "POST", "/faults", { path: "/event", drop: "after" });
    await assert.rejects(
      api(sim, "POST", "/event", {
        body: { path: "/demo/devices/lcd-board/:command", elems: { "/lcd/txt1": "x" } },
      }),
    );
    const events = await inboxOf(sim, "lcd-board", 2);
    assert.equal(events[1].elems.cmd.status, "COMMAND_COMPLETE");
  });

  it("answers an HTML gateway page", async function () {
    await control(sim, "POST", "/faults", { body: "html" });
    const res = await api(sim, "GET", "/device/lcd-board");
    assert.equal(res.status, 502);
    assert.match(res.headers.get("content-type"), /text\/html/);
    assert.equal(res.text, "<html><body><h1>502 Bad Gateway</h1></body></html>");
    await control(sim, "POST", "/faults", { body: "html", status: 504 });
    assert.equal((await api(sim, "GET", "/device/lcd-board")).status, 504);
  });

  it("answers a truncated JSON envelope", async function () {
    await control(sim, "POST", "/faults", { body: "truncated" });
    const res = await api(sim, "GET", "/device/lcd-board");
    assert.equal(res.status, 200);
    assert.equal(res.json, undefined);
    assert.ok(res.text.startsWith('{"head":'));
  });

  it("answers an envelope without head", async function () {
    await control(sim, "POST", "/faults", { body: "no-head" });
    const res = await api(sim, "GET", "/device/lcd-board");
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { body: {} });
  });

  it("processes the request but answers a null body", async function () {
    await control(sim, "POST", "/faults", { body: "null-body" });
    const before = await count(sim);
    const res = await post(sim);
    assert.equal(res.status, 200);
    assert.equal(res.json.head.ok, true);
    assert.equal(res.json.body, null);
    assert.equal(await count(sim), before + 1);
  });

  it("answers HTTP 200 with head.ok false", async function () {
    await control(sim, "POST", "/faults", { body: "ok-false" });
    const res = await api(sim, "GET", "/device/lcd-board");
    assert.equal(res.status, 200);
    assert.equal(res.json.head.status, 400);
    assert.equal(res.json.head.ok, false);
    assert.deepEqual(res.json.head.errors, ["Injected: head.ok false"]);
  });

  it("counts and logs faulted requests", async function () {
    await control(sim, "POST", "/faults", { status: 500 });
    await api(sim, "GET", "/device/lcd-board");
    assert.equal(sim.stats().byRoute["GET /v5.0/demo/device/lcd-board"], 1);
    const log = await control(sim, "GET", "/requests?limit=1");
    assert.equal(log.json[0].status, 500);
  });

  it("lists and clears faults", async function () {
    await control(sim, "POST", "/faults", { status: 500, count: 3 });
    const list = await control(sim, "GET", "/faults");
    assert.equal(list.json.length, 1);
    assert.equal(list.json[0].remaining, 3);
    await control(sim, "DELETE", "/faults");
    assert.deepEqual((await control(sim, "GET", "/faults")).json, []);
    assert.equal((await api(sim, "GET", "/device/lcd-board")).status, 200);
  });

  it("refuses an invalid fault", async function () {
    assert.equal((await control(sim, "POST", "/faults", { body: "weird" })).status, 400);
    assert.equal((await control(sim, "POST", "/faults", { status: 42 })).status, 400);
    assert.equal((await control(sim, "POST", "/faults", { drop: "maybe" })).status, 400);
  });

  it("closes while a delayed request is waiting", async function () {
    await control(sim, "POST", "/faults", { delayMs: 60000 });
    const pending = api(sim, "GET", "/device/lcd-board").catch((err) => err);
    await sleep(30);
    await sim.close();
    assert.ok((await pending) instanceof Error);
  });
});
