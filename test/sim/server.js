// The fuzz server in the simulated world (issue 36): the API of test/fuzz/server.js with no
// socket, reached through the simulated network (network.js), which the nodes' client gets from
// transport.ts's test-only pool factory; each schedule runs in a world of its own (world.js).
// The harness takes it where it takes the real server: `runScheduleOn` (test/fuzz/schedule.js)
// runs a schedule through `simulate` when the server has one.
"use strict";
const crypto = require("node:crypto");
const { createFuzzApi } = require("../fuzz/server");
const { SimNetwork } = require("./network");
const { runInWorld, seedOf } = require("./world");

const lib = (p) => require(`../../dist/nodes/lib/${p}`);

/** The origin the flows are told: no such host exists, and nothing here resolves it. */
const SIM_URL = "http://fuzz.sim";

/**
 * What the nodes' process remembers across flows (ids of commands it sent, answer times its
 * account learned, the sidebar's lists), forgotten before each schedule: a schedule then runs as
 * its replay runs in a new process (`npm run fuzz -- --seed S --path P`), whatever ran
 * before it. The ids of the world's server count from 1 again for the same reason.
 */
function forgetRuntimeMemory() {
  const { sentCommands, SentCommands } = lib("commands/sent-commands");
  Object.assign(sentCommands, new SentCommands());
  lib("records/kept-answer-times").forgetAnswerTimes("acc");
  lib("account/in-flight").forgetPending();
  lib("events/known-dates").forgetKnownDates();
}

/**
 * After a schedule's flows were unloaded, `ms` more of virtual time: every request that still
 * reaches the server then is one the real-time harness would log in the next schedule's run
 * (its server is one, reset between runs), printed with what it did.
 */
async function watchTail(api, ms) {
  const log = api.log;
  const requests = log.requests.length;
  const executed = log.executed.length;
  await new Promise((resolve) => setTimeout(resolve, ms));
  const late = log.requests.slice(requests);
  if (late.length === 0) return;
  const t0 = log.startedAt;
  console.log(
    `after the unload: ${late.map((r) => `+${r.t - t0}ms ${r.method} ${r.path} ${r.status ?? r.fault ?? ""}`).join(", ")}` +
      `; executed ${JSON.stringify(log.executed.slice(executed))}`,
  );
}

/**
 * What a schedule's nodes left in Node-RED's context store after the unload: a record there is
 * one the next schedule's node of the same id reads back at its start and resumes.
 */
function leftInContext() {
  const context = require("@node-red/runtime/lib/nodes/context");
  for (const id of ["f1", "a1", "w1"]) {
    const keys = context.get(id, "tab").keys();
    if (Array.isArray(keys) && keys.length > 0)
      console.log(`left in ${id}'s context after the unload: ${keys.join(", ")}`);
  }
}

/**
 * The simulated fuzz server; `close()` gives the nodes undici again. `options.seedOffset` varies
 * the world's randomness (network delays, ids) for the same schedule: 0 unless hunting an
 * interleaving (`--world`).
 */
function startSimServer(options = {}) {
  const api = createFuzzApi({
    url: SIM_URL,
    // Looked up at each call: the world seeds node:crypto's sources (world.js).
    random: (n) => crypto.randomBytes(n),
    resetIds: true,
  });
  const network = new SimNetwork(api, { random: () => Math.random() });
  const transport = lib("api/transport");
  transport.setPoolFactoryForTests(network.factory());
  let seedOffset = options.seedOffset ?? 0;
  const tailMs = options.tailMs ?? 0;
  const server = Object.assign(api, {
    network,
    /** The world's seed of the last schedule run, and how far its clock went. */
    last: undefined,
    setSeedOffset(n) {
      seedOffset = n;
    },
    /** Runs `fn` (one schedule: `drawn`, `cmds`) in a new world seeded by the schedule itself. */
    async simulate(drawn, cmds, fn) {
      const seed = (seedOf(JSON.stringify(drawn) + String(cmds)) + seedOffset) >>> 0;
      forgetRuntimeMemory();
      network.restart();
      try {
        return await runInWorld(seed, async () => {
          try {
            return await fn();
          } finally {
            if (tailMs > 0) {
              leftInContext();
              await watchTail(api, tailMs);
            }
          }
        });
      } finally {
        server.last = { seed, ...runInWorld.stats };
      }
    },
    close() {
      api.stop();
      transport.setPoolFactoryForTests(undefined);
      return Promise.resolve();
    },
  });
  return server;
}

module.exports = { startSimServer, SIM_URL, forgetRuntimeMemory };
