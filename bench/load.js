// Load: what this package adds to Node-RED's start, and how soon the first message gets through.
// 1. In a fresh process per run: requiring the five node modules, registering them in a started
//    runtime, then the first account's client. Every run must stay under 100 ms. undici's pool
//    is loaded in the next turn of the event loop (after Node-RED has started the flows): its
//    time is shown apart, and the first message below comes after it.
// 2. In a fresh process per run, a runtime with this package installed: deploy the examples (all
//    of them, against the simulator) and send the first message into example 02's send-command, to
//    its output; against the same for the hand-built flow (function + http request), the two
//    alternating. The first message pays for whatever was left to load or connect.
"use strict";
const { execFileSync, fork } = require("node:child_process");
const path = require("node:path");
const { startSimulator } = require("./lib/sim");
const { round, spread } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");
const { fmt, mmm, table } = require("./lib/format");

const ROOT = path.resolve(process.env.BENCH_PACKAGE_ROOT || path.join(__dirname, ".."));

/** In a fresh process: require + registerType of the five nodes in a started runtime. */
function moduleLoadOnce() {
  const script = `
    const path = require("node:path");
    const helper = require("node-red-node-test-helper");
    helper.init(require.resolve("node-red"));
    const pkg = require(path.join(${JSON.stringify(ROOT)}, "package.json"));
    helper.startServer(async () => {
      const files = Object.values(pkg["node-red"].nodes).map((f) => path.join(${JSON.stringify(ROOT)}, f));
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const modules = files.map((f) => require(f));
      const requireMs = performance.now() - t0;
      // helper.load registers the types as the runtime's loader does.
      const t1 = performance.now();
      await helper.load(modules, []);
      const registerMs = performance.now() - t1;
      // An account's first client; it has undici's pool loaded once the current turn of the
      // event loop is over (as Node-RED's flows have started): timed apart, as "preload".
      const { EdgeClient } = require(path.join(${JSON.stringify(ROOT)}, "dist/nodes/lib/api/client.js"));
      const t2 = performance.now();
      const client = new EdgeClient({ baseUrl: "http://127.0.0.1:9", company: "demo", token: "t" });
      const accountMs = performance.now() - t2;
      const cpu = process.cpuUsage(cpu0);
      const t3 = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      const preloadMs = performance.now() - t3;
      const loaded = Object.keys(require.cache).some((f) => f.includes("undici"));
      await client.close();
      await helper.unload();
      helper.stopServer(() => {
        const cpuMs = (cpu.user + cpu.system) / 1000;
        process.stdout.write(JSON.stringify({ requireMs, registerMs, accountMs, cpuMs, preloadMs, loaded }));
        process.exit(0);
      });
    });`;
  const out = execFileSync(process.execPath, ["-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const r = JSON.parse(out);
  if (!r.loaded) throw new Error("undici was not loaded after the account started");
  return { ...r, totalMs: r.requireMs + r.registerMs + r.accountMs };
}

function firstMessageOnce(sim, mode) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "lib", "first-message.js"), [mode], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: { ...process.env, BENCH_SIM: JSON.stringify(sim) },
    });
    let result;
    child.on("message", (m) => (result = m));
    child.on("exit", (code) =>
      code === 0 && result ? resolve(result) : reject(new Error(`first-message ${mode}: ${code}`)),
    );
  });
}

async function measure({ quick }) {
  const runs = quick ? 3 : 7;
  const loads = [];
  for (let k = 0; k < runs; k++) {
    loads.push(moduleLoadOnce());
    const l = loads.at(-1);
    progress(
      `load: require ${round(l.requireMs, 1)} + register ${round(l.registerMs, 1)} + first account ${round(l.accountMs, 1)} = ${round(l.totalMs, 1)} ms (${round(l.cpuMs, 1)} ms CPU), undici after it ${round(l.preloadMs, 1)} ms`,
    );
  }
  const sim = await startSimulator();
  const first = { examples: [], handBuilt: [] };
  try {
    const info = { url: sim.url, company: sim.company, user: sim.user, token: sim.token };
    const pairs = quick ? 3 : 5;
    for (let k = 0; k < pairs; k++) {
      const order = k % 2 ? ["handBuilt", "examples"] : ["examples", "handBuilt"];
      for (const mode of order) first[mode].push(await firstMessageOnce(info, mode));
      progress(
        `load: first message ${round(first.examples[k].firstMs, 1)} ms (examples) vs ${round(first.handBuilt[k].firstMs, 1)} ms (hand-built)`,
      );
    }
  } finally {
    await sim.stop();
  }
  const of = (list, key) =>
    spread(
      list.map((r) => r[key]),
      1,
    );
  return {
    runs,
    requireMs: of(loads, "requireMs"),
    registerMs: of(loads, "registerMs"),
    firstAccountMs: of(loads, "accountMs"),
    totalMs: of(loads, "totalMs"),
    cpuMs: of(loads, "cpuMs"),
    preloadMs: of(loads, "preloadMs"),
    firstMessage: Object.fromEntries(
      Object.entries(first).map(([mode, list]) => [
        mode,
        { deployMs: of(list, "deployMs"), firstMs: of(list, "firstMs"), runs: list.length },
      ]),
    ),
    firstMessageRatio: spread(
      first.examples.map((e, k) => e.firstMs / first.handBuilt[k].firstMs),
      2,
    ),
  };
}

function report(r) {
  const f = r.firstMessage;
  return [
    `Load: min / median / max over ${r.runs} fresh processes (first message: ${f.examples.runs} pairs, alternating)`,
    table([
      ["measure", "ms"],
      ["require the five nodes", mmm(r.requireMs, 1)],
      ["register them in the runtime", mmm(r.registerMs, 1)],
      ["first account's client", mmm(r.firstAccountMs, 1)],
      ["total (wall clock)", mmm(r.totalMs, 1)],
      ["total (CPU time of the process)", mmm(r.cpuMs, 1)],
      ["undici's pool, loaded in the next turn of the event loop", mmm(r.preloadMs, 1)],
      ["deploy the examples, to started", mmm(f.examples.deployMs, 1)],
      ["then the first message, to its output", mmm(f.examples.firstMs, 1)],
      ["deploy the hand-built flow, to started", mmm(f.handBuilt.deployMs, 1)],
      ["then its first message, to its output", mmm(f.handBuilt.firstMs, 1)],
      ["first message: examples / hand-built, per pair", `${mmm(r.firstMessageRatio, 2)}x`],
    ]),
  ];
}

function targets(r, add) {
  add(
    "Load: require + register + first account, every run",
    `${fmt(r.totalMs.max, 1)} ms (slowest)`,
    "< 100 ms",
    r.totalMs.max < 100,
  );
  add(
    "Load: first message after deploy, examples vs hand-built",
    `${fmt(r.firstMessage.examples.firstMs.median, 1)} vs ${fmt(r.firstMessage.handBuilt.firstMs.median, 1)} ms (medians)`,
    "not slower",
    r.firstMessageRatio.median <= 1,
  );
}

module.exports = { measure, report, targets };
if (require.main === module) runSection("load", measure);
