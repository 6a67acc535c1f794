// The simulated fault harness (test/sim/harness-runs.js): each schedule it found failing,
// replayed by its seed and path, with the defect it showed.
"use strict";
const { runProperty } = require("../fuzz/properties");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { FOUND, PROPERTIES, harnessWorld } = require("./harness-runs");

describe("the fault harness in the simulated world: the schedules it found failing", function () {
  this.timeout(600000);
  const world = harnessWorld();

  it("should run every property in one of the harness's spec files, once", function () {
    const run = [];
    for (const file of fs.readdirSync(__dirname).filter((f) => /^harness-.*\.spec\.js$/.test(f))) {
      const text = fs.readFileSync(path.join(__dirname, file), "utf8");
      const list = /itKeepsInvariants\(world, (\[[^\]]*\])\)/.exec(text);
      if (list) run.push(...JSON.parse(list[1]));
    }
    assert.deepEqual([...run].sort(), [...PROPERTIES].sort());
  });

  for (const { name, seed, path: at, found } of FOUND) {
    it(`keeps every invariant over "${name}" seed ${seed}, path ${at}: ${found}`, async function () {
      const result = await runProperty(name, world.server, { numRuns: 1, seed, path: at });
      if (result.failure) throw new Error(result.failure);
    });
  }
});
