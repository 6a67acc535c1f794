// The simulated world of issue 36 (FoundationDB's simulation, TigerBeetle's VOPR): one virtual
// clock for everything in this process (the nodes, Node-RED's runtime, the fuzz server, the
// harness's own sleeps), seeded randomness, and a driver that moves time on only when nothing
// else can happen. With the network in process too (network.js), a run is a function of its seed:
// the same schedule gives the same interleaving, byte for byte (test/sim/determinism.spec.js).
//
// The driver: run what is ready (promise jobs and process.nextTick run to their end before a
// real setImmediate fires, so one real turn flushes them), then fire the next virtual timer
// (setImmediate and setTimeout(0) first, in the order they were made; then the earliest timer,
// jumping the clock to it), and again, until the run's promise settles. Each turn is counted:
// a run that never ends fails after `maxSteps` timers or `maxVirtualMs`, never hangs.
"use strict";
const FakeTimers = require("@sinonjs/fake-timers");
const crypto = require("node:crypto");

/** The platform's own functions, kept before any clock is installed. */
const real = {
  setImmediate: globalThis.setImmediate,
  setTimeout: globalThis.setTimeout,
  random: Math.random,
  randomBytes: crypto.randomBytes,
  randomUUID: crypto.randomUUID,
  now: () => Date.now(),
};

/** Everything timed that the world's code can reach; nextTick and promises stay real. */
const FAKED = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "setImmediate",
  "clearImmediate",
  "Date",
  "performance",
  "hrtime",
];

/** 2026-01-01T00:00:00Z: every run starts at this date, so dates in logs replay too. */
const EPOCH = Date.UTC(2026, 0, 1);

/**
 * sfc32, seeded through splitmix32 from one 32-bit seed: a small PRNG that a replay on any
 * machine draws identically (Math.random's engine is not seedable).
 */
function rngOf(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const next32 = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  return {
    next32,
    /** A float in [0, 1), as Math.random. */
    random: () => next32() / 2 ** 32,
    bytes(n) {
      const out = Buffer.alloc(n);
      for (let i = 0; i < n; i++) out[i] = next32() & 0xff;
      return out;
    },
  };
}

/** A 32-bit seed from a text (FNV-1a): a schedule's own seed, whatever ran before it. */
function seedOf(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Waits one real turn of the event loop: every promise job and nextTick queued runs first. */
const realTurn = () => new Promise((resolve) => real.setImmediate(resolve));

/**
 * Real work that virtual time must wait for (a file read, a socket): the driver does not move
 * the clock while Node has one of these pending, as a real process would not have gone on.
 */
const REAL_WORK =
  /^(FSReqCallback|FSReqPromise|FileHandleCloseReq|GetAddrInfoReqWrap|TCPConnectWrap|WriteWrap|ShutdownWrap|ZlibWrap)$/;
const realWorkPending = () => process.getActiveResourcesInfo().some((r) => REAL_WORK.test(r));

/**
 * Runs `fn` in a new world seeded with `seed`: the clock installed at EPOCH, Math.random and
 * node:crypto's random sources seeded, and the driver moving time until fn's promise settles.
 * Everything is put back after. `limits`: maxSteps (timers fired), maxVirtualMs, maxRealMs (a
 * bound on waiting for real work). Resolves or rejects as fn did; `world.stats` says how far the
 * run went.
 */
async function runInWorld(seed, fn, limits = {}) {
  const { maxSteps = 2_000_000, maxVirtualMs = 10 * 60_000, maxRealMs = 30_000 } = limits;
  const rng = rngOf(seed);
  const clock = FakeTimers.install({ now: EPOCH, toFake: FAKED, loopLimit: maxSteps });
  const stats = { steps: 0, virtualMs: 0, realWaits: 0 };
  let settled = false;
  let outcome;
  const started = real.now();
  try {
    Math.random = rng.random;
    crypto.randomBytes = (n, cb) => {
      const out = rng.bytes(n);
      if (typeof cb === "function") return void process.nextTick(cb, null, out);
      return out;
    };
    crypto.randomUUID = () => {
      const b = rng.bytes(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = b.toString("hex");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    };
    const p = Promise.resolve().then(fn);
    p.then(
      (value) => {
        settled = true;
        outcome = { value };
      },
      (error) => {
        settled = true;
        outcome = { error };
      },
    );
    for (;;) {
      await realTurn();
      if (settled) break;
      if (realWorkPending()) {
        // Bounded by real time: a socket or a file that never answers fails the run.
        stats.realWaits++;
        if (real.now() - started > maxRealMs)
          throw new Error(`the world waited ${maxRealMs} ms for real work`);
        await new Promise((resolve) => real.setTimeout(resolve, 1));
        continue;
      }
      if (clock.countTimers() === 0) {
        // Nothing can happen any more, yet the run goes on waiting: a lost wake-up.
        throw new Error(`the world is stuck at +${clock.now - EPOCH} ms: no timer left to fire`);
      }
      if (++stats.steps > maxSteps) throw new Error(`the world fired ${maxSteps} timers`);
      if (clock.now - EPOCH > maxVirtualMs)
        throw new Error(`the world ran ${maxVirtualMs} virtual ms without ending`);
      // A timer's callback that throws would be an uncaught exception in a real process.
      clock.next();
    }
    stats.virtualMs = clock.now - EPOCH;
  } finally {
    runInWorld.stats = stats;
    clock.uninstall();
    Math.random = real.random;
    crypto.randomBytes = real.randomBytes;
    crypto.randomUUID = real.randomUUID;
  }
  if (outcome.error) throw outcome.error;
  return outcome.value;
}

module.exports = { runInWorld, rngOf, seedOf, EPOCH, real };
