// The restart property of issue 28: schedules of commands, hand-built command references, fleet
// jobs and a watch on a stream that keeps getting events, with stops (SIGINT) and crashes
// (SIGKILL) of a real `node-red` process, judged against the server's record
// (restart-checks.js). Each run is a fresh server, collector, user directory and Node-RED.
// `npm test` runs a small budget (restarts.spec.js); `npm run fuzz -- --restarts --runs N
// [--seed S] [--path P] [--shrink]` runs longer or replays one failure, and `--survey` runs N
// schedules of seeds S, S+1, ... and reports every failure, not only the first.
"use strict";
const fc = require("fast-check");
const { waitFor, sleep } = require("../support/simulator");
const { removeTempDirs } = require("../support/temp");
const { RestartWorld, DEVICES } = require("./restart-world");
const { scheduleArb, lastRestart } = require("./restart-steps");
const { judge } = require("./restart-checks");
const { TIMEOUT_MS } = require("./restart-flow");

/** Beyond an input's Timeout: its last read, its output's way to the collector. */
const END_SLACK_MS = 3000;
/** The restart flow's account Timeout: the account's default (restart-flow.js sets none). */
const ACCOUNT_TIMEOUT_MS = 10000;
/** After the last end: long enough for a second end of anything to arrive. */
const QUIET_MS = 1500;

/** The warning and error lines of Node-RED's output, but for the two of every start. */
function warnings(output) {
  return output
    .split("\n")
    .filter((l) => /\[(warn|error)\]/.test(l) && !/Projects disabled|credentials not found/.test(l))
    .slice(-40)
    .join("\n");
}

/** Runs one schedule on a fresh world; throws with every violation found. */
async function runSchedule(answerMs, cmds, last) {
  const world = new RestartWorld();
  try {
    await world.open(answerMs);
    const model = { restarts: 0 };
    await fc.asyncModelRun(() => ({ model, real: world }), cmds);
    const lastUsed = model.restarts === 0;
    if (lastUsed) await last.run(model, world);
    world.settle();
    const current = () => judge(world, world.serverRecord(), world.sink.got);
    // Every input ends within its Timeout: past the last one's, a missing end is missing. After a
    // restart, a fleet job read back from the store sends a device it did not find in its stream
    // once one account Timeout has passed since that Node-RED started (docs/reliability.md, "The
    // crash window"): its Timeout runs from then (seed -1549551126, path 1: three jobs queued at
    // a clean stop, the last one ended past a bound that left that wait out).
    const lastInput = Math.max(0, ...world.inputs.map((i) => i.at));
    const lastStart = world.lives.length > 1 ? world.lives[world.lives.length - 1].startedAt : 0;
    const from = Math.max(lastInput, lastStart + ACCOUNT_TIMEOUT_MS);
    await waitFor(() => current().waiting.length === 0, {
      timeoutMs: Math.max(1000, from + TIMEOUT_MS + END_SLACK_MS - Date.now()),
      intervalMs: 250,
    }).catch(() => {});
    await sleep(QUIET_MS);
    const { violations, waiting } = current();
    const found = [...waiting, ...violations];
    // Node-RED prints these before it dies of them, or goes on in a state no test can trust.
    for (const line of world.allOutput().split("\n"))
      if (/unhandled|uncaught/i.test(line)) found.push(`Node-RED printed: ${line.trim()}`);
    // Node-RED is up and takes and ends a new message.
    const before = world.sink.got["/out"].length;
    await world.command("cmd", DEVICES[0]);
    const tag = world.inputs[world.inputs.length - 1].tag;
    await waitFor(() => world.sink.got["/out"].slice(before).some((o) => o.tag === tag), {
      timeoutMs: 10000,
      intervalMs: 100,
    }).catch(() => found.push(`Node-RED did not end a new command after the schedule`));
    if (process.env.FUZZ_VERBOSE)
      console.log(
        `  answers in ${answerMs} ms, schedule ${cmds.join(", ")}${lastUsed ? `, then ${last}` : ""}: ${world.inputs.length} inputs, ${world.events.length} events, ` +
          `lives ${world.lives.map((l) => l.how ?? "up").join(" ")}, ${found.length} violation(s)`,
      );
    if (found.length > 0) {
      throw new Error(
        `${found.length} violation(s):\n- ${found.join("\n- ")}\n` +
          `Node-RED lives: ${JSON.stringify(world.lives)}\n` +
          `What they logged (warnings and errors):\n${warnings(world.allOutput())}`,
      );
    }
  } finally {
    await world.close();
  }
}

function property(maxSteps) {
  // Devices that answer late keep waits and rollouts pending when a stop or crash comes.
  return fc.asyncProperty(
    fc.integer({ min: 200, max: 3000 }),
    scheduleArb(maxSteps),
    lastRestart,
    runSchedule,
  );
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
      `npm run fuzz -- --restarts --runs ${runs} --seed=${usedSeed}` +
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
    // `--seed=-7` as well as `--seed 7`: run.js's parser takes only the first for a negative seed.
    const eq = argv[i].indexOf("=");
    const inline = argv[i].startsWith("--") && eq > 0;
    const [flag, value] = inline
      ? [argv[i].slice(0, eq), argv[i].slice(eq + 1)]
      : [argv[i], argv[i + 1]];
    if (flag === "--runs") args.runs = Number(value);
    else if (flag === "--seed") args.seed = Number(value);
    else if (flag === "--path") args.path = value;
    else if (flag === "--steps") args.maxSteps = Number(value);
    else if (flag === "--shrink" || flag === "--survey") {
      args[flag.slice(2)] = true;
      continue;
    } else if (flag === "--restarts") continue;
    else throw new Error(`unknown option ${flag}`);
    if (!inline) i++;
  }
  if (!(args.runs >= 1)) throw new Error("--runs must be a positive number");
  return args;
}

/** fast-check's report, and the violations of the schedule it names. */
function failureText(err) {
  const cause = err.cause instanceof Error ? `\n${err.cause.message}` : "";
  return `${err.message}${cause}`;
}

/**
 * Runs `runs` schedules, one per seed from `seed` on, and reports each failure without stopping
 * at the first: each replays alone with `--runs 1 --seed <its seed>`.
 */
async function survey({ runs, seed, maxSteps = 6, log = console.log }) {
  const base = seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  let failed = 0;
  for (let i = 0; i < runs; i++) {
    try {
      await checkRestarts({ runs: 1, seed: base + i, maxSteps, log });
    } catch (err) {
      failed++;
      log(`FAILED with seed ${base + i}:\n${failureText(err).slice(0, 4000)}\n`);
    }
  }
  log(`survey: ${failed} of ${runs} schedules failed (seeds ${base} to ${base + runs - 1})`);
  if (failed > 0) throw new Error(`${failed} of ${runs} schedules failed`);
}

/** The command line (also `npm run fuzz -- --restarts ...`): resolves with the exit code. */
function main(argv) {
  const args = parseArgs(argv);
  return (args.survey ? survey(args) : checkRestarts(args))
    .then(
      () => 0,
      (err) => {
        if (!args.survey) console.error(failureText(err));
        return 1;
      },
    )
    .finally(removeTempDirs);
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

module.exports = { checkRestarts, runSchedule, main };
