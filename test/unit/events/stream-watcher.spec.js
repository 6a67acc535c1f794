// nodes/lib/events/stream-watcher.ts on virtual time: one read per stream per interval shared by
// its watches, each watch handed the events after its own position, oldest first; gaps, holding,
// re-dated events, a server that ignores `start`, backoff and lasting refusals, and what the
// sidebar is shown. The client is a stand-in that serves one stream newest first by start and limit.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { StreamWatcher, isLasting, MAX_READ_EVENTS } = lib("events/stream-watcher");
const { EdgeError } = lib("api/errors");

/** A stream served newest first; `push` adds newer events; `fail` makes the next reads throw. */
function fakeClient() {
  const c = {
    origin: "http://edge.test",
    events: [],
    requests: [],
    failures: [],
    ignoreStart: false,
    push(...events) {
      c.events.unshift(...events.slice().reverse());
    },
    async listEvents(streamId, page, call) {
      c.requests.push({ streamId, ...page, lane: call.lane });
      const f = c.failures.shift();
      if (f) throw f;
      const from = c.ignoreStart ? 0 : page.start;
      return c.events.slice(from, from + page.limit).map((e) => ({ ...e }));
    },
    async listEventsByPath(path, page, call) {
      return c.listEvents(`path:${path}`, page, call);
    },
  };
  return c;
}

const ev = (id, creationDate, extra = {}) => ({ id, creationDate, ...extra });

/** A watch that records what it is given. */
function recorder(intervalMs = 1000, more = {}) {
  const w = { intervalMs, reads: [], errors: [], ...more };
  w.onRead = (r) => w.reads.push(r);
  w.onError = (err, lasting, retryIn) => w.errors.push({ err, lasting, retryIn });
  w.ids = () => w.reads.flatMap((r) => r.events.map((e) => e.id));
  return w;
}

describe("unit: events/stream-watcher", function () {
  let clock;
  let client;
  let watcher;

  beforeEach(function () {
    clock = FakeTimers.install({
      now: 1_000_000,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
    client = fakeClient();
    watcher = new StreamWatcher(client);
  });

  afterEach(function () {
    watcher.close();
    clock.uninstall();
  });

  it("should start at the stream's head, then hand on each new event once, oldest first", async function () {
    client.push(ev("a", 10), ev("b", 20));
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    assert.equal(w.reads.length, 1);
    assert.deepEqual(w.reads[0], {
      events: [],
      position: { date: 20, ids: ["b"] },
      moved: true,
      gap: false,
      redated: false,
    });
    client.push(ev("c", 30), ev("d", 30), ev("e", 40));
    await clock.tickAsync(999);
    assert.equal(w.reads.length, 1, "no read before the interval");
    await clock.tickAsync(1);
    assert.deepEqual(w.ids(), ["c", "d", "e"]);
    assert.deepEqual(w.reads[1].position, { date: 40, ids: ["e"] });
    assert.equal(w.reads[1].moved, true);
    assert.equal(w.reads[1].gap, false);
    await clock.tickAsync(1000);
    assert.equal(w.reads.length, 3);
    assert.deepEqual(w.reads[2].events, []);
    assert.equal(w.reads[2].moved, false, "nothing new: the position is not saved again");
    assert.equal(client.requests[0].lane, "poll");
  });

  it("should hand on the newest N events at the start of a watch that asks for the last N", async function () {
    client.push(ev("a", 1), ev("b", 2), ev("c", 3), ev("d", 4));
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "last", count: 2 });
    await clock.tickAsync(0);
    assert.deepEqual(w.ids(), ["c", "d"]);
    assert.deepEqual(w.reads[0].position, { date: 4, ids: ["d"] });
    assert.equal(w.reads[0].moved, true);
    assert.equal(client.requests[0].limit, 10);
  });

  it("should ask a first page big enough for the last N, and page on with start", async function () {
    for (let i = 1; i <= 30; i++) client.push(ev(`e${i}`, i));
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "last", count: 25 });
    await clock.tickAsync(0);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      [[0, 26]],
    );
    assert.equal(w.reads[0].events.length, 25);
    assert.equal(w.reads[0].events[0].id, "e6");
  });

  it("should resume from a saved position and report a gap when the listing does not reach it", async function () {
    for (let i = 1; i <= 15; i++) client.push(ev(`e${i}`, i * 10));
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, {
      kind: "position",
      position: { date: 120, ids: ["e12"] },
    });
    await clock.tickAsync(0);
    assert.deepEqual(w.ids(), ["e13", "e14", "e15"]);
    assert.equal(w.reads[0].gap, false);
    assert.deepEqual(w.reads[0].position, { date: 150, ids: ["e15"] });

    const late = recorder();
    // Its position is older than anything listed and the stream has not ended: events are missing.
    client.events = client.events.slice(0, 12);
    watcher.watch({ streamId: "s2" }, late, {
      kind: "position",
      position: { date: 5, ids: ["gone"] },
    });
    await clock.tickAsync(0);
    // s2 is served the same events: the oldest listed is e4 (40), after the position, with the
    // stream's end reached (a short page) but no event at or before 5.
    assert.equal(late.reads[0].gap, true);
    assert.equal(late.reads[0].events.length, 12);
    assert.equal(watcher.list().rows.find((r) => r.stream === "s2").gaps, 1);
  });

  it("should read further pages until it reaches a position, and stop at the stream's end", async function () {
    for (let i = 1; i <= 250; i++) client.push(ev(`e${i}`, i));
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "position", position: { date: 5, ids: ["e5"] } });
    await clock.tickAsync(0);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      // Each later page starts at the last event of the page before: it must list one it has
      // seen, or one older, to join on (a stream that dropped what lay between is a gap).
      [
        [0, 11],
        [10, 100],
        [109, 100],
        [208, 100],
      ],
    );
    assert.equal(w.reads[0].events.length, 245);
    assert.equal(w.reads[0].events[0].id, "e6");
    assert.equal(w.reads[0].gap, false);
  });

  it("should stop paging after two full pages with nothing new, a server that ignores start", async function () {
    for (let i = 1; i <= 200; i++) client.push(ev(`e${i}`, i));
    client.ignoreStart = true;
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "position", position: { date: 1, ids: ["e1"] } });
    await clock.tickAsync(0);
    // The first page (11), a second of 100 with 89 new, then two more with nothing new.
    assert.equal(client.requests.length, 4);
    assert.equal(w.reads[0].events.length, 100);
    assert.equal(w.reads[0].gap, true);
  });

  it("should go on paging past one full page of events it had already seen", async function () {
    for (let i = 1; i <= 300; i++) client.push(ev(`e${i}`, i));
    let calls = 0;
    const list = client.listEvents;
    client.listEvents = async (id, page, call) => {
      // Between the first and second page, 100 new events land on top: the second page repeats.
      if (++calls === 2) for (let i = 301; i <= 400; i++) client.push(ev(`e${i}`, i));
      return list(id, page, call);
    };
    client.events = client.events.slice(0, 150);
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "position", position: { date: 1, ids: [] } });
    await clock.tickAsync(0);
    assert.ok(client.requests.length >= 4, `requests: ${client.requests.length}`);
    assert.equal(new Set(w.ids()).size, w.ids().length, "no event twice");
  });

  it("should skip listed events it cannot place, and take a numeric id as text", async function () {
    client.events = [
      { id: 7, creationDate: 5 },
      { creationDate: 4 },
      { id: "x", creationDate: "3" },
      { id: "y", creationDate: 2 },
    ];
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "last", count: 5 });
    await clock.tickAsync(0);
    assert.deepEqual(w.ids(), ["y", "7"]);
  });

  it("should place a re-dated event at its first date and hand it on only once", async function () {
    client.push(ev("a", 10));
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    client.push(ev("b", 20));
    await clock.tickAsync(1000);
    assert.deepEqual(w.ids(), ["b"]);
    assert.equal(w.reads[1].redated, false);
    client.events[0].creationDate = 25;
    await clock.tickAsync(1000);
    assert.deepEqual(w.ids(), ["b"], "b is not handed on again");
    assert.equal(w.reads[2].redated, true);
    assert.equal(w.reads[2].gap, false);
    client.events[0].creationDate = 20;
    await clock.tickAsync(1000);
    assert.equal(w.reads[3].redated, false, "each read says it for itself");
  });

  it("should read a stream once per interval for all its watches, at the shortest interval", async function () {
    const slow = recorder(5000, { nodeId: "n1" });
    const fast = recorder(1000, { nodeId: "n2" });
    watcher.watch({ streamId: "s1" }, slow, { kind: "new" });
    watcher.watch({ streamId: "s1" }, fast, { kind: "new" });
    assert.equal(watcher.size, 1);
    await clock.tickAsync(0);
    assert.equal(watcher.reads, 1, "both started in one read");
    await clock.tickAsync(3000);
    assert.equal(watcher.reads, 4);
    assert.equal(slow.reads.length, 4);
    const view = watcher.list();
    assert.equal(view.total, 1);
    assert.deepEqual(view.rows[0].nodes, ["n1", "n2"]);
    assert.equal(view.rows[0].intervalMs, 1000);
    assert.equal(view.rows[0].stream, "s1");
    assert.equal(view.rows[0].state, "reading");
  });

  it("should keep reads on their grid when a read is slow", async function () {
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    const list = client.listEvents;
    client.listEvents = (id, page, call) =>
      new Promise((resolve) => setTimeout(() => resolve(list(id, page, call)), 300));
    const starts = [];
    const wrapped = client.listEvents;
    client.listEvents = (...a) => {
      starts.push(Date.now());
      return wrapped(...a);
    };
    await clock.tickAsync(3000);
    assert.deepEqual(
      starts.map((t) => t - 1_000_000),
      [1000, 2000, 3000],
    );
  });

  it("should start the grid again from now after a long stall", async function () {
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    const list = client.listEvents;
    client.listEvents = (id, page, call) =>
      new Promise((resolve) => setTimeout(() => resolve(list(id, page, call)), 5000));
    const starts = [];
    const wrapped = client.listEvents;
    client.listEvents = (...a) => {
      starts.push(Date.now() - 1_000_000);
      return wrapped(...a);
    };
    await clock.tickAsync(1000);
    client.listEvents = (...a) => {
      starts.push(Date.now() - 1_000_000);
      return list(...a);
    };
    await clock.tickAsync(6000);
    // The read due at 1000 ended at 6000, far past its next due time: the next read comes at once,
    // and the grid starts again from there, one read a second, not as many as were missed.
    assert.equal(starts.length, 3);
    assert.ok(starts[1] - 6000 <= 1, `second read at ${starts[1]}`);
    assert.deepEqual([starts[0], starts[2]], [1000, 7000]);
  });

  it("should let a watch added during a read join a read right after it", async function () {
    client.push(ev("a", 1));
    let release;
    const list = client.listEvents;
    client.listEvents = (...a) =>
      new Promise((resolve) => {
        release = () => resolve(list(...a));
      });
    const first = recorder(60_000);
    watcher.watch({ streamId: "s1" }, first, { kind: "new" });
    await clock.tickAsync(0);
    const second = recorder(60_000, { nodeId: "late" });
    watcher.watch({ streamId: "s1" }, second, { kind: "last", count: 1 });
    assert.deepEqual(watcher.list().rows[0].nodes, ["late"], "shown while it waits");
    client.listEvents = list;
    release();
    await clock.tickAsync(0);
    assert.equal(first.reads.length, 2);
    assert.equal(second.reads.length, 1, "not after the 60 s interval");
    assert.deepEqual(second.ids(), ["a"]);
  });

  it("should stop reading when the last watch of a stream goes", async function () {
    const a = recorder(1000);
    const b = recorder(1000);
    const stopA = watcher.watch({ streamId: "s1" }, a, { kind: "new" });
    const stopB = watcher.watch({ streamId: "s1" }, b, { kind: "new" });
    await clock.tickAsync(0);
    stopA();
    await clock.tickAsync(1000);
    assert.equal(a.reads.length, 1);
    assert.equal(b.reads.length, 2);
    stopB();
    assert.equal(watcher.size, 0);
    await clock.tickAsync(5000);
    assert.equal(client.requests.length, 2);
    assert.deepEqual(watcher.list(), { total: 0, rows: [] });
  });

  it("should not hand a read to a watch removed while it ran", async function () {
    let release;
    const list = client.listEvents;
    client.listEvents = (...a) =>
      new Promise((resolve) => {
        release = () => resolve(list(...a));
      });
    const a = recorder(1000);
    const b = recorder(1000);
    const stopA = watcher.watch({ streamId: "s1" }, a, { kind: "new" });
    watcher.watch({ streamId: "s1" }, b, { kind: "new" });
    await clock.tickAsync(0);
    stopA();
    release();
    await clock.tickAsync(0);
    assert.equal(a.reads.length, 0);
    assert.equal(b.reads.length, 1);
  });

  it("should keep new events for a watch that is holding, and hand them on when it lets go", async function () {
    client.push(ev("a", 1));
    let holding = false;
    const w = recorder(1000, { holding: () => holding });
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    holding = true;
    await clock.tickAsync(1000);
    assert.equal(w.reads.length, 2, "a read that found nothing new is handed on");
    client.push(ev("b", 2));
    await clock.tickAsync(2000);
    assert.equal(w.reads.length, 2);
    holding = false;
    await clock.tickAsync(1000);
    assert.deepEqual(w.ids(), ["b"]);
    assert.equal(watcher.list().rows[0].delivered, 1);
  });

  it("should hand a read on to every watch though one of them throws", async function () {
    client.push(ev("a", 1));
    const bad = recorder(1000);
    bad.onRead = () => {
      throw new Error("node failed");
    };
    const good = recorder(1000);
    watcher.watch({ streamId: "s1" }, bad, { kind: "last", count: 1 });
    watcher.watch({ streamId: "s1" }, good, { kind: "last", count: 1 });
    await clock.tickAsync(0);
    assert.deepEqual(good.ids(), ["a"]);
    await clock.tickAsync(1000);
    assert.equal(good.reads.length, 2, "reads go on");
  });

  it("should read a stream by path through the path listing", async function () {
    const w = recorder(1000, { nodeId: "n" });
    watcher.watch({ path: "/co/devices/d/x" }, w, { kind: "new" });
    await clock.tickAsync(0);
    assert.equal(client.requests[0].streamId, "path:/co/devices/d/x");
    assert.equal(watcher.list().rows[0].stream, "/co/devices/d/x");
    // The same path again shares the read; an id of the same text is another stream.
    watcher.watch({ path: "/co/devices/d/x" }, recorder(), { kind: "new" });
    watcher.watch({ streamId: "/co/devices/d/x" }, recorder(), { kind: "new" });
    assert.equal(watcher.size, 2);
  });

  it("should back off after failed reads, doubling, and tell each watch when the next read comes", async function () {
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    client.failures.push(
      new EdgeError("timeout", { origin: "x", timeout: 1 }),
      new EdgeError("reset", {}),
      new EdgeError("api", {}, { status: 500 }),
    );
    await clock.tickAsync(0);
    assert.deepEqual(
      w.errors.map((e) => [e.err.code, e.lasting, e.retryIn]),
      [["timeout", false, 2000]],
    );
    const row = watcher.list().rows[0];
    assert.equal(row.state, "backing-off");
    assert.deepEqual(row.reason, { code: "timeout", status: undefined });
    assert.equal(row.retryAt, Date.now() + 2000);
    await clock.tickAsync(1999);
    assert.equal(client.requests.length, 1);
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 2);
    assert.equal(w.errors[1].retryIn, 3000);
    await clock.tickAsync(3000);
    assert.deepEqual(w.errors[2].retryIn, 5000);
    assert.deepEqual(watcher.list().rows[0].reason, { code: "api", status: 500 });
    await clock.tickAsync(5000);
    assert.equal(w.reads.length, 1, "the read after the failures succeeds");
    const after = watcher.list().rows[0];
    assert.equal(after.state, "reading");
    assert.equal(after.reason, undefined);
    assert.equal(after.retryAt, undefined);
    assert.equal(after.lastRead, Date.now());
    client.failures.push(new EdgeError("reset", {}));
    await clock.tickAsync(1000);
    assert.equal(w.errors[3].retryIn, 2000, "the backoff starts again after a success");
  });

  it("should cap the backoff at a minute, and wait longer when the server's Retry-After asks", async function () {
    const w = recorder(20_000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    for (let i = 0; i < 4; i++) client.failures.push(new EdgeError("reset", {}));
    await clock.tickAsync(0);
    await clock.tickAsync(40_000);
    await clock.tickAsync(60_000);
    await clock.tickAsync(80_000);
    assert.deepEqual(
      w.errors.map((e) => e.retryIn),
      [40_000, 60_000, 80_000, 80_000],
    );
    const v = recorder(1000);
    watcher.watch({ streamId: "s2" }, v, { kind: "new" });
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 30_000 }));
    await clock.tickAsync(0);
    assert.equal(v.errors[0].retryIn, 31_000);
  });

  it("should read again after four failed reads in a row and send what the stream still holds, with a gap", async function () {
    // The capacity property's seeds 251, 260 and 263 (test/sim/harness-runs.js): reads answered
    // late, reset, refused with a Retry-After of 1 s and lost, four in a row, while a stream of
    // capacity 3 dropped everything past the position. The harness judged the watch before its
    // documented next read (the interval plus eight intervals after the fourth); the watch is
    // not stuck: that read sends the events the stream still holds, the first with msg.gap.
    const w = recorder(250);
    client.push(ev("e1", 10), ev("e2", 20), ev("e3", 30));
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    client.push(ev("e4", 40), ev("e5", 50), ev("e6", 60));
    await clock.tickAsync(250);
    assert.deepEqual(w.ids(), ["e4", "e5", "e6"]);
    client.failures.push(
      new EdgeError("reset", {}),
      new EdgeError("api", {}, { status: 503, retryAfterMs: 1000 }),
      new EdgeError("reset", {}),
      new EdgeError("network", {}),
    );
    // Capacity 3: every event from e4 to e22 but the newest three dropped.
    client.events = [ev("e22", 220), ev("e21", 210), ev("e20", 200)];
    // Reads at 500 (fails), 1000, 2250 and 3500: the grid plus 1 interval, the Retry-After
    // twice (longer than 2 and 4 intervals), then 8 intervals.
    await clock.tickAsync(3250);
    assert.deepEqual(
      w.errors.map((e) => e.retryIn),
      [500, 1250, 1250, 2250],
    );
    assert.equal(client.requests.length, 6);
    await clock.tickAsync(2249);
    assert.equal(client.requests.length, 6, "no read before the documented backoff");
    await clock.tickAsync(1);
    assert.deepEqual(w.ids(), ["e4", "e5", "e6", "e20", "e21", "e22"]);
    assert.equal(w.reads.at(-1).gap, true);
    assert.deepEqual(w.reads.at(-1).position, { date: 220, ids: ["e22"] });
  });

  it("should turn a thrown value that is no EdgeError into a network error", async function () {
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    client.failures.push(new TypeError("boom"));
    await clock.tickAsync(0);
    assert.equal(w.errors[0].err.code, "network");
    assert.equal(w.errors[0].err.params.origin, "http://edge.test");
    assert.match(String(w.errors[0].err.params.detail), /boom/);
  });

  it("should stop a stream the server refuses for good, tell every watch, and keep it in the list", async function () {
    const a = recorder(1000, { nodeId: "a" });
    const b = recorder(1000, { nodeId: "b" });
    watcher.watch({ streamId: "s1" }, a, { kind: "new" });
    watcher.watch({ streamId: "s1" }, b, { kind: "new" });
    client.failures.push(new EdgeError("not-found", {}, { status: 404 }));
    await clock.tickAsync(0);
    assert.deepEqual(
      [a, b].map((w) => [w.errors[0].err.code, w.errors[0].lasting, w.errors[0].retryIn]),
      [
        ["not-found", true, 0],
        ["not-found", true, 0],
      ],
    );
    assert.equal(watcher.size, 0);
    await clock.tickAsync(10_000);
    assert.equal(client.requests.length, 1, "no read after a lasting refusal");
    const { total, rows } = watcher.list();
    assert.equal(total, 1);
    assert.deepEqual(
      { ...rows[0], lastRead: 0 },
      {
        stream: "s1",
        nodes: ["a", "b"],
        intervalMs: 1000,
        lastRead: 0,
        lastEvent: undefined,
        delivered: 0,
        gaps: 0,
        state: "stopped",
        reason: { code: "not-found", status: 404 },
        retryAt: undefined,
      },
    );
    // Watching it again after a deploy reads it again.
    const c = recorder(1000);
    watcher.watch({ streamId: "s1" }, c, { kind: "new" });
    await clock.tickAsync(0);
    assert.equal(c.reads.length, 1);
    assert.equal(watcher.list().total, 2);
  });

  it("should keep at most 50 streams in the sidebar's list, the newest stopped ones", async function () {
    for (let i = 0; i < 52; i++) {
      watcher.watch({ streamId: `gone${i}` }, recorder(1000), { kind: "new" });
      client.failures.push(new EdgeError("auth", {}, { status: 401 }));
      await clock.tickAsync(0);
    }
    const { total, rows } = watcher.list();
    assert.equal(total, 50);
    assert.equal(rows.length, 50);
    assert.equal(rows[0].stream, "gone2");
    assert.equal(rows[49].stream, "gone51");
    for (let i = 0; i < 3; i++)
      watcher.watch({ streamId: `live${i}` }, recorder(), { kind: "new" });
    const after = watcher.list();
    assert.equal(after.total, 53);
    assert.equal(after.rows.length, 50);
    assert.deepEqual(
      after.rows.slice(0, 3).map((r) => r.stream),
      ["live0", "live1", "live2"],
    );
  });

  it("should show the newest event's date and the events handed on", async function () {
    client.push(ev("a", 100));
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "last", count: 1 });
    await clock.tickAsync(0);
    client.push(ev("b", 200), ev("c", 300));
    await clock.tickAsync(1000);
    const row = watcher.list().rows[0];
    assert.equal(row.lastEvent, 300);
    assert.equal(row.delivered, 3);
    assert.equal(row.gaps, 0);
    client.events = [];
    await clock.tickAsync(1000);
    assert.equal(watcher.list().rows[0].lastEvent, 300, "an empty read keeps the newest date seen");
  });

  it("should stop every stream at close, and a read that ends after it changes nothing", async function () {
    let release;
    client.listEvents = () =>
      new Promise((_resolve, reject) => {
        release = () => reject(new EdgeError("aborted", {}));
      });
    const w = recorder(1000);
    watcher.watch({ streamId: "s1" }, w, { kind: "new" });
    await clock.tickAsync(0);
    watcher.close();
    release();
    await clock.tickAsync(5000);
    assert.equal(w.errors.length, 0);
    assert.equal(watcher.size, 0);
  });

  it("should end a read at its bound and report what lies past it as a gap", async function () {
    this.timeout(20_000);
    for (let i = 1; i <= MAX_READ_EVENTS + 200; i++) client.push(ev(`e${i}`, i));
    const w = recorder();
    watcher.watch({ streamId: "s1" }, w, { kind: "position", position: { date: 1, ids: ["e1"] } });
    await clock.tickAsync(0);
    // 11 events on the first page and 99 new on each after it (each starts at the last event of
    // the one before): the read stops at the first page that takes it to the bound.
    assert.equal(w.reads[0].events.length, MAX_READ_EVENTS + 10);
    assert.equal(client.requests.length, 102);
    assert.equal(w.reads[0].gap, true);
  });

  it("should tell the refusals that a next read would meet again", function () {
    assert.equal(isLasting(new EdgeError("auth", {})), true);
    assert.equal(isLasting(new EdgeError("not-found", {})), true);
    assert.equal(isLasting(new EdgeError("bad-config", {})), true);
    assert.equal(isLasting(new EdgeError("api", {}, { status: 400 })), true);
    assert.equal(isLasting(new EdgeError("api", {}, { status: 410 })), true);
    assert.equal(isLasting(new EdgeError("api", {}, { status: 500 })), false);
    assert.equal(isLasting(new EdgeError("timeout", {})), false);
  });
});
