// The simulated fault harness (test/sim/harness-runs.js) over the properties of flows as users wire them.
"use strict";
const { harnessWorld, itKeepsInvariants } = require("./harness-runs");

describe("the fault harness in the simulated world: flows as users wire them: second wires, disabled tabs, subflows, read-only users, transport faults", function () {
  this.timeout(600000);
  const world = harnessWorld();
  itKeepsInvariants(world, ["wiring", "disable", "subflows", "readers", "network"]);
});
