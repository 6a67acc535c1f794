// Load: the time this package adds to Node-RED's start. Two measures, medians of several runs:
// 1. end to end: a real Node-RED (red.js) in a fresh process, with and without the package in
//    its user directory, from spawn to "Started flows";
// 2. in process: the time to require the five node modules and register their types in a
//    started runtime, then to create the first account's client (which loads undici's pool),
//    each time in a fresh process.
"use strict";
const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { performance } = require("node:perf_hooks");
const { median, round } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");

const ROOT = path.resolve(__dirname, "..");
const RED_JS = require.resolve("node-red/red.js", { paths: [ROOT] });

function userDir(withPackage) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-load-"));
  if (withPackage) {
    fs.mkdirSync(path.join(dir, "node_modules", "@edgewire"), { recursive: true });
    fs.symlinkSync(ROOT, path.join(dir, "node_modules", "@edgewire", "node-red-edge-device"));
  }
  const settings = {
    uiHost: "127.0.0.1",
    uiPort: 0,
    flowFile: "flows.json",
    credentialSecret: "edgewire-bench",
    editorTheme: { palette: { catalogues: [] }, tours: false },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { palette: { allowInstall: false } },
    logging: { console: { level: "info", metrics: false, audit: false } },
  };
  fs.writeFileSync(path.join(dir, "settings.js"), `module.exports = ${JSON.stringify(settings)};`);
  fs.writeFileSync(path.join(dir, "flows.json"), "[]");
  return dir;
}

/** Milliseconds from spawn to "Started flows". */
function startOnce(withPackage) {
  const dir = userDir(withPackage);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [RED_JS, "-u", dir, "-s", path.join(dir, "settings.js")],
      {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NODE_RED_ENABLE_TOURS: "false" },
      },
    );
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`Node-RED did not start:\n${out}`));
    }, 60000);
    const onData = (d) => {
      out += d;
      if (!/Started flows/.test(out)) return;
      const ms = performance.now() - t0;
      clearTimeout(timer);
      child.once("exit", () => {
        fs.rmSync(dir, { recursive: true, force: true });
        const loaded = /edge-account/.test(out) || !/Failed to register|Error loading/.test(out);
        if (withPackage && !loaded) reject(new Error(out));
        else resolve(ms);
      });
      child.kill("SIGTERM");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (d) => (out += d));
  });
}

/** In a fresh process: require + registerType of the five nodes in a started runtime. */
function moduleLoadOnce() {
  const script = `
    const path = require("node:path");
    const { performance } = require("node:perf_hooks");
    const helper = require("node-red-node-test-helper");
    helper.init(require.resolve("node-red"));
    const pkg = require(path.join(${JSON.stringify(ROOT)}, "package.json"));
    helper.startServer(async () => {
      const files = Object.values(pkg["node-red"].nodes).map((f) => path.join(${JSON.stringify(ROOT)}, f));
      const t0 = performance.now();
      const modules = files.map((f) => require(f));
      const requireMs = performance.now() - t0;
      // helper.load registers the types as the runtime's loader does.
      const t1 = performance.now();
      await helper.load(modules, []);
      const registerMs = performance.now() - t1;
      // An account's first client loads the HTTP pool (undici is loaded then, not at require).
      const { EdgeClient } = require(path.join(${JSON.stringify(ROOT)}, "dist/nodes/lib/api/client.js"));
      const t2 = performance.now();
      const client = new EdgeClient({ baseUrl: "http://127.0.0.1:9", company: "demo", token: "t" });
      const accountMs = performance.now() - t2;
      await client.close();
      await helper.unload();
      helper.stopServer(() => {
        process.stdout.write(JSON.stringify({ requireMs, registerMs, accountMs }));
        process.exit(0);
      });
    });`;
  const out = execFileSync(process.execPath, ["-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return JSON.parse(out);
}

async function measure({ quick }) {
  const runs = quick ? 3 : 7;
  const without = [];
  const withPkg = [];
  // Alternate, so that a slow moment on the machine hits both.
  for (let k = 0; k < runs; k++) {
    without.push(await startOnce(false));
    withPkg.push(await startOnce(true));
    progress(`load: start ${round(without.at(-1))} ms without, ${round(withPkg.at(-1))} ms with`);
  }
  const loads = [];
  for (let k = 0; k < runs; k++) loads.push(moduleLoadOnce());
  const requireMs = median(loads.map((l) => l.requireMs));
  const registerMs = median(loads.map((l) => l.registerMs));
  const accountMs = median(loads.map((l) => l.accountMs));
  progress(
    `load: require ${round(requireMs, 1)} ms, register ${round(registerMs, 1)} ms, ` +
      `first account ${round(accountMs, 1)} ms`,
  );
  return {
    runs,
    startWithoutMs: round(median(without)),
    startWithMs: round(median(withPkg)),
    startAddedMs: round(median(withPkg) - median(without)),
    requireMs: round(requireMs, 1),
    registerMs: round(registerMs, 1),
    moduleLoadMs: round(requireMs + registerMs, 1),
    firstAccountMs: round(accountMs, 1),
    totalMs: round(requireMs + registerMs + accountMs, 1),
  };
}

module.exports = { measure };
if (require.main === module) runSection("load", measure);
