// `npm run fuzz -- [--property await|fleet|watch|wiring|streams|stamps|gateway|disable|people|network|capacity|subflows|readers|redates] [--runs N] [--seed=S --path=P] [--shrink]`:
// the harness outside mocha, for longer runs and for replaying one failing schedule (the seed and
// path a failure printed), or --named <name>, a schedule written out in seeds.js. Without
// --property it runs the nine in turn. Exit code 1 on failure.
// `npm run fuzz -- --restarts [--runs N] [--seed S --path P] [--shrink] [--survey]` runs the
// restart property instead (stops and crashes of a real node-red process, restarts.js).
// `--sim` runs the schedules in the simulated world of issue 36 (test/sim/: virtual time, the
// network in process), where a seed and path replay the interleaving too, in a fraction of the
// time; `--world N` then varies the world's randomness (network delays) for the same schedules.
"use strict";
const { parseArgs } = require("node:util");
const { helper } = require("./flow");
const { startFuzzServer } = require("./server");
const { runProperty } = require("./properties");

const { values } = parseArgs({
  options: {
    property: { type: "string" },
    runs: { type: "string", default: "100" },
    seed: { type: "string" },
    path: { type: "string" },
    shrink: { type: "boolean", default: false },
    hunt: { type: "boolean", default: false },
    named: { type: "string" },
    // The restart property (restarts.js): real node-red processes, with a runner of its own.
    restarts: { type: "boolean", default: false },
    survey: { type: "boolean", default: false },
    sim: { type: "boolean", default: false },
    world: { type: "string", default: "0" },
    // With --sim: virtual ms to watch the server after each schedule's unload (a request that
    // still arrives would land in the next schedule's log on the wall clock).
    tail: { type: "string", default: "0" },
    // With --sim: writes the last schedule's transcript (test/sim/transcript.js) to this file.
    transcript: { type: "string" },
  },
});

/** Runs every schedule of the seed and prints each failing one with the command that replays it. */
async function hunt(name, server) {
  const fc = require("fast-check");
  const { property } = require("./properties");
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
  let failures = 0;
  const out = await fc.check(
    property(name, server, ({ path, drawn, steps, err }) => {
      failures++;
      console.log(`--- ${name} seed ${seed} path ${path}: ${JSON.stringify(drawn.behaviour)}`);
      console.log(`replay: npm run fuzz -- --property ${name} --seed=${seed} --path=${path}`);
      console.log(`settings: ${JSON.stringify(drawn.config)}`);
      console.log(`steps: ${steps}\n${err.message}`);
    }),
    { numRuns: Number(values.runs), seed },
  );
  console.log(`property "${name}": ${failures} of ${out.numRuns} schedules failed (seed ${seed})`);
}

/** Runs a schedule written out in seeds.js; true when it broke an invariant. */
async function runNamed(name, server) {
  const { named } = require("./seeds");
  const { runScheduleOn, stepsOf } = require("./schedule");
  const n = named[name];
  if (!n) throw new Error(`no schedule named ${name}: ${Object.keys(named).join(", ")}`);
  const cmds = stepsOf(n);
  console.log(`${name}: ${n.found}\nsteps: ${cmds.map(String).join(",")}`);
  try {
    await runScheduleOn(server, n, cmds);
    console.log("held");
    return false;
  } catch (err) {
    console.log(err.message);
    return true;
  }
}

async function main() {
  if (values.restarts) process.exit(await require("./restarts").main(process.argv.slice(2)));
  await new Promise((resolve) => helper.startServer(resolve));
  const server = values.sim
    ? require("../sim/server").startSimServer({
        seedOffset: Number(values.world),
        tailMs: Number(values.tail),
      })
    : await startFuzzServer({ tokenPerRun: true });
  let failed = false;
  try {
    if (values.named) failed = await runNamed(values.named, server);
    const all = values.named
      ? []
      : ["await", "fleet", "watch", "wiring", "streams", "stamps", "gateway", "disable", "people"];
    // The network property's faults exist only in the simulated network; the properties of
    // issue 35's last section were written for it (their seeds replay there).
    if (values.sim && !values.named)
      all.push("network", "capacity", "subflows", "readers", "redates");
    const names = values.property ? [values.property] : all;
    for (const name of names) {
      const started = Date.now();
      // Chosen here, on the wall clock: inside the world, fast-check's default seed (the date and
      // Math.random) would be the same every run.
      const seed =
        values.seed === undefined
          ? (Date.now() ^ (Math.random() * 2 ** 32)) | 0
          : Number(values.seed);
      if (values.hunt) {
        await hunt(name, server);
        continue;
      }
      const result = await runProperty(name, server, {
        numRuns: Number(values.runs),
        seed,
        path: values.path,
        endOnFailure: !values.shrink,
      });
      const took = ((Date.now() - started) / 1000).toFixed(1);
      if (result.failure) {
        failed = true;
        console.log(`${result.failure}\n(${took} s)\n`);
      } else
        console.log(
          `property "${name}": ${result.runs} runs held (seed ${result.seed}, ${took} s)`,
        );
    }
    if (values.transcript && server.simulate) {
      const { transcriptOf } = require("../sim/transcript");
      require("node:fs").writeFileSync(values.transcript, transcriptOf(server));
    }
  } finally {
    await server.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
