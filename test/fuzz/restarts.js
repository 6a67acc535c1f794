// The restart property of issue 28: schedules of commands, hand-built command references, fleet
// jobs and a watch on a stream that keeps getting events, with stops (SIGINT) and crashes
// (SIGKILL) of a real `node-red` process, judged against the server's record
// (restart-checks.js). Each run is a fresh server, collector, user directory and Node-RED.
// `npm test` runs a small budget (restarts.spec.js); `node test/fuzz/restarts.js --runs N
// [--seed S] [--path P] [--shrink]` runs longer or replays one failure.
"use strict";
const fc = require("fast-check");
const { waitFor, sleep } = require("../support/simulator");
const { removeTempDirs } = require("../support/temp");
const { RestartWorld } = require("./restart-world");
const { scheduleArb } = require("./restart-steps");
const { judge } = require("./restart-checks");

/** How long the ends of a schedule may take once every device is back online. */
const SETTLE_MS = 20000;
/** After the last end: long enough for a second end of anything to arrive. */
const QUIET_MS = 1500;

/** Runs one schedule on a fresh world; throws with every violation found. */
async function runSchedule(cmds) {
  const world = new RestartWorld();
  try {
    await world.open();
    await fc.asyncModelRun(() => ({ model: { restarts: 0 }, real: world }), cmds);
    await world.settle();
    const current = async () => judge(world, await world.serverRecord(), world.sink.got);
    await waitFor(async () => (await current()).waiting.length === 0, {
      timeoutMs: SETTLE_MS,
      intervalMs: 250,
    }).catch(() => {});
    await sleep(QUIET_MS);
    const { violations, waiting } = await current();
    const found = [...waiting, ...violations];
    // Node-RED is up and takes and ends a new message.
    const before = world.sink.got["/out"].length;
    await world.command("cmd", "fz-1");
    const tag = world.inputs[world.inputs.length - 1].tag;
    await waitFor(() => world.sink.got["/out"].slice(before).some((o) => o.tag === tag), {
      timeoutMs: 10000,
      intervalMs: 100,
    }).catch(() => found.push(`Node-RED did not end a new command after the schedule`));
    if (process.env.FUZZ_VERBOSE)
      console.log(
        `  schedule ${cmds}: ${world.inputs.length} inputs, ${world.events.length} events, ` +
          `lives ${world.lives.map((l) => l.how ?? "up").join(" ")}, ${found.length} violation(s)`,
      );
    if (found.length > 0) {
      throw new Error(
        `${found.length} violation(s):\n- ${found.join("\n- ")}\n` +
          `Node-RED lives: ${JSON.stringify(world.lives)}\nNode-RED output (end):\n${world.output()}`,
      );
    }
  } finally {
    await world.close();
  }
}

function property(maxSteps) {
  return fc.asyncProperty(scheduleArb(maxSteps), runSchedule);
}

/**
 * Checks the property over `runs` schedules; prints the seed and the command that replays a run.
 * Without `shrink` a failure is reported as drawn: each shrink step costs a Node-RED start.
 */
async function checkRestarts({
  runs,
  seed,
  path,
  shrink = false,
  maxSteps = 6,
  log = console.log,
}) {
  const usedSeed = seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  log(
    `restart property: ${runs} schedule(s), seed ${usedSeed}; replay: ` +
      `node test/fuzz/restarts.js --runs ${runs} --seed ${usedSeed}` +
      (path ? ` --path ${path}` : ""),
  );
  await fc.assert(property(maxSteps), {
    numRuns: runs,
    seed: usedSeed,
    ...(path ? { path } : {}),
    endOnFailure: !shrink,
    verbose: 1,
  });
}

function parseArgs(argv) {
  const args = { runs: 20 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--runs") args.runs = Number(value);
    else if (flag === "--seed") args.seed = Number(value);
    else if (flag === "--path") args.path = value;
    else if (flag === "--steps") args.maxSteps = Number(value);
    else if (flag === "--shrink") {
      args.shrink = true;
      continue;
    } else if (flag === "--restarts") continue;
    else throw new Error(`unknown option ${flag}`);
    i++;
  }
  if (!(args.runs >= 1)) throw new Error("--runs must be a positive number");
  return args;
}

if (require.main === module) {
  checkRestarts(parseArgs(process.argv.slice(2)))
    .then(
      () => {
        process.exitCode = 0;
      },
      (err) => {
        console.error(err.message);
        process.exitCode = 1;
      },
    )
    .finally(removeTempDirs);
}

module.exports = { checkRestarts, runSchedule, parseArgs };
