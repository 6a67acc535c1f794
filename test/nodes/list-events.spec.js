// edge-list-events in a real Node-RED runtime against the simulator.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("../support/simulator");
const { next, collect, statuses, CORE, withRedAndSimulator } = require("../support/red");
const { startNode } = require("../support/flow");
const { SEED } = require("../support/seed");

const STREAM = SEED.lcd.inboxStream; // empty in the seed

async function fill(sim, count, streamId = STREAM) {
  const res = await control(sim, "POST", "/events", { streamId, elems: { v: 1 }, count });
  assert.equal(res.status, 201, res.text);
}

function start(sim, props = {}, extraNodes = [], extraTypes = []) {
  return startNode(
    sim,
    {
      type: "edge-list-events",
      stream: STREAM,
      limit: 20,
      start: 0,
      mode: "page",
      maxEvents: 1000,
      ...props,
    },
    { account: { rate: 0 }, extraNodes, extraTypes },
  );
}

const seqs = (events) => events.map((e) => e.elems.seq);

describe("edge-list-events", function () {
  const env = withRedAndSimulator();

  it("lists one page, newest first, with msg.paging", async function () {
    await fill(env.sim, 30);
    const { n1, out } = await start(env.sim, { limit: 10 });
    const shown = statuses(n1);
    n1.receive({});
    const msg = await next(out);
    assert.equal(msg.payload.length, 10);
    assert.deepEqual(seqs(msg.payload), [29, 28, 27, 26, 25, 24, 23, 22, 21, 20]);
    assert.deepEqual(msg.paging, { start: 0, limit: 10, count: 10, more: true });
    assert.equal(shown.at(-1).text, "10 events from 0");
  });

  it("takes limit and start from msg.limit and msg.start", async function () {
    await fill(env.sim, 30);
    const { n1, out } = await start(env.sim);
    n1.receive({ limit: 5, start: 27 });
    const msg = await next(out);
    assert.deepEqual(seqs(msg.payload), [2, 1, 0]);
    assert.deepEqual(msg.paging, { start: 27, limit: 5, count: 3, more: false });
  });

  it("answers an empty page when start is beyond the end", async function () {
    await fill(env.sim, 3);
    const { n1, out } = await start(env.sim, { start: 100 });
    n1.receive({});
    const msg = await next(out);
    assert.deepEqual(msg.payload, []);
    assert.deepEqual(msg.paging, { start: 100, limit: 20, count: 0, more: false });
  });

  it("accepts a stream path and uses the GET /event?path= fall-back", async function () {
    await fill(env.sim, 3);
    const { n1, out } = await start(env.sim, { stream: "/{{topic}}/devices/lcd-board/:inbox" });
    n1.receive({ topic: "demo" });
    const msg = await next(out);
    assert.equal(msg.payload.length, 3);
    const [req] = (await control(env.sim, "GET", "/requests?limit=1")).json;
    assert.match(
      req.url,
      /^\/v5\.0\/demo\/event\?path=%2Fdemo%2Fdevices%2Flcd-board%2F%3Ainbox&limit=20&start=0$/,
    );
  });

  it("uses msg.streamId when the Stream property is empty", async function () {
    await fill(env.sim, 2);
    const { n1, out } = await start(env.sim, { stream: "" });
    n1.receive({ streamId: STREAM });
    assert.equal((await next(out)).payload.length, 2);
  });

  it("gathers all pages into one array without duplicates while new events arrive", async function () {
    await fill(env.sim, 70);
    const { n1, out } = await start(env.sim, { mode: "all", limit: 20 });
    // While each page request waits at the server, 3 newer events arrive: they push events already
    // read into the next page.
    await control(env.sim, "POST", "/faults", {
      method: "GET",
      path: `/event/${STREAM}`,
      delayMs: 40,
      count: 10,
    });
    let pagesSeen = 0;
    const adder = setInterval(() => {
      const count = env.sim.stats().byRoute[`GET /v5.0/demo/event/${STREAM}`] ?? 0;
      if (count > pagesSeen && count < 4) {
        pagesSeen = count;
        void control(env.sim, "POST", "/events", {
          streamId: STREAM,
          elems: { late: true },
          count: 3,
        });
      }
    }, 1);
    try {
      n1.receive({});
      const msg = await next(out, 10000);
      const ids = msg.payload.map((e) => e.id);
      assert.equal(new Set(ids).size, ids.length, "an event was emitted twice");
      const original = seqs(msg.payload.filter((e) => e.elems.late === undefined));
      assert.deepEqual(original.slice(0, 5), [69, 68, 67, 66, 65]);
      assert.ok(original.includes(0), "the oldest event was reached");
      assert.ok(
        env.sim.stats().byRoute[`GET /v5.0/demo/event/${STREAM}`] >= 4,
        "at least 4 pages were read",
      );
      assert.equal(msg.paging.more, false);
    } finally {
      clearInterval(adder);
    }
  });

  it("stops gathering at maxEvents and says more may follow", async function () {
    await fill(env.sim, 50);
    const { n1, out } = await start(env.sim, { mode: "all", limit: 20, maxEvents: 30 });
    n1.receive({});
    const msg = await next(out);
    assert.equal(msg.payload.length, 30);
    assert.deepEqual(msg.paging, { start: 0, limit: 20, count: 30, more: true });
  });

  it("splits into one message per event that a core join node rebuilds into the array", async function () {
    await fill(env.sim, 45);
    const join = {
      id: "j1",
      z: "tab",
      type: "join",
      mode: "auto",
      build: "array",
      timeout: "",
      wires: [["joined"]],
    };
    const { n1, out, get } = await start(
      env.sim,
      { mode: "split", limit: 20, wires: [["out", "j1"]] },
      [join, { id: "joined", z: "tab", type: "helper" }],
      [CORE.join],
    );
    const parts = collect(out, 45);
    n1.receive({ topic: "t" });
    const messages = await parts;
    assert.deepEqual(
      messages.map((m) => m.parts.index),
      [...Array(45).keys()],
    );
    assert.equal(messages.at(-1).parts.count, 45);
    assert.equal(messages[0].topic, "t");
    const joined = await next(get("joined"));
    assert.equal(joined.payload.length, 45);
    assert.deepEqual(seqs(joined.payload), [...Array(45).keys()].reverse());
  });

  it("nests the parts of an incoming sequence, as the core split node does", async function () {
    await fill(env.sim, 3);
    const { n1, out } = await start(env.sim, { mode: "split" });
    const outer = { id: "outer", index: 4, count: 9 };
    n1.receive({ parts: outer });
    const messages = await collect(out, 3);
    assert.deepEqual(
      messages.map((m) => m.parts.parts),
      [outer, outer, outer],
    );
    assert.equal(messages[2].parts.count, 3);
  });

  const invalid = [
    ["a limit of 0", { limit: 0 }, /limit must be a whole number from 1 to 10000, got 0/],
    [
      "a negative start",
      { start: -1 },
      /start must be a whole number from 0 to 2147483647, got -1/,
    ],
    ["a NaN limit", { limit: NaN }, /limit must be a whole number .* got NaN/],
    ["a huge limit", { limit: 1e9 }, /limit must be a whole number .* got 1000000000/],
    ["a fractional start", { start: 1.5 }, /start must be a whole number .* got 1\.5/],
    ["a text limit", { limit: "ten" }, /limit must be a whole number .* got "ten"/],
    ["an object as limit", { limit: {} }, /limit must be a whole number .* got an object/],
  ];
  for (const [what, input, message] of invalid) {
    it(`reports ${what} to a Catch node before any request`, async function () {
      const { n1, caught } = await start(env.sim);
      n1.receive(input);
      const msg = await next(caught);
      assert.match(msg.error.message, message);
      assert.equal(env.sim.stats().total, 0);
    });
  }

  it("reports an unknown stream (404) to a Catch node", async function () {
    const { n1, caught } = await start(env.sim, { stream: "s0000000000000000000000ff" });
    n1.receive({});
    const msg = await next(caught);
    assert.equal(msg.statusCode, 404);
  });
});
