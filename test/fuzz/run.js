// `npm run fuzz -- [--property <name>] [--runs N] [--jobs J] [--seed=S --path=P] [--shrink]`: the
// fault harness outside mocha, in the simulated world of issue 36 (test/sim/: virtual time, the
// network in process), where a seed and path replay the interleaving too: for longer searches
// and for replaying one failing schedule (the seed and path a failure printed), or --named
// <name>, a schedule written out in seeds.js. Exit code 1 on failure.
//
// --runs N counts schedules in all: with --property, that property's; without it, N spread over
// the fourteen properties (default: 100 each). They run in J processes (--jobs, default: the
// CPUs), in chunks of at most 500 schedules, each chunk on a seed of its own that a failure
// prints with its replay command; --seed gives the first chunk's seed, the next ones count on.
// --world N varies the world's randomness (network delays) for the same schedules, --tail MS
// watches the server after each unload, --transcript FILE writes the last schedule's transcript.
//
// `--wall` runs the schedules on the wall clock and real sockets instead (the nine properties
// that predate the simulation), one process; `--restarts [--runs N] [--seed S --path P]
// [--shrink] [--survey]` the restart property (stops and crashes of a real node-red process,
// restarts.js). `--sim` is accepted and changes nothing (the simulation is the default).
"use strict";
const { fork } = require("node:child_process");
const os = require("node:os");
const { parseArgs } = require("node:util");

const { values } = parseArgs({
  options: {
    property: { type: "string" },
    runs: { type: "string" },
    jobs: { type: "string" },
    seed: { type: "string" },
    path: { type: "string" },
    shrink: { type: "boolean", default: false },
    hunt: { type: "boolean", default: false },
    named: { type: "string" },
    // The restart property (restarts.js): real node-red processes, with a runner of its own.
    restarts: { type: "boolean", default: false },
    survey: { type: "boolean", default: false },
    sim: { type: "boolean", default: false },
    wall: { type: "boolean", default: false },
    world: { type: "string", default: "0" },
    // Virtual ms to watch the server after each schedule's unload (a request that still arrives
    // would land in the next schedule's log on the wall clock).
    tail: { type: "string", default: "0" },
    transcript: { type: "string" },
    // Set by the parent on the processes it forks: run what it sends over IPC.
    worker: { type: "boolean", default: false },
  },
});

const { PROPERTIES: SIM, WALL_PROPERTIES: WALL } = require("./properties");
/** The most schedules one chunk runs: a failure's seed then names at most this many. */
const CHUNK = 500;

/** A seed drawn on the wall clock: inside the world, fast-check's default would repeat. */
const drawSeed = () => (Date.now() ^ (Math.random() * 2 ** 32)) | 0;

/** Starts the test helper's Node-RED and the server the schedules run against. */
async function startWorld() {
  const { helper } = require("./flow");
  await new Promise((resolve) => helper.startServer(resolve));
  const server = values.wall
    ? await require("./server").startFuzzServer({ tokenPerRun: true })
    : require("../sim/server").startSimServer({
        seedOffset: Number(values.world),
        tailMs: Number(values.tail),
      });
  return {
    server,
    async close() {
      await server.close();
      await new Promise((resolve) => helper.stopServer(resolve));
    },
  };
}

/** Runs every schedule of the seed and prints each failing one with the command that replays it. */
async function hunt(name, server, seed, runs) {
  const fc = require("fast-check");
  const { property } = require("./properties");
  const flag = values.wall ? "--wall " : "";
  let failures = 0;
  const out = await fc.check(
    property(name, server, ({ path, drawn, steps, err }) => {
      failures++;
      console.log(`--- ${name} seed ${seed} path ${path}: ${JSON.stringify(drawn.behaviour)}`);
      console.log(
        `replay: npm run fuzz -- ${flag}--property ${name} --seed=${seed} --path=${path}`,
      );
      console.log(`settings: ${JSON.stringify(drawn.config)}`);
      console.log(`steps: ${steps}\n${err.message}`);
    }),
    { numRuns: runs, seed },
  );
  console.log(`property "${name}": ${failures} of ${out.numRuns} schedules failed (seed ${seed})`);
  return failures > 0;
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

/** One chunk: `runs` schedules of `name` on `seed`; prints how it ended, true when it failed. */
async function runChunk(server, { name, runs, seed }) {
  const started = Date.now();
  if (values.hunt) return hunt(name, server, seed, runs);
  const { runProperty } = require("./properties");
  const result = await runProperty(name, server, {
    numRuns: runs,
    seed,
    path: values.path,
    endOnFailure: !values.shrink,
  });
  const took = ((Date.now() - started) / 1000).toFixed(1);
  if (result.failure) console.log(`${result.failure}\n(${took} s)\n`);
  else console.log(`property "${name}": ${result.runs} runs held (seed ${result.seed}, ${took} s)`);
  return Boolean(result.failure);
}

/** The chunks of this run: each property's share of --runs, cut at CHUNK, each with its seed. */
function chunksOf(names) {
  const replay = values.path !== undefined;
  const total = values.runs !== undefined ? Number(values.runs) : (replay ? 1 : 100) * names.length;
  if (!Number.isSafeInteger(total) || total < 1) throw new Error(`--runs: ${values.runs}`);
  const chunks = [];
  let seed = values.seed === undefined ? drawSeed() : Number(values.seed);
  names.forEach((name, i) => {
    // The first properties take the remainder: 100,000 over fourteen is 7,143 for six of them.
    let share = Math.floor(total / names.length) + (i < total % names.length ? 1 : 0);
    while (share > 0) {
      // A replay (--path) runs its one seed whole: the path indexes that seed's schedules.
      const runs = replay ? share : Math.min(share, CHUNK);
      chunks.push({ name, runs, seed });
      share -= runs;
      seed = (seed + 1) | 0;
    }
  });
  return chunks;
}

/** A forked process: runs each chunk the parent sends on one world, answers whether it failed. */
async function worker() {
  const world = await startWorld();
  process.on("message", async (msg) => {
    if (msg === "end") {
      await world.close();
      process.exit(0);
    }
    const failed = await runChunk(world.server, msg);
    process.send({ failed });
  });
  process.send({ ready: true });
}

/** Hands the chunks out to `jobs` forked processes, the next chunk to whichever ends first. */
async function inProcesses(chunks, jobs) {
  const queue = [...chunks];
  let failed = false;
  const one = () =>
    new Promise((resolve, reject) => {
      const child = fork(__filename, [...process.argv.slice(2), "--worker"]);
      const next = () => {
        const chunk = queue.shift();
        child.send(chunk ?? "end");
      };
      child.on("message", (msg) => {
        if (msg.failed) failed = true;
        next();
      });
      child.on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`worker exited ${code}`)),
      );
    });
  await Promise.all(Array.from({ length: Math.min(jobs, chunks.length) }, one));
  return failed;
}

async function main() {
  if (values.restarts) process.exit(await require("./restarts").main(process.argv.slice(2)));
  if (values.worker) return worker();
  const started = Date.now();
  const names = values.named ? [] : values.property ? [values.property] : values.wall ? WALL : SIM;
  const chunks = chunksOf(names);
  const jobs = values.jobs !== undefined ? Number(values.jobs) : os.availableParallelism();
  // A replay, a transcript and the wall clock (one real server, its port) run here, alone.
  const alone = values.named || values.path || values.transcript || values.wall || jobs <= 1;
  let failed = false;
  if (alone) {
    const world = await startWorld();
    try {
      if (values.named) failed = await runNamed(values.named, world.server);
      for (const chunk of chunks) if (await runChunk(world.server, chunk)) failed = true;
      if (values.transcript && world.server.simulate) {
        const { transcriptOf } = require("../sim/transcript");
        require("node:fs").writeFileSync(values.transcript, transcriptOf(world.server));
      }
    } finally {
      await world.close();
    }
  } else failed = await inProcesses(chunks, jobs);
  const runs = chunks.reduce((sum, c) => sum + c.runs, 0);
  const took = ((Date.now() - started) / 1000).toFixed(1);
  if (!values.named)
    console.log(
      `${runs} schedules in ${chunks.length} chunks: ${failed ? "FAILED" : "held"} (${took} s)`,
    );
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
