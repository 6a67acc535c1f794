// The simulated fault harness (test/sim/harness-runs.js) over the properties of commands.
"use strict";
const { harnessWorld, itKeepsInvariants } = require("./harness-runs");

describe("the fault harness in the simulated world: commands: sends, awaits and fleet jobs, server clocks and stamps, gateways, people in the tab", function () {
  this.timeout(600000);
  const world = harnessWorld();
  itKeepsInvariants(world, ["await", "fleet", "stamps", "gateway", "people"]);
});
