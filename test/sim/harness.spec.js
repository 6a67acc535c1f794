// The fault harness's properties in the simulated world (issue 36): the same schedules, nodes and
// invariants as test/fuzz/harness.spec.js, on virtual time and the in-process network, where the
// printed `npm run fuzz -- --sim --property <name> --seed=<S> --path=<P>` replays a failure
// exactly. SIM_RUNS sets the runs per property (200 by default: 2,000 schedules in `npm test`,
// about a minute on two cores), and FUZZ_SEED fixes the seed as on the wall clock. Each schedule it
// found failing is replayed by name below, with the defect it showed.
"use strict";
const { helper } = require("../fuzz/flow");
const { runProperty } = require("../fuzz/properties");
const { startSimServer } = require("./server");

const PROPERTIES = [
  "await",
  "fleet",
  "watch",
  "wiring",
  "streams",
  "stamps",
  "gateway",
  "disable",
  "people",
  "network",
  "capacity",
  "subflows",
  "readers",
];
const RUNS = Number(process.env.SIM_RUNS ?? 200);

/** Schedules the simulation found failing, each replayed by its property, seed and path. */
const FOUND = [
  {
    name: "streams",
    seed: 20261128,
    path: "188",
    found:
      "an answer written while an await's inbox read paged, the device writing a page of its own " +
      "events before each later page: the read ended on two pages it had read, took the inbox " +
      "for covered, and every later read stopped above the answer (timed out)",
  },
  {
    name: "people",
    seed: 20261128,
    path: "103",
    found:
      "a command whose answer was lost after the server acted, its id given to the next command " +
      "to that device: the second command's wait took the first one's COMPLETE",
  },
  {
    name: "people",
    seed: 77,
    path: "29",
    found:
      "the same, with the lost answer known only after the second send had left: its id is " +
      "looked for twice on the stream once its own answer comes",
  },
  {
    name: "capacity",
    seed: 20261128,
    path: "47",
    found:
      "a watch's read answered late while the stream (capacity 12) took bursts of 8: its second " +
      "page listed events newer than the whole first page, and the events between the two, " +
      "dropped by the stream, were lost without msg.gap",
  },
  {
    name: "capacity",
    seed: 77,
    path: "584",
    found:
      "the same, with every event dated by a device clock of one-second resolution: the later " +
      "page's events had the date of the first page's oldest and passed for going on down",
  },
];

describe("the fault harness in the simulated world: virtual time, the network in process", function () {
  this.timeout(600000);
  let server;
  before(async function () {
    await new Promise((resolve) => helper.startServer(resolve));
    server = startSimServer();
  });
  after(async function () {
    await server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });

  for (const name of PROPERTIES) {
    it(`keeps every invariant over ${RUNS} "${name}" schedules`, async function () {
      // Drawn here, on the wall clock: inside the world the date and Math.random are the world's.
      const seed =
        process.env.FUZZ_SEED === undefined
          ? (Date.now() ^ (Math.random() * 2 ** 32)) | 0
          : Number(process.env.FUZZ_SEED);
      const started = Date.now();
      const result = await runProperty(name, server, { numRuns: RUNS, seed });
      const s = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`      sim "${name}": seed ${result.seed}, ${result.runs} runs, ${s} s`);
      if (result.failure) throw new Error(result.failure);
    });
  }

  for (const { name, seed, path, found } of FOUND) {
    it(`keeps every invariant over "${name}" seed ${seed}, path ${path}: ${found}`, async function () {
      const result = await runProperty(name, server, { numRuns: 1, seed, path });
      if (result.failure) throw new Error(result.failure);
    });
  }
});
