// A fleet job (nodes/lib/fleet/fleet-job.ts) against stand-in services, on virtual time: a client
// whose POSTs and stream reads the spec answers, device names taken as given, and an inbox poller
// that hands each device's wait to the spec, which then gives it its markers or its end. With
// `@sinonjs/fake-timers` (useFleetClock), every pause the job takes is exactly what it chose.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("./lib");

const { FleetJob } = lib("fleet/fleet-job");
const { EdgeError } = lib("api/errors");

/** Virtual time's start: a fixed date, so that every figure a spec asserts is exact. */
const T0 = Date.UTC(2026, 0, 15, 12);

let serial = 0;
/** A name no other spec's device or job has: the registry of sent commands is the runtime's. */
const unique = (prefix) => `${prefix}-${++serial}`;

/**
 * A stand-in EdgeClient. `post(request)` answers each POST (an event, or throws); `list(request)`
 * each read of a `:command` stream (the events, or throws). Each request is logged with its
 * virtual time (`at`) in `posts` and `lists`. `refuse(n)` may give the error of the n-th try that
 * the account's limiter keeps back before it leaves (no beforeSend, no POST); `slotMs` is each POST's
 * wait for its slot there; `resendMs`, when given, the time after which the client tries a POST
 * again (its beforeSend called once more).
 */
function standInClient({
  post = (r) => ({ id: `c-${r.n}`, creationDate: Date.now() - 7, elems: r.elems }),
  list = () => [],
  refuse = () => undefined,
  slotMs = 0,
  resendMs,
  concurrent = 5,
  timeoutMs = 1000,
  retries = 0,
} = {}) {
  const c = {
    origin: "http://api.test",
    timeoutMs,
    limiter: { limits: { concurrent } },
    posts: [],
    lists: [],
    inFlight: 0,
    maxInFlight: 0,
    budgetMs: (call = {}) => timeoutMs * ((call.retries ?? retries) + 1),
    streamPath: (device, stream) => `/demo/devices/${device}/${stream}`,
    tries: 0,
    async createEventByPath(path, elems, metadata, call) {
      // Refused before it leaves (queue-full, deadline): no beforeSend, no POST.
      const refused = refuse(c.tries++);
      if (refused) throw refused;
      // Its wait for a slot in the account's limiter, before the POST leaves.
      if (slotMs > 0) await new Promise((resolve) => setTimeout(resolve, slotMs));
      await call.beforeSend?.();
      if (resendMs !== undefined) {
        // The client tries the POST again (a connection reset), its slot taken anew.
        await new Promise((resolve) => setTimeout(resolve, resendMs));
        await call.beforeSend?.();
      }
      const r = { n: c.posts.length, at: Date.now(), path, elems, metadata };
      c.posts.push(r);
      c.inFlight++;
      c.maxInFlight = Math.max(c.maxInFlight, c.inFlight);
      try {
        return await post(r);
      } finally {
        c.inFlight--;
      }
    },
    async listEventsByPath(path, opts) {
      const r = { n: c.lists.length, at: Date.now(), path, limit: opts.limit };
      c.lists.push(r);
      return list(r);
    },
    async getDevice(ref) {
      throw new EdgeError("not-found", { device: ref }, { status: 404 });
    },
  };
  return c;
}

/** Device names as given: a name needs no request. */
const names = {
  knownName: (d) => d,
  nameOf: async (d) => d,
  withDevice: async (d, _call, run) => run(d),
};

/** An inbox poller whose watches the spec sees: `waits[i]` is { inbox, wait, stopped, finals }. */
function standInPoller() {
  const p = { waits: [] };
  p.watch = (inbox, wait) => {
    const w = { inbox, wait, stopped: 0, finals: 0 };
    p.waits.push(w);
    return { stop: () => w.stopped++, finalRead: () => w.finals++ };
  };
  /** The watch of `device`'s inbox, if it has one. */
  p.of = (device) => p.waits.find((w) => w.inbox.path === `/demo/devices/${device}/:inbox`);
  return p;
}

/** A job record of `devices` (names, or records) with `settings` over the spec's defaults. */
function jobRecord(devices, settings = {}, over = {}) {
  return {
    v: 1,
    job: unique("job"),
    startedAt: Date.now(),
    settings: {
      elems: { "/lcd/txt1": "stand-in" },
      timeoutMs: 5000,
      intervalMs: 100,
      rate: 0,
      concurrency: 10,
      maxFailures: 0,
      ...settings,
    },
    devices: devices.map((d) => (typeof d === "string" ? { device: d, state: "pending" } : d)),
    msg: "{}",
    ...over,
  };
}

/**
 * A FleetJob on `record` with the stand-ins; `heard` holds what its hooks were told: each save's
 * copy of the record, each device's result, the progress calls and whether it ended. `hooks`
 * replaces any of them (after it is heard).
 */
function fleetJob(
  record,
  { client = standInClient(), hooks = {}, fromStore = false, observer } = {},
) {
  const poller = standInPoller();
  const heard = { saves: [], devices: [], progress: 0, ended: 0 };
  const job = new FleetJob(
    record,
    { client, names, poller },
    {},
    {
      save: async (r) => {
        heard.saves.push(JSON.parse(JSON.stringify(r)));
        await hooks.save?.(r);
      },
      device: (r) => {
        heard.devices.push({ ...r, record: { ...r.record }, markers: [...r.markers] });
        hooks.device?.(r);
      },
      progress: () => {
        heard.progress++;
        hooks.progress?.();
      },
      end: () => heard.ended++,
      describe: hooks.describe ?? ((err) => `told: ${err.message}`),
    },
    observer,
    fromStore,
  );
  return { job, heard, client, poller };
}

/** Installs a fake clock at T0 around each test of the describe it is called in. */
function useFleetClock() {
  const v = { clock: undefined };
  beforeEach(function () {
    v.clock = FakeTimers.install({ now: T0, toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(function () {
    v.clock.uninstall();
  });
  /** Runs virtual time, timer by timer, until `condition()` holds (at most `limitMs` of it). */
  v.until = async (condition, limitMs = 600_000) => {
    const started = Date.now();
    await v.clock.tickAsync(0);
    while (!condition()) {
      assert.ok(v.clock.countTimers() > 0, "nothing left to wait for, and the condition is false");
      assert.ok(Date.now() - started < limitMs, `still false after ${limitMs} virtual ms`);
      await v.clock.nextAsync();
    }
  };
  return v;
}

/** A marker of `kind` on a device's inbox, naming `commandId` as the real service's do. */
const marker = (kind, commandId, at = Date.now()) => ({
  id: unique("m"),
  creationDate: at,
  elems: { [kind]: { commandId } },
});

module.exports = {
  T0,
  unique,
  standInClient,
  standInPoller,
  jobRecord,
  fleetJob,
  useFleetClock,
  marker,
  EdgeError,
};
