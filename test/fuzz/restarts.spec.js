// The restart property (restarts.js) in `npm test`: a few schedules, each with at most two stops
// or crashes of a real Node-RED, within about a minute on two cores. It prints its seed; a
// failure prints the schedule, the seed and the path that replay it
// (`npm run fuzz -- --restarts --runs 1 --seed S --path P`). FUZZ_SEED, FUZZ_PATH and
// FUZZ_RUNS choose them here too.
"use strict";
const { checkRestarts } = require("./restarts");

const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

describe("edge nodes across stops and crashes of Node-RED (random schedules)", function () {
  this.timeout(240000);

  it("ends every input once, sends no device a command twice and backs every complete with its marker, across SIGINT and SIGKILL", async function () {
    await checkRestarts({
      runs: RUNS,
      seed: process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED),
      path: process.env.FUZZ_PATH,
    });
  });
});
