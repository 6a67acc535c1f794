// edge-watch-events in a real Node-RED (test helper) against the simulator: where it starts, every
// event exactly once through bursts, shifting pages, 503s, truncated pages and gaps, one read per
// stream shared by the nodes on it, and nothing left running after close. The restart with a
// persistent context store is in watch-events-restart.spec.js; a server that orders and names its
// events differently from the simulator is at the end of this file.
"use strict";
const assert = require("node:assert/strict");
const http = require("node:http");
const { api, control, waitFor, sleep } = require("../support/simulator");
const {
  deploy,
  helper,
  load,
  account,
  collect,
  noMessage,
  statuses,
  withRedAndSimulator,
} = require("../support/red");

const WAIT = 20000;

async function newStream(sim, name, capacity = 1000) {
  const res = await control(sim, "POST", "/streams", { path: `/${sim.company}/${name}`, capacity });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

async function append(sim, stream, body) {
  const res = await control(sim, "POST", "/events", { streamId: stream.id, ...body });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

/** The stream's events as the API lists them, newest first. */
async function listed(sim, stream) {
  const res = await api(sim, "GET", `/event/${stream.id}?limit=10000`);
  assert.equal(res.status, 200, res.text);
  return res.json.body;
}

/** The page-0 reads of a stream (by id or path) the simulator answered, from its request log. */
async function firstPageReads(sim, ref) {
  const needle = ref.startsWith("/") ? `path=${encodeURIComponent(ref)}` : `/event/${ref}?`;
  const res = await control(sim, "GET", "/requests?limit=10000");
  return res.json.filter(
    (r) => r.method === "GET" && r.url.includes(needle) && /[?&]start=0(&|$)/.test(r.url),
  ).length;
}

/** What `node` itself passed to one of its methods (the test helper spies on the prototype). */
function callsOf(node, method) {
  return node[method]
    .getCalls()
    .filter((c) => c.thisValue === node)
    .map((c) => c.args[0]);
}

/** A tab with an account, watch nodes (each wired to its own helper `out-<id>`) and extras. */
function flow(sim, watches, accountExtra = {}) {
  const { node: acc, credentials } = account(sim, accountExtra);
  const nodes = [{ id: "t1", type: "tab" }, acc];
  for (const w of watches) {
    nodes.push({
      type: "edge-watch-events",
      z: "t1",
      account: "acc",
      interval: 250,
      start: "new",
      last: 10,
      store: "",
      ...w,
      wires: [[`out-${w.id}`]],
    });
    nodes.push({ id: `out-${w.id}`, type: "helper", z: "t1" });
  }
  return { nodes, credentials };
}

async function loadWatches(sim, watches, accountExtra) {
  const { nodes, credentials } = flow(sim, watches, accountExtra);
  // Status spies must be in place before the first read answers: install them on creation.
  await load(nodes, credentials);
  const out = {};
  for (const w of watches) out[w.id] = helper.getNode(`out-${w.id}`);
  return out;
}

function hasStatus(list, pattern, fill) {
  return list.some((s) => (!fill || s.fill === fill) && pattern.test(String(s.text)));
}

describe("edge-watch-events", function () {
  this.timeout(60000);
  const env = withRedAndSimulator();

  it("should send only the events created after it starts, oldest first, with topic and eventId", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-new");
    await append(sim, stream, { elems: { old: true }, count: 5 });
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.path }]);
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => hasStatus(shown, /^watching$/, "green"), {
      timeoutMs: WAIT,
      what: "watching",
    });
    await append(sim, stream, { elems: { fresh: true }, count: 3 });
    const msgs = await collect(out.w1, 3, WAIT);
    assert.deepEqual(
      msgs.map((m) => m.payload.elems),
      [0, 1, 2].map((seq) => ({ fresh: true, seq })),
    );
    const ids = (await listed(sim, stream)).slice(0, 3).reverse();
    assert.deepEqual(
      msgs.map((m) => m.eventId),
      ids.map((e) => e.id),
    );
    for (const m of msgs) {
      assert.equal(m.topic, stream.path);
      assert.equal(m.payload.id, m.eventId);
      assert.equal(m.gap, undefined);
    }
    await waitFor(() => hasStatus(shown, /^3 events, last \d\d:\d\d:\d\d$/, "green"), {
      timeoutMs: WAIT,
      what: "the count in the status",
    });
    await noMessage(out.w1, 1000);
  });

  it("should send the last N events first, then the new ones", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-last");
    await append(sim, stream, { elems: { n: "old" }, count: 15 });
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.id, start: "last", last: 10 }]);
    const first = await collect(out.w1, 10, WAIT);
    assert.deepEqual(
      first.map((m) => m.payload.elems.seq),
      [5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    );
    // By stream id the topic is still the stream's path, as the event carries it.
    assert.equal(first[0].topic, stream.path);
    await append(sim, stream, { elems: { n: "new" }, count: 2 });
    const next = await collect(out.w1, 2, WAIT);
    assert.deepEqual(
      next.map((m) => m.payload.elems),
      [
        { n: "new", seq: 0 },
        { n: "new", seq: 1 },
      ],
    );
    await noMessage(out.w1, 1000);
  });

  it("should deliver a burst of 250 events, 200 of them in one millisecond, exactly once and in order", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-burst");
    await append(sim, stream, { elems: { old: true }, count: 3 });
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.path }]);
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    // One millisecond just ahead of the clock for 200 events, then 50 more at the real time after
    // it, so that none of them is older than the ones before.
    const same = Date.now() + 20;
    await append(sim, stream, { elems: { burst: "same" }, count: 200, creationDate: same });
    await waitFor(() => Date.now() > same + 1, { what: "the clock to pass the burst" });
    await append(sim, stream, { elems: { burst: "after" }, count: 50 });
    const msgs = await collect(out.w1, 250, WAIT);
    const ids = msgs.map((m) => m.eventId);
    assert.equal(new Set(ids).size, 250, "an event was sent twice");
    const expected = (await listed(sim, stream)).slice(0, 250).reverse();
    assert.deepEqual(
      ids,
      expected.map((e) => e.id),
    );
    assert.deepEqual(
      msgs.slice(0, 200).map((m) => m.payload.elems.seq),
      [...Array(200).keys()],
    );
    assert.ok(msgs.slice(0, 200).every((m) => m.payload.creationDate === same));
    assert.ok(msgs.every((m) => !m.gap));
    await noMessage(out.w1, 1000);
  });

  it("should send every event once while new events shift the pages between and during reads", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-shift");
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.path }]);
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    // 20 bursts of 13 while the node reads every 250 ms: pages move under its feet.
    for (let i = 0; i < 20; i++) {
      await append(sim, stream, { elems: { round: i }, count: 13 });
      await sleep(37);
    }
    const msgs = await collect(out.w1, 260, WAIT);
    const ids = msgs.map((m) => m.eventId);
    assert.equal(new Set(ids).size, 260, "an event was sent twice");
    assert.deepEqual(
      ids,
      (await listed(sim, stream)).reverse().map((e) => e.id),
    );
    await noMessage(out.w1, 1000);
  });

  it("should send events once when new ones push the pages down in the middle of a read", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-midread");
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.id }]);
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    // The next read's first page comes at once, its second is held back by the simulator ...
    const path = `/event/${stream.id}`;
    await control(sim, "POST", "/faults", { method: "GET", path, delayMs: 0, count: 1 });
    await control(sim, "POST", "/faults", { method: "GET", path, delayMs: 1500, count: 1 });
    await append(sim, stream, { elems: { wave: 1 }, count: 50 });
    await waitFor(
      async () =>
        (await control(sim, "GET", "/requests?limit=50")).json.some(
          // The second page starts at the first page's last event (start 9), by which it joins on.
          (r) => r.url.includes(stream.id) && /[?&]start=9(&|$)/.test(r.url) && r.status === null,
        ),
      { timeoutMs: WAIT, what: "the held second page" },
    );
    // ... while 30 more arrive: that page then starts with 20 events already listed on the first.
    await append(sim, stream, { elems: { wave: 2 }, count: 30 });
    const msgs = await collect(out.w1, 80, WAIT);
    const ids = msgs.map((m) => m.eventId);
    assert.equal(new Set(ids).size, 80, "an event was sent twice");
    assert.deepEqual(ids.slice().sort(), (await listed(sim, stream)).map((e) => e.id).sort());
    await noMessage(out.w1, 1000);
  });

  it("should let two nodes on one stream share one read and give both every event", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-shared");
    const out = await loadWatches(sim, [
      { id: "w1", stream: stream.path, interval: 250 },
      { id: "w2", stream: stream.path, interval: 1000 },
    ]);
    const watcher = helper.getNode("acc").services.watcher;
    assert.equal(watcher.size, 1, "one shared watch for the stream");
    const shown = statuses(helper.getNode("w2"));
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    await control(sim, "DELETE", "/requests");
    const started = performance.now();
    for (let round = 0; round < 3; round++) {
      await append(sim, stream, { elems: { round }, count: 4 });
      const [a, b] = await Promise.all([collect(out.w1, 4, WAIT), collect(out.w2, 4, WAIT)]);
      assert.deepEqual(
        a.map((m) => m.eventId),
        b.map((m) => m.eventId),
      );
      assert.deepEqual(
        a.map((m) => m.payload.elems),
        [0, 1, 2, 3].map((seq) => ({ round, seq })),
      );
    }
    const elapsed = performance.now() - started;
    const reads = await firstPageReads(sim, stream.path);
    // One read per 250 ms at most (the shorter interval), not one per node: two separate watches
    // would make about twice as many. A slow machine makes fewer reads, never more.
    assert.ok(reads <= Math.ceil(elapsed / 250) + 2, `${reads} reads in ${Math.round(elapsed)} ms`);
    assert.ok(reads >= 1);
  });

  it("should lose nothing through 503s and a truncated page, showing the failure meanwhile", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-faults");
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.id }], { retries: "0" });
    const node = helper.getNode("w1");
    const shown = statuses(node);
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    const path = `/event/${stream.id}`;
    await control(sim, "POST", "/faults", { method: "GET", path, status: 503, count: 2 });
    await append(sim, stream, { elems: { phase: "during 503" }, count: 30 });
    await waitFor(() => hasStatus(shown, /^HTTP 503, retrying$/, "red"), {
      timeoutMs: WAIT,
      what: "the red status of a failed read",
    });
    const first = await collect(out.w1, 30, WAIT);
    assert.deepEqual(
      first.map((m) => m.payload.elems.seq),
      [...Array(30).keys()],
    );
    await waitFor(() => shown.at(-1)?.fill === "green", { timeoutMs: WAIT, what: "green again" });
    // A burst that needs several pages, the second of them cut off mid-JSON: the read fails as a
    // whole and the next one starts from the same position.
    await control(sim, "POST", "/faults", { method: "GET", path, delayMs: 0, count: 1 });
    await control(sim, "POST", "/faults", { method: "GET", path, body: "truncated", count: 1 });
    await append(sim, stream, { elems: { phase: "truncated" }, count: 150 });
    const second = await collect(out.w1, 150, WAIT);
    assert.deepEqual(
      second.map((m) => m.payload.elems.seq),
      [...Array(150).keys()],
    );
    assert.ok(hasStatus(shown, /^bad answer, retrying$/, "red"), JSON.stringify(shown));
    assert.deepEqual((await control(sim, "GET", "/faults")).json, []);
    const ids = [...first, ...second].map((m) => m.eventId);
    assert.equal(new Set(ids).size, 180);
    await noMessage(out.w1, 1000);
    // Logged once per run of failures, as a warning: the watch goes on.
    assert.ok(callsOf(node, "warn").length > 0);
    assert.deepEqual(callsOf(node, "error"), []);
  });

  it("should flag a gap when more events than the stream holds arrived between two reads", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-gap", 20);
    await append(sim, stream, { elems: { old: true }, count: 5 });
    const out = await loadWatches(sim, [{ id: "w1", stream: stream.path }], { retries: "0" });
    const node = helper.getNode("w1");
    const shown = statuses(node);
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    // Reads fail while 50 events arrive in a stream of capacity 20: 30 are gone for good.
    await control(sim, "POST", "/faults", { method: "GET", status: 503, count: 100000 });
    await waitFor(() => hasStatus(shown, /^HTTP 503, retrying/, "red"), {
      timeoutMs: WAIT,
      what: "a failed read",
    });
    await append(sim, stream, { elems: { n: "new" }, count: 50 });
    await control(sim, "DELETE", "/faults");
    const msgs = await collect(out.w1, 20, WAIT);
    assert.deepEqual(
      msgs.map((m) => m.payload.elems.seq),
      [...Array(20).keys()].map((i) => i + 30),
    );
    assert.equal(msgs[0].gap, true);
    assert.ok(msgs.slice(1).every((m) => m.gap === undefined));
    await waitFor(() => hasStatus(shown, /^gap: 20 events, last \d\d:\d\d:\d\d$/, "yellow"), {
      timeoutMs: WAIT,
      what: "the yellow gap status",
    });
    assert.ok(
      callsOf(node, "warn").some((text) => /were missed/.test(String(text))),
      "a warning names the gap",
    );
    await noMessage(out.w1, 1000);
  });

  it("should stop the watch with an error on a stream that does not exist, and on refused credentials", async function () {
    const { sim } = env;
    await loadWatches(sim, [{ id: "w1", stream: "s000000000000000000000000" }]);
    const node = helper.getNode("w1");
    const shown = statuses(node);
    await waitFor(() => hasStatus(shown, /^stopped: 404 not found$/, "red"), {
      timeoutMs: WAIT,
      what: "the stopped status",
    });
    assert.match(
      String(callsOf(node, "error")[0]),
      /^Watching stopped until the next deploy: Not found/,
    );
    assert.equal(helper.getNode("acc").services.watcher.size, 0);
    await control(sim, "DELETE", "/requests");
    await sleep(800);
    assert.equal((await control(sim, "GET", "/requests")).json.length, 0, "it still reads");
    await helper.unload();

    const { nodes, credentials } = flow(sim, [{ id: "w2", stream: "/demo/telemetry" }]);
    credentials.acc.token = "wrong-token";
    await load(nodes, credentials);
    const refused = statuses(helper.getNode("w2"));
    // Refused credentials are the account's state: the node shows it as every node of the
    // account does, over its own "stopped" status, until a request of the account succeeds.
    await waitFor(() => hasStatus(refused, /^401 unauthorized$/, "red"), {
      timeoutMs: WAIT,
      what: "the account's refused status",
    });
    assert.match(String(callsOf(helper.getNode("w2"), "error")[0]), /refused the credentials/);
  });

  it("should refuse an interval outside 250 to 86400000 at deploy, without reading", async function () {
    const { sim } = env;
    await control(sim, "DELETE", "/requests");
    await loadWatches(sim, [{ id: "w1", stream: "/demo/telemetry", interval: 100 }]);
    const node = helper.getNode("w1");
    assert.match(
      String(callsOf(node, "error")[0]),
      /interval must be a whole number from 250 to 86400000/,
    );
    assert.equal(callsOf(node, "status").at(-1).fill, "red");
    await sleep(500);
    assert.equal((await control(sim, "GET", "/requests")).json.length, 0);
  });

  it("should stop reading when the node is removed, leaving no timer or read behind", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-close");
    const { nodes, credentials } = flow(sim, [{ id: "w1", stream: stream.path }]);
    // A second node on another stream keeps the account and its other watch running.
    nodes.push({
      id: "w2",
      type: "edge-watch-events",
      z: "t1",
      account: "acc",
      stream: "/demo/telemetry",
      interval: 250,
      start: "new",
      wires: [[]],
    });
    await load(nodes, credentials);
    const watcher = helper.getNode("acc").services.watcher;
    await waitFor(() => watcher.size === 2, { timeoutMs: WAIT, what: "two watches" });
    await waitFor(async () => (await firstPageReads(sim, stream.path)) >= 2, {
      timeoutMs: WAIT,
      what: "reads of the stream",
    });
    // Deploy the flow without w1 (only the changed nodes restart, as in the editor).
    const without = nodes.filter((n) => n.id !== "w1" && n.id !== "out-w1");
    await deploy(without, "nodes", credentials);
    assert.equal(helper.getNode("w1"), null);
    assert.equal(watcher.size, 1, "the removed node's stream is still read");
    await control(sim, "DELETE", "/requests");
    await sleep(1000);
    assert.equal(await firstPageReads(sim, stream.path), 0, "the removed node still reads");
    assert.ok((await firstPageReads(sim, "/demo/telemetry")) > 0, "the other watch stopped too");
    // Then everything: the account closes the other watch with it.
    await helper.unload();
    assert.equal(watcher.size, 0);
    await control(sim, "DELETE", "/requests");
    await sleep(800);
    assert.equal((await control(sim, "GET", "/requests")).json.length, 0);
  });
});

/**
 * A server of the same API that differs from the simulator where the spec leaves room: UUID ids,
 * events of one creation date listed oldest first (the simulator lists them newest first), and an
 * envelope with `head.version`. Only `GET /event/<id>` with limit and start.
 */
function otherServer() {
  const events = [];
  // Reads so far, what the server does to its events before answering one, and whether it gives
  // the events it adds integer ids as JSON numbers (1, 2, ...) instead of UUIDs.
  // `ignoresStart`: every page is the first one, whatever `start` says.
  const state = { reads: 0, beforeRead: () => {}, numericIds: false, ignoresStart: false };
  const server = http.createServer((req, res) => {
    state.reads++;
    state.beforeRead(events);
    const url = new URL(req.url, "http://x");
    const limit = Number(url.searchParams.get("limit") ?? 20);
    const start = state.ignoresStart ? 0 : Number(url.searchParams.get("start") ?? 0);
    // Newest date first; within a date, the order they were added in.
    const sorted = events
      .map((e, i) => ({ e, i }))
      .sort((a, b) => b.e.creationDate - a.e.creationDate || a.i - b.i)
      .map((x) => x.e);
    const body = sorted.slice(start, start + limit);
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        head: { status: 200, ok: true, messages: [], errors: [], references: {}, version: "5.0" },
        body,
      }),
    );
  });
  let n = 0;
  const add = (creationDate, elems) => {
    const hex = (++n).toString(16).padStart(12, "0");
    events.push({
      id: state.numericIds ? n : `7f1c2a90-3b4d-4e5f-8a6b-${hex}`,
      streamId: "telemetry-line-4",
      path: "/acme/line-4/telemetry",
      creationDate,
      elems,
    });
  };
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, add, server, state }),
    ),
  );
}

describe("edge-watch-events against a server unlike the simulator", function () {
  this.timeout(60000);
  let other;
  before(function (done) {
    helper.startServer(done);
  });
  after(function (done) {
    helper.stopServer(done);
  });
  beforeEach(async function () {
    other = await otherServer();
  });
  afterEach(async function () {
    await helper.unload();
    other.server.closeAllConnections();
    await new Promise((resolve) => other.server.close(resolve));
  });

  it("should keep the server's order within a creation date, reversed, and every event once", async function () {
    const base = Date.now() - 10000;
    other.add(base, { v: "old" });
    const sim = { url: other.url, company: "acme", user: "u", token: "t0ken-for-the-other-server" };
    const { nodes, credentials } = flow(sim, [{ id: "w1", stream: "telemetry-line-4" }]);
    await load(nodes, credentials);
    const out = helper.getNode("out-w1");
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    // 40 events in one millisecond, listed by this server in the order they were added, and 5
    // later ones: more than the first page, so the read goes on to a second page.
    for (let i = 0; i < 40; i++) other.add(base + 1, { v: "same", i });
    for (let i = 0; i < 5; i++) other.add(base + 2 + i, { v: "later", i });
    const msgs = await collect(out, 45, WAIT);
    assert.equal(new Set(msgs.map((m) => m.eventId)).size, 45);
    assert.match(msgs[0].eventId, /^7f1c2a90-/);
    // The server lists the 40 as i = 0..39; reversed, as a server listing newest first means.
    assert.deepEqual(
      msgs.slice(0, 40).map((m) => m.payload.elems.i),
      [...Array(40).keys()].reverse(),
    );
    assert.deepEqual(
      msgs.slice(40).map((m) => m.payload.elems.i),
      [0, 1, 2, 3, 4],
    );
    assert.equal(msgs[0].topic, "/acme/line-4/telemetry");
    // Two more in the same millisecond as the last one: new ids at a known date are still new.
    other.add(base + 6, { v: "same ms as the last", i: 5 });
    other.add(base + 6, { v: "same ms as the last", i: 6 });
    const late = await collect(out, 2, WAIT);
    assert.deepEqual(late.map((m) => m.payload.elems.i).sort(), [5, 6]);
    await noMessage(out, 1000);
  });

  it("should send every event of a server whose ids are JSON numbers, once, with the id as text", async function () {
    other.state.numericIds = true;
    other.add(Date.now() - 10000, { v: "old" });
    const sim = { url: other.url, company: "acme", user: "u", token: "t0ken-for-the-other-server" };
    const { nodes, credentials } = flow(sim, [{ id: "w1", stream: "telemetry-line-4" }]);
    await load(nodes, credentials);
    const out = helper.getNode("out-w1");
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    const base = Date.now();
    for (let i = 0; i < 3; i++) other.add(base + i, { v: "new", i });
    const msgs = await collect(out, 3, WAIT);
    assert.deepEqual(
      msgs.map((m) => m.eventId),
      ["2", "3", "4"],
    );
    assert.deepEqual(
      msgs.map((m) => m.payload.elems.i),
      [0, 1, 2],
    );
    // Two more, one in the millisecond of the last: each once, the ones before not again.
    other.add(base + 2, { v: "same ms as the last" });
    other.add(base + 3, { v: "later" });
    const late = await collect(out, 2, WAIT);
    assert.deepEqual(late.map((m) => m.eventId).sort(), ["5", "6"]);
    await noMessage(out, 1000);
  });

  it("should send what a server that ignores start lists, flag the rest as a gap, and not read the same page over and over", async function () {
    other.state.ignoresStart = true;
    other.add(Date.now() - 10000, { v: "old" });
    const sim = { url: other.url, company: "acme", user: "u", token: "t0ken-for-the-other-server" };
    const { nodes, credentials } = flow(sim, [{ id: "w1", stream: "telemetry-line-4" }]);
    await load(nodes, credentials);
    const w1 = helper.getNode("w1");
    const out = helper.getNode("out-w1");
    const warned = [];
    w1.on("call:warn", (call) => warned.push(String(call.args[0])));
    const shown = statuses(w1);
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    // 150 new events between two reads: more than a page of 100 (a shorter one would be the
    // stream's end), and the server only ever gives the first. The read sends that page (the
    // newest 100, oldest first), the first flagged as a gap.
    const base = Date.now();
    for (let i = 0; i < 150; i++) other.add(base + i, { i });
    const msgs = await collect(out, 100, WAIT);
    assert.deepEqual(
      msgs.map((m) => m.payload.elems.i),
      [...Array(100).keys()].map((k) => 50 + k),
    );
    assert.equal(msgs[0].gap, true);
    assert.ok(
      warned.some((w) => /were missed/.test(w)),
      JSON.stringify(warned),
    );
    // The next reads find nothing new: a few requests each, not a loop over the same page.
    const from = other.state.reads;
    await noMessage(out, 1000);
    assert.ok(other.state.reads - from <= 20, `${other.state.reads - from} reads in one second`);
    // And what comes next is sent as usual.
    other.add(base + 1000, { v: "next" });
    const [next] = await collect(out, 1, WAIT);
    assert.equal(next.payload.elems.v, "next");
    assert.equal(next.gap, undefined);
  });

  it("should send an event once, and warn once, when the server changes its creationDate at every read", async function () {
    const sim = { url: other.url, company: "acme", user: "u", token: "t0ken-for-the-other-server" };
    const { nodes, credentials } = flow(sim, [{ id: "w1", stream: "telemetry-line-4" }]);
    await load(nodes, credentials);
    const w1 = helper.getNode("w1");
    const out = helper.getNode("out-w1");
    const warned = [];
    w1.on("call:warn", (call) => warned.push(String(call.args[0])));
    const shown = statuses(w1);
    await waitFor(() => hasStatus(shown, /^watching$/), { timeoutMs: WAIT, what: "watching" });
    other.add(Date.now(), { v: "x" });
    const [first] = await collect(out, 1, WAIT);
    assert.equal(first.gap, undefined);
    // From now on every read lists it as created at that moment.
    let date = Date.now();
    other.state.beforeRead = (events) => {
      date += 1000;
      events[0].creationDate = date;
    };
    const from = other.state.reads;
    await waitFor(() => other.state.reads >= from + 6, { timeoutMs: WAIT, what: "six more reads" });
    // A new event still comes, once, and is no gap either.
    other.add(date + 500_000, { v: "y" });
    const [second] = await collect(out, 1, WAIT);
    assert.equal(second.payload.elems.v, "y");
    assert.equal(second.gap, undefined);
    const after = other.state.reads;
    await waitFor(() => other.state.reads >= after + 4, {
      timeoutMs: WAIT,
      what: "four more reads",
    });
    await noMessage(out, 0);
    assert.equal(warned.length, 1, JSON.stringify(warned));
    assert.match(warned[0], /another creationDate than when they were first read/);
    assert.ok(!hasStatus(shown, /^gap/), JSON.stringify(shown.slice(-3)));
  });
});
