// The stand-ins of the inbox-watch and inbox-poller unit specs (in test/unit/commands/): a client
// whose inbox is served newest first, a wait that records what it is told, ids of the service's
// shape, and the fake timers and watch each test starts with. One module for all those specs, so
// that a change to what the fakes do is made once; each spec asks, by its options, for the little
// it records differently.
"use strict";
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("./lib");

const { InboxWatch } = lib("commands/inbox-watch");

/** The virtual "now" every inbox-watch spec starts at. */
const T0 = 1_700_000_000_000;

/**
 * The fakes of one spec file:
 * - `newId()`: ids of the service's shape, "e" and 24 hex digits, counted up from `idBase` + 1
 *   (a spec file keeps its own base, so that its ids are not another file's).
 * - `fakeClient(serve)`: an inbox served newest first by start and limit; `event()` makes an event
 *   and `marker()` adds it, `failures` make the next reads throw, `hold` keeps each read until
 *   `release()`, `room` and `queued` are what its rate limiter says. Its `requests` count the
 *   reads, or with `list` list them as `{ streamId, start, limit, lane, retries }`, and `at` (ms
 *   since `t0`) when a `t0` is given; with `request(streamId, page, call)` they list what it gives
 *   (a read it gives undefined for is not listed). With `signals`, `signals` lists each read's
 *   signal. `serve` may ask that a read ignore `start` (`ignoresStart`), give at most `cap` events
 *   a page, or take `delayMs` (virtual) ms.
 * - `recorder(commandId, over)`: a wait for `commandId` that reads every `intervalMs` (1000 ms by
 *   default) and records what it is told (`over` over it): `got` its markers as `[name, id]` (with
 *   `dated`, `[name, id, creationDate]`; with `got(event, name)`, what it gives), `undated`
 *   the ids of the results it could not claim, `errors` and `finals` the errors of its reads and
 *   final reads (with `codes`, their codes and "read" for a final read that worked; with
 *   `countFinals`, `finals` is only how many final reads ended).
 */
function inboxFakes({
  idBase = 0,
  list = false,
  t0,
  dated = false,
  codes = false,
  countFinals = false,
  intervalMs = 1000,
  request,
  signals = false,
  got,
} = {}) {
  let serial = 0;
  const newId = () => `e${(idBase + ++serial).toString(16).padStart(24, "0")}`;

  /** An event of `status` for `ref` (a command id or anything), dated `at` (default now). */
  function event(status, ref, at = Date.now(), id = newId()) {
    return { id, creationDate: at, elems: { cmd: { status, ...(ref ? { ref } : {}) } } };
  }

  function fakeClient({ ignoresStart = false, cap = Infinity, delayMs = 0 } = {}) {
    const c = {
      origin: "http://edge.test",
      events: [],
      requests: list || request ? [] : 0,
      ...(signals ? { signals: [] } : {}),
      failures: [],
      /** When set, each read waits for release() before it answers. */
      hold: false,
      pending: [],
      room: true,
      queued: 0,
      limiter: { hasRoomForEarlyPoll: () => c.room, queuedIn: () => c.queued },
      event,
      /** A marker for `ref` (a command id or anything), dated `at` (default now). */
      marker(status, ref, at = Date.now(), id = newId()) {
        const e = event(status, ref, at, id);
        c.events.unshift(e);
        return e;
      },
      async listEvents(streamId, page, call) {
        if (request) {
          const r = request(streamId, page, call);
          if (r !== undefined) c.requests.push(r);
        } else if (!list) c.requests++;
        else {
          const at = t0 === undefined ? {} : { at: Date.now() - t0 };
          c.requests.push({ streamId, ...page, lane: call.lane, retries: call.retries, ...at });
        }
        if (signals) c.signals.push(call.signal);
        if (c.hold) await new Promise((r) => c.pending.push(r));
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        const f = c.failures.shift();
        if (f) throw f;
        const start = ignoresStart ? 0 : page.start;
        return c.events.slice(start, start + Math.min(page.limit, cap)).map((e) => ({ ...e }));
      },
      async listEventsByPath(path, page, call) {
        return c.listEvents(`path:${path}`, page, call);
      },
      release() {
        for (const r of c.pending.splice(0)) r();
      },
    };
    return c;
  }

  function recorder(commandId, over = {}) {
    const w = {
      commandId,
      since: Date.now(),
      intervalMs,
      got: [],
      undated: [],
      errors: [],
      finals: countFinals ? 0 : [],
      onMarker: (event, name) =>
        w.got.push(
          got ? got(event, name) : dated ? [name, event.id, event.creationDate] : [name, event.id],
        ),
      onUndated: (event) => w.undated.push(event.id),
      onError: (err) => w.errors.push(codes ? err.code : err),
      onFinalRead: (err) => {
        if (countFinals) w.finals++;
        else w.finals.push(codes ? (err?.code ?? "read") : err);
      },
      ...over,
    };
    return w;
  }

  return { newId, fakeClient, recorder };
}

/**
 * The mocha setup of a describe that watches one inbox: before each test, fake timers (now `now`,
 * T0 by default) and, unless told otherwise, a client of `fakes` and an InboxWatch on
 * `{ streamId: "in" }`; after it, every watch made is closed and the timers are uninstalled.
 * Returns the world whose `clock`, `client` and `watch` are set before each test; `watchOf(client,
 * options)` makes another watch (on the world's client by default) that is closed after the test.
 * - `client: false`: no client is made (a test makes its own); `watch: false`: no watch is made.
 */
function watchWorld(fakes, { now = T0, client = true, watch = true } = {}) {
  const watches = [];
  const world = {
    clock: undefined,
    client: undefined,
    watch: undefined,
    watchOf(c = world.client, options) {
      const w = new InboxWatch(c, { streamId: "in" }, () => {}, options);
      watches.push(w);
      return w;
    },
  };
  beforeEach(function () {
    world.clock = FakeTimers.install({
      now,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
    world.client = client ? fakes.fakeClient() : undefined;
    world.watch = watch ? world.watchOf() : undefined;
  });
  afterEach(function () {
    for (const w of watches.splice(0)) w.close();
    world.clock.uninstall();
  });
  return world;
}

module.exports = { T0, inboxFakes, watchWorld };
