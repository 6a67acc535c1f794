// The restart property (restarts.js) in `npm test`: a few schedules, each with at most two stops
// or crashes of a real Node-RED, within about a minute on two cores. It prints its seed; a
// failure prints the schedule, the seed and the path that replay it
// (`npm run fuzz -- --restarts --runs 1 --seed S --path P`). FUZZ_SEED, FUZZ_PATH and
// FUZZ_RUNS choose them here too. Each schedule it found failing is replayed as a named test.
"use strict";
const { checkRestarts } = require("./restarts");

const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

/**
 * Schedules the restart property found failing, each replayed by its seed and path (a seed and
 * path name one schedule only while restart-steps.js's arbitraries stay as they are), with the
 * defect it showed.
 */
const FOUND = [
  {
    seed: 1823590037,
    path: "2",
    found:
      "a fleet job of four devices, two crashes (SIGKILL) while two of them were still pending, " +
      "then a second fleet job: the resumed job held each pending device a whole request budget " +
      "from its resume (41 s) before sending it, and the job queued behind it ended 50 s after " +
      "its input",
  },
  {
    seed: -1382766675,
    path: "2",
    found:
      "a fleet job stopped cleanly (SIGINT), resumed by the next process, which sent two devices " +
      "and was killed (SIGKILL) before its store wrote: the third process read the clean stop's " +
      "record, took it for exact and sent both devices again",
  },
  {
    seed: -1549551126,
    path: "1",
    found:
      "three fleet jobs queued at a clean stop: read back, each looks its unfinished devices up " +
      "and sends those not found one account Timeout after the start, and the harness's bound " +
      "for the last job's end left that documented wait out",
  },
];

describe("edge nodes across stops and crashes of Node-RED (random schedules)", function () {
  this.timeout(240000);

  it("ends every input once, sends no device a command twice and backs every complete with its marker, across SIGINT and SIGKILL", async function () {
    await checkRestarts({
      runs: RUNS,
      seed: process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED),
      path: process.env.FUZZ_PATH,
    });
  });

  for (const { seed, path, found } of FOUND) {
    it(`keeps every invariant over the schedule of seed ${seed}, path ${path}: ${found}`, async function () {
      await checkRestarts({ runs: 1, seed, path });
    });
  }
});
