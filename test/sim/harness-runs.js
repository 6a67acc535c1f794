// The fault harness's runs in the simulated world (issue 36), shared by the spec files that split
// them (harness-commands, harness-flows, harness-streams and harness-found in test/sim/), so that
// mocha's workers run them side by side: one file of every property took two of npm test's four
// minutes in one worker. The same schedules, nodes and invariants as test/fuzz/harness.spec.js, on
// virtual time and the in-process network, where the printed `npm run fuzz -- --property
// <name> --seed=<S> --path=<P>` replays a failure exactly. SIM_RUNS sets the runs per property
// (200 by default: 2,800 schedules in `npm test`), on one seed (SEED below). Each schedule it
// found failing is replayed by name (FOUND), with the defect it showed.
"use strict";
const { helper } = require("../fuzz/flow");
const { runProperty, PROPERTIES } = require("../fuzz/properties");
const { startSimServer } = require("./server");

const RUNS = Number(process.env.SIM_RUNS ?? 200);
/** The seed of npm test's schedules (FUZZ_SEED sets another; FUZZ_SEED=random draws one). */
const SEED = 20261128;

/** Schedules the simulation found failing, each replayed by its property, seed and path. */
const FOUND = [
  {
    name: "redates",
    seed: 1,
    path: "2",
    found:
      "an event re-dated to the top of the watched stream, placed at its first date, was taken " +
      "for how far down the read had gone: the read stopped above events it never listed, and " +
      "the watch went past them without msg.gap",
  },
  {
    name: "redates",
    seed: 2,
    path: "4",
    found:
      "an event the watch had delivered, re-dated by the server, came again after a full deploy " +
      "(the account's stream watcher, made anew, had forgotten its first date)",
  },
  {
    name: "stamps",
    seed: 11,
    path: "358",
    found:
      "the server's clock stepped back 3 s just after another system's command: its answer, read " +
      "8 ms after our command was sent, was dated 2.4 s after our command, and our wait took it by " +
      "date (no command of ours before it to compare with)",
  },
  {
    name: "stamps",
    seed: 33,
    path: "439",
    found:
      "a COMPLETE naming its command, held while a fleet job's POST to the same device was on the " +
      "wire, when a deploy stopped the await node: the wait resumed after the deploy never saw it " +
      "again (read once) and ended timed out",
  },
  {
    name: "stamps",
    seed: 180,
    path: "0",
    found:
      "a fleet device's POST cut off by a full deploy on a server whose clock was 6 s behind: the " +
      "resumed job looked for the command in the send's time on our clock alone, did not see it " +
      "(dated 6 s earlier) and sent the device again, which ran it twice",
  },
  {
    name: "stamps",
    seed: 186,
    path: "198",
    found:
      "the same with two identical jobs back to back and a nodes deploy first: the device the " +
      "deploy cut off ran three times for two jobs",
  },
  {
    name: "stamps",
    seed: -268557450,
    path: "167",
    found:
      "markers that name no command, the server's clock 2 s ahead: an answer dated 1 ms before " +
      "its command stayed unclaimed, and a later command's wait, sent after that answer was read, " +
      "took it by date (its result was a FAULT that was another command's)",
  },
  {
    name: "stamps",
    seed: -1408286524,
    path: "178",
    found:
      "the server's clock stepped back 3 s between two commands to one device whose markers name " +
      "no command: the later command, dated 2.9 s before the earlier, took the earlier one's " +
      "COMPLETE by date, written before it was sent",
  },
  {
    name: "stamps",
    seed: -916276285,
    path: "27",
    found:
      "a clock step back of 3 s: a probe command's wait took by date a FAULT read before the " +
      "probe was sent",
  },
  {
    name: "stamps",
    seed: 22019,
    path: "350",
    found:
      "a clock step back of 3 s after a fleet job: a later await took by date a COMPLETE of the " +
      "job's command",
  },
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
    name: "streams",
    seed: 872146947,
    path: "75",
    found:
      "the same bursts under a fleet device's reads: each read's pages pushed down onto what it " +
      "had read, an answer landing above them in a hole no read covered; once the bursts stopped, " +
      "every read from the top met events it had seen and stopped above the hole (timed out)",
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
    name: "people",
    seed: 9,
    path: "89",
    found:
      "the same, where the read of the command stream that looks for the id twice was counted in " +
      "the send's own budget and found it spent behind the rate limit: the send was taken as its " +
      "id's own, and its wait took the lost command's COMPLETE",
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
  {
    name: "capacity",
    seed: 251,
    path: "148",
    found:
      "the harness's own: four failed reads of the watch in a row (reset, 503, reset, lost) put " +
      "its next read, as documented, 2.25 s after the fourth, past the settle's fixed window, and " +
      "the events the stream still held were counted as lost though that read sent them with msg.gap",
  },
  {
    name: "capacity",
    seed: 260,
    path: "289",
    found: "the same, the four failures a late answer past the Timeout, a 429 and two resets",
  },
  {
    name: "capacity",
    seed: 263,
    path: "333",
    found: "the same, the four failures a reset, a 429, a lost answer and a 429 (capacity 12)",
  },
  {
    name: "fleet",
    seed: 126,
    path: "170",
    found:
      "a restored job cancelled with no device in flight ended at once, and the cancel then saved " +
      "its ended record again: the next full deploy resumed it and it reported a second time",
  },
  {
    name: "people",
    seed: 223,
    path: "156",
    found:
      "a command's answer later than the Timeout, its id given to the next send, answered while " +
      "the late one was on the wire: that send never looked, and its wait took the first COMPLETE",
  },
  {
    name: "people",
    seed: 224,
    path: "316",
    found:
      "the same with a connection reset after the server acted, known only after the next send " +
      "was answered with its id: the wait took the lost command's COMMAND_FAULT",
  },
  {
    name: "fleet",
    seed: 703,
    path: "54",
    found:
      "a device resumed as sending after a full deploy, not found on its stream, went back to " +
      "pending inside its run to be sent there; when another device ended, the rollout took it " +
      "for the next to start, and the two runs sent it 3 ms apart: it ran twice",
  },
];

/** A world of its own for a spec file: Node-RED's test helper and the simulated server. */
function harnessWorld() {
  const world = { server: undefined };
  before(async function () {
    await new Promise((resolve) => helper.startServer(resolve));
    world.server = startSimServer();
  });
  after(async function () {
    await world.server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });
  return world;
}

/** One test per property of `names`: RUNS schedules on npm test's seed. */
function itKeepsInvariants(world, names) {
  for (const name of names) {
    it(`keeps every invariant over ${RUNS} "${name}" schedules`, async function () {
      // One seed for every run of npm test, so that what CI prints is what a developer gets: the
      // world replays a schedule exactly, and a suite whose schedules change with each run fails
      // one commit for another's defect. New schedules are searched with FUZZ_SEED=random (drawn
      // here, on the wall clock: inside the world the date and Math.random are the world's) or
      // `npm run fuzz -- --runs N`, which draws a seed (docs/reliability.md).
      const seed =
        process.env.FUZZ_SEED === "random"
          ? (Date.now() ^ (Math.random() * 2 ** 32)) | 0
          : Number(process.env.FUZZ_SEED ?? SEED);
      const started = Date.now();
      const result = await runProperty(name, world.server, { numRuns: RUNS, seed });
      const s = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`      sim "${name}": seed ${result.seed}, ${result.runs} runs, ${s} s`);
      if (result.failure) throw new Error(result.failure);
    });
  }
}

module.exports = { PROPERTIES, FOUND, harnessWorld, itKeepsInvariants };
