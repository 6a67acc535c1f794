// The fault harness of issue 28 at its CI budget: 200 schedules of inputs, deploys and server
// faults over the real nodes in the test helper's Node-RED, each checked against the fuzz server's
// log (test/fuzz/invariants.js). A failure prints its seed and the one command that replays it.
// FUZZ_SEED fixes the seed of every property (the default is a new one per run, printed).
"use strict";
const { helper } = require("./flow");
const { startFuzzServer } = require("./server");
const { runProperty } = require("./properties");

/** Runs per property: 200 in all, within the 3 minutes of the CI budget on two cores. */
const BUDGET = { await: 110, fleet: 50, watch: 40 };

describe("the fault harness: random schedules of inputs, deploys and server faults", function () {
  this.timeout(240000);
  let server;
  before(async function () {
    await new Promise((resolve) => helper.startServer(resolve));
    server = await startFuzzServer();
  });
  after(async function () {
    await server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });

  for (const [name, numRuns] of Object.entries(BUDGET)) {
    it(`keeps every invariant over ${numRuns} "${name}" schedules`, async function () {
      const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
      const result = await runProperty(name, server, { numRuns, seed });
      console.log(`      fuzz "${name}": seed ${result.seed}, ${result.runs} runs`);
      if (result.failure) throw new Error(result.failure);
    });
  }
});
