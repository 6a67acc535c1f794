#!/usr/bin/env node
// `npm start`: the simulator with its demo data and a real Node-RED with this package linked in
// and the examples deployed against it, so that a fresh clone shows working flows after
// `npm install && npm start`. Node-RED keeps its user directory in .node-red-data/ (git-ignored);
// the examples are deployed once, on the first start, through the admin API with the demo
// account's credentials, so no token is ever written into a flow file of the repository.
"use strict";
const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const PKG = require(path.join(ROOT, "package.json"));
const HOST = "127.0.0.1";
const USAGE = `usage: npm start -- [--port <n>] [--sim-port <n>] [--command-delay <ms>] [--telemetry <ms>]
                      [--user-dir <dir>]

  --port <n>            Node-RED editor port (default 1880; or EDGE_PORT)
  --sim-port <n>        simulator port (default 8686; or EDGE_SIM_PORT)
  --command-delay <ms>  the simulated devices' delay before each inbox marker (default 300)
  --telemetry <ms>      how often sensor-hub reports into /demo/telemetry (default 3000; 0 = never)
  --user-dir <dir>      Node-RED user directory (default .node-red-data; or EDGE_USER_DIR)

Delete the user directory to deploy the examples again on the next start.
`;

class UsageError extends Error {}

function parseArgs(argv, env) {
  const options = {
    port: env.EDGE_PORT ?? "1880",
    simPort: env.EDGE_SIM_PORT ?? "8686",
    commandDelay: "300",
    // The simulator's DEMO_TELEMETRY_MS unless told, as `edgewire-sim --demo` runs it.
    telemetry: undefined,
    userDir: env.EDGE_USER_DIR ?? path.join(ROOT, ".node-red-data"),
    help: false,
  };
  const flags = {
    "--port": "port",
    "--sim-port": "simPort",
    "--command-delay": "commandDelay",
    "--telemetry": "telemetry",
    "--user-dir": "userDir",
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].startsWith("--") ? argv[i].split(/=(.*)/s) : [argv[i]];
    if (flag === "--help" || flag === "-h") {
      options.help = true;
      continue;
    }
    if (!flags[flag]) throw new UsageError(`unknown option: ${argv[i]}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    options[flags[flag]] = value;
  }
  const port = (name, value) => {
    if (!/^\d+$/.test(String(value)) || Number(value) < 1 || Number(value) > 65535)
      throw new UsageError(`${name} must be a port number from 1 to 65535, got "${value}"`);
    return Number(value);
  };
  options.port = port("--port (EDGE_PORT)", options.port);
  options.simPort = port("--sim-port (EDGE_SIM_PORT)", options.simPort);
  if (options.port === options.simPort)
    throw new UsageError(`Node-RED and the simulator cannot share port ${options.port}`);
  if (!/^\d+$/.test(options.commandDelay) || Number(options.commandDelay) > 600000)
    throw new UsageError(`--command-delay must be a whole number of ms up to 600000`);
  options.commandDelay = Number(options.commandDelay);
  if (options.telemetry !== undefined) {
    if (!/^\d+$/.test(options.telemetry) || Number(options.telemetry) > 3600000)
      throw new UsageError(`--telemetry must be a whole number of ms up to 3600000`);
    options.telemetry = Number(options.telemetry);
  }
  options.userDir = path.resolve(options.userDir);
  return options;
}

/** Newest modification time of the files under `dir` (0 when there is none). */
function newest(dir) {
  if (!fs.existsSync(dir)) return 0;
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(dir).map((f) => newest(path.join(dir, f))));
}

/** Builds when dist/ lacks an entry point or is older than any source it is made from. */
function buildIfNeeded() {
  const outputs = [
    ...Object.values(PKG["node-red"].nodes),
    "dist/simulator/index.js",
    "dist/simulator/cli.js",
  ].map((f) => path.join(ROOT, f));
  const sources = ["nodes", "simulator", "locales", "icons", "tsconfig.json", "scripts/build.js"];
  const built = outputs.every((f) => fs.existsSync(f))
    ? Math.min(...outputs.map((f) => fs.statSync(f).mtimeMs))
    : 0;
  const changed = Math.max(...sources.map((s) => newest(path.join(ROOT, s))));
  if (built >= changed) return;
  console.log(built ? "Sources changed since the last build: building" : "Building dist/");
  execFileSync(process.execPath, [path.join(ROOT, "scripts", "build.js")], { stdio: "inherit" });
}

/** Resolves with null when the port is free on HOST, or with the reason it is not. */
function portProblem(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (err) => resolve(err.code || err.message));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

function settingsSource(port) {
  const settings = {
    uiHost: HOST,
    uiPort: port,
    flowFile: "flows.json",
    // A fixed secret for this demo directory only: it encrypts the demo token in flows_cred.json.
    credentialSecret: "edgewire-demo-not-a-secret",
    editorTheme: { palette: { catalogues: [] }, tours: false },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    logging: { console: { level: "info", metrics: false, audit: false } },
    // A persistent default store, so that the demo's pending waits and watch positions also
    // survive a restart of npm start (a redeploy keeps them on any settings), and the await and
    // watch nodes have no "not persistent" warning to print on a newcomer's first start.
    contextStorage: { default: { module: "localfilesystem" } },
  };
  return (
    "// Written by scripts/start.js on every start: edit that script, not this file.\n" +
    `module.exports = ${JSON.stringify(settings, null, 2)};\n`
  );
}

/** The user directory with settings.js and this package linked into its node_modules. */
function prepareUserDir(userDir, port) {
  const link = path.join(userDir, "node_modules", ...PKG.name.split("/"));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  let current;
  try {
    current = fs.readlinkSync(link);
  } catch {
    current = undefined;
  }
  if (current !== ROOT) {
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(ROOT, link, "dir");
  }
  const settings = path.join(userDir, "settings.js");
  fs.writeFileSync(settings, settingsSource(port));
  return settings;
}

/** Every example as one flow: one tab each, their shared account once, pointing at `sim`. */
function exampleFlows(sim) {
  const dir = path.join(ROOT, "examples");
  const seen = new Set();
  const nodes = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    for (const node of JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"))) {
      if (seen.has(node.id)) continue;
      seen.add(node.id);
      if (node.type === "edge-account")
        nodes.push({
          ...node,
          baseUrl: sim.url,
          company: sim.company,
          credentials: { user: sim.user, token: sim.token },
        });
      else nodes.push(node);
    }
  }
  return nodes;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForEditor(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Node-RED exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}settings`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`Node-RED did not answer on ${url} within ${timeoutMs / 1000} s`);
}

/**
 * What Node-RED logs when it has started its flows, and when it will not start them, in every
 * language its runtime speaks: it logs in the language of the machine, and the editor's HTTP port
 * answers before the flows run, so the log is the one place that tells.
 */
function flowLogTexts() {
  const texts = { started: ["Started flows"], missingTypes: [], error: [] };
  let locales;
  try {
    const redDir = path.dirname(require.resolve("node-red/package.json", { paths: [ROOT] }));
    const runtime = path.dirname(
      require.resolve("@node-red/runtime/package.json", { paths: [redDir] }),
    );
    locales = path.join(runtime, "locales");
    for (const lang of fs.readdirSync(locales)) {
      const flows = JSON.parse(fs.readFileSync(path.join(locales, lang, "runtime.json"), "utf8"))
        .nodes?.flows;
      if (flows?.["started-flows"]) texts.started.push(flows["started-flows"]);
      if (flows?.["missing-types"]) texts.missingTypes.push(flows["missing-types"]);
      if (flows?.error) texts.error.push(flows.error.split("__")[0].trim());
    }
  } catch {
    // An unusual layout: English is what Node-RED logs by default.
    texts.missingTypes.push("Waiting for missing types to be registered:");
    texts.error.push("Error loading flows:");
  }
  return texts;
}

/**
 * Resolves once Node-RED's log says whether it started its flows: `{started: true}`, or
 * `{started: false, why}` when it waits for node types that are not installed, failed to load
 * them, or said nothing within `timeoutMs`. Lines are passed on to `forward` as they come.
 */
function watchFlows(stream, forward, timeoutMs) {
  const texts = flowLogTexts();
  const says = (line, list) => list.some((t) => t && line.includes(`] ${t}`));
  return new Promise((resolve) => {
    let rest = "";
    const finish = (result) => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.on("data", forward);
      if (rest) forward(rest);
      resolve(result);
    };
    const timer = setTimeout(
      () =>
        finish({ started: false, why: `no "Started flows" in its log in ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    const onData = (chunk) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop();
      let result;
      for (const line of lines) {
        forward(`${line}\n`);
        if (result) continue;
        if (says(line, texts.started)) result = { started: true };
        else if (says(line, texts.missingTypes))
          result = { started: false, why: "node types it needs are not installed (see above)" };
        else if (says(line, texts.error)) result = { started: false, why: line.split("] ")[1] };
      }
      if (result) finish(result);
    };
    stream.on("data", onData);
  });
}

async function deploy(url, flows) {
  const res = await fetch(`${url}flows`, {
    method: "POST",
    headers: { "content-type": "application/json", "node-red-deployment-type": "full" },
    body: JSON.stringify(flows),
    signal: AbortSignal.timeout(30000),
  });
  if (!res.ok)
    throw new Error(`deploying the examples failed: HTTP ${res.status} ${await res.text()}`);
}

/** The accounts of an existing flow file that point elsewhere than the simulator now runs. */
function staleAccounts(flowFile, sim) {
  try {
    return JSON.parse(fs.readFileSync(flowFile, "utf8"))
      .filter(
        (n) => n.type === "edge-account" && /^http:\/\/(127\.0\.0\.1|localhost):/.test(n.baseUrl),
      )
      .filter((n) => n.baseUrl.replace(/\/+$/, "") !== sim.url);
  } catch {
    return [];
  }
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`npm start: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }

  for (const [what, port, flag] of [
    ["Node-RED", options.port, "--port <n> (or EDGE_PORT)"],
    ["the simulator", options.simPort, "--sim-port <n> (or EDGE_SIM_PORT)"],
  ]) {
    const problem = await portProblem(port);
    if (problem) {
      const why = problem === "EADDRINUSE" ? "is already in use" : `cannot be used (${problem})`;
      process.stderr.write(
        `npm start: port ${port} on ${HOST} ${why}, so ${what} cannot start there.\n` +
          `Stop whatever listens on it, or choose another port: npm start -- ${flag}\n`,
      );
      return 1;
    }
  }

  buildIfNeeded();
  const { start, DEMO_FLEET, DEMO_TELEMETRY_MS } = require(
    path.join(ROOT, "dist", "simulator", "index.js"),
  );
  // The fleet example (07) sends to twelve more devices, one faulty and one offline.
  const sim = await start({
    port: options.simPort,
    host: HOST,
    commandDelayMs: options.commandDelay,
    telemetryMs: options.telemetry ?? DEMO_TELEMETRY_MS,
    ...DEMO_FLEET,
  });

  const flowFile = path.join(options.userDir, "flows.json");
  const firstStart = !fs.existsSync(flowFile);
  const settings = prepareUserDir(options.userDir, options.port);
  const url = `http://${HOST}:${options.port}/`;
  const child = spawn(
    process.execPath,
    [require.resolve("node-red/red.js", { paths: [ROOT] }), "-u", options.userDir, "-s", settings],
    { cwd: options.userDir, stdio: ["ignore", "pipe", "inherit"] },
  );
  child.stdout.setEncoding("utf8");
  const flowsState = watchFlows(child.stdout, (text) => process.stdout.write(text), 60000);

  let stopping = false;
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 0)));
  const stop = async (why) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${why}: stopping Node-RED and the simulator`);
    if (child.exitCode === null) {
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15000);
      await exited;
      clearTimeout(timer);
    }
    await sim.close();
  };
  const onSignal = (signal) => {
    void stop(signal).then(() => process.exit(0));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  void exited.then(async (code) => {
    if (stopping) return;
    await stop(`Node-RED exited with code ${code}`);
    process.exit(code || 1);
  });

  let flows;
  try {
    await waitForEditor(url, child, 60000);
    // The editor answers before the flows run: "deployed" is said only once Node-RED has logged
    // that it started them. So does a deploy: its answer comes before the new flows have started
    // (under load a click right after the banner found no inject node), so its own "Started
    // flows" is waited for too, watched from before the request.
    flows = await flowsState;
    if (firstStart) {
      const redeployed = watchFlows(child.stdout, () => undefined, 60000);
      await deploy(url, exampleFlows(sim));
      flows = await redeployed;
    }
  } catch (err) {
    process.stderr.write(`npm start: ${err.message}\n`);
    await stop("error");
    return 1;
  }
  const stale = firstStart ? [] : staleAccounts(flowFile, sim);
  const lines = [
    "",
    "edgewire demo is running",
    `  Node-RED editor   ${url}`,
    `  simulator API     ${sim.url}/v5.0/${sim.company}  (user ${sim.user}, token ${sim.token})`,
    `  simulator control ${sim.url}/_sim/devices`,
    `  user directory    ${path.relative(process.cwd(), options.userDir) || "."}`,
    !flows.started
      ? `  Node-RED has not started the flows: ${flows.why}. Fix them in the editor and deploy.`
      : firstStart
        ? "  The examples are deployed, one tab each: click an inject button and open the debug sidebar."
        : "  Your flows from the last run are deployed (delete the user directory to get the examples back).",
    ...stale.map(
      (n) =>
        `  Note: the account "${n.name || n.id}" points at ${n.baseUrl}, the simulator runs at ${sim.url}.`,
    ),
    "  Press Ctrl-C to stop both.",
    "",
  ];
  console.log(lines.join("\n"));
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (err) => {
    process.stderr.write(`npm start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
