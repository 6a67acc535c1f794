// The simulated fault harness (test/sim/harness-runs.js) over the properties of watches.
"use strict";
const { harnessWorld, itKeepsInvariants } = require("./harness-runs");

describe("the fault harness in the simulated world: watches: redeploys, bursts and capped pages, capacities, re-dated events", function () {
  this.timeout(600000);
  const world = harnessWorld();
  itKeepsInvariants(world, ["watch", "streams", "capacity", "redates"]);
});
