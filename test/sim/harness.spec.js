// The fault harness's properties in the simulated world (issue 36): the same schedules, nodes and
// invariants as test/fuzz/harness.spec.js, on virtual time and the in-process network, where the
// printed `npm run fuzz -- --sim --property <name> --seed=<S> --path=<P>` replays a failure
// exactly. It runs only with SIM_RUNS (the runs per property; 200 makes 2,000 schedules), and
// FUZZ_SEED fixes the seed as on the wall clock. Not yet in `npm test`: at 200 runs it finds two
// open findings (docs/reliability.md, "Found in the simulation") that the wall-clock harness
// meets rarely, and a suite that fails on them is the lead's call, not this spec's.
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
];
const RUNS = Number(process.env.SIM_RUNS ?? 0);

(RUNS > 0 ? describe : describe.skip)(
  "the fault harness in the simulated world: virtual time, the network in process",
  function () {
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
  },
);
