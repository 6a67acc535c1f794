// Every schedule the fault harness found failing (test/fuzz/seeds.js), replayed as a named test:
// the drawn ones by their seed and path, the written-out ones step by step. Each held on the code
// before its fix only by luck of timing; each must hold now, every run.
"use strict";
const { withFuzzServer } = require("./flow");
const { runProperty } = require("./properties");
const { runSchedule, stepsOf } = require("./schedule");
const { seeds, named } = require("./seeds");

describe("the schedules the fault harness found failing", function () {
  this.timeout(60000);
  const env = withFuzzServer();

  for (const { item, property, seed, path, found } of seeds) {
    it(`keeps every invariant where item ${item} broke one (${property}, seed ${seed}, path ${path}): ${found}`, async function () {
      const result = await runProperty(property, env.server, { numRuns: 1, seed, path });
      if (result.failure) throw new Error(result.failure);
    });
  }

  for (const [name, written] of Object.entries(named)) {
    it(`keeps every invariant over the written-out schedule "${name}": ${written.found}`, async function () {
      await runSchedule(env.server, written, stepsOf(written));
    });
  }
});
