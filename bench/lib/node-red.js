// A real Node-RED 4 runtime embedded in the benchmark process (RED.init + RED.start), loading
// this package the way an integrator's does: from <userDir>/node_modules. Flows are deployed
// through the runtime API, credentials inline as the editor sends them. Messages are driven
// straight into a node's receive() and collected with an extra input listener on an inactive
// debug node, so the driver adds the same small cost to every flow it measures.
"use strict";
const fs = require("node:fs");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");

// BENCH_PACKAGE_ROOT points the runtime at another build of this package (bench/compare.js).
const ROOT = path.resolve(process.env.BENCH_PACKAGE_ROOT || path.join(__dirname, "..", ".."));

function makeUserDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-bench-"));
  fs.mkdirSync(path.join(dir, "node_modules", "@edgewire"), { recursive: true });
  fs.symlinkSync(ROOT, path.join(dir, "node_modules", "@edgewire", "node-red-edge-device"), "dir");
  return dir;
}

async function startRuntime() {
  const RED = require("node-red");
  const userDir = makeUserDir();
  const server = http.createServer();
  RED.init(server, {
    userDir,
    flowFile: "flows.json",
    credentialSecret: "edgewire-bench",
    httpAdminRoot: "/admin",
    httpNodeRoot: false,
    // bench-bare-request, the commands bench's Node-RED floor (bare-node/bare-request.js).
    nodesDir: path.join(__dirname, "bare-node"),
    disableEditor: true,
    uiHost: "127.0.0.1",
    editorTheme: { palette: { catalogues: [] }, tours: false },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { palette: { allowInstall: false } },
    logging: { console: { level: "warn", metrics: false, audit: false } },
  });
  await RED.start();
  // Every type the package under test declares (an older build, for compare.js, has fewer).
  const types = Object.keys(require(path.join(ROOT, "package.json"))["node-red"].nodes);
  for (const type of types) {
    if (!RED.nodes.getType(type)) throw new Error(`Node-RED did not load ${type}`);
  }

  /** Full deploy; resolves once the flows have started. */
  async function deploy(nodes) {
    const credentials = {};
    const flows = nodes.map(({ credentials: creds, ...node }) => {
      if (creds) credentials[node.id] = creds;
      return node;
    });
    await RED.runtime.flows.setFlows({ flows: { flows, credentials }, deploymentType: "full" });
    // setFlows answers before the flows have started: wait (bounded) until every node exists.
    const ids = flows.filter((n) => n.z || n.type.startsWith("edge-account")).map((n) => n.id);
    for (let i = 0; i < 200; i++) {
      if (ids.every((id) => RED.nodes.getNode(id))) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("the deployed flows did not start within 5 s");
  }

  // The first deploy after start loses the credentials it carries ("Encrypted credentials not
  // found" on a fresh user directory): an empty one first, so that every measured deploy is alike.
  await deploy([]);

  async function stop() {
    await deploy([]);
    await RED.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  }

  return { RED, deploy, stop, getNode: (id) => RED.nodes.getNode(id) };
}

/** An edge-account config node for the simulator, credentials inline. */
function accountNode(sim, id, extra = {}) {
  return {
    id,
    type: "edge-account",
    name: "bench",
    baseUrl: sim.url,
    company: sim.company,
    timeout: "10000",
    retries: "0",
    rate: "0",
    concurrency: "16",
    queue: "100000",
    ...extra,
    credentials: { user: sim.user, token: sim.token },
  };
}

/** An inactive debug node used as the end of a flow; `onMessage(msg)` sees what reaches it. */
function sinkNode(id, z) {
  return {
    id,
    z,
    type: "debug",
    active: false,
    tosidebar: false,
    console: false,
    complete: "false",
    wires: [],
  };
}

/** A catch node for `scope` (node ids), wired to `sink`: errors counted where a user sees them. */
function catchNode(id, z, scope, sink) {
  return { id, z, type: "catch", scope, uncaught: false, wires: [[sink]] };
}

/**
 * Drives `total` messages into `entry` with at most `window` in flight (`window >= total` is a
 * burst: every message is handed over at once). A message ends when it reaches one of `sinks`
 * (an output) or one of `errorSinks` (through a catch node); both are counted, and a message that
 * ends twice or never fails the run. Resolves with {elapsedMs, cpuMs, latencies, outputs, errors}.
 */
function drive({ entry, sinks, errorSinks = [], total, window, make, timeoutMs = 120000 }) {
  return new Promise((resolve, reject) => {
    const startedAt = new Float64Array(total);
    const ended = new Uint8Array(total);
    const latencies = new Float64Array(total);
    let sent = 0;
    let finished = 0;
    let outputs = 0;
    let errors = 0;
    let twice = 0;
    let t0 = 0;
    let cpu0;
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`drive: ${finished}/${total} ended within ${timeoutMs} ms (${errors} errors)`),
      );
    }, timeoutMs);
    const next = () => {
      if (sent >= total) return;
      const i = sent++;
      const msg = make(i);
      msg._benchIndex = i;
      startedAt[i] = performance.now();
      entry.receive(msg);
    };
    const end = (msg, isError) => {
      const i = msg?._benchIndex;
      if (typeof i !== "number") return;
      if (ended[i]) {
        twice++;
        return;
      }
      ended[i] = 1;
      if (isError) errors++;
      else outputs++;
      latencies[finished++] = performance.now() - startedAt[i];
      if (finished === total) {
        const elapsedMs = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        cleanup();
        // Let a second ending of the last messages show before the run is judged.
        setImmediate(() => {
          if (twice) reject(new Error(`drive: ${twice} messages ended twice`));
          else
            resolve({
              elapsedMs,
              cpuMs: (cpu.user + cpu.system) / 1000,
              latencies: Array.from(latencies),
              outputs,
              errors,
            });
        });
        return;
      }
      next();
    };
    const listen = (nodes, isError) =>
      nodes.map((s) => {
        const fn = (msg, _send, done) => {
          end(msg, isError);
          done?.();
        };
        s.on("input", fn);
        return [s, fn];
      });
    const listeners = [...listen(sinks, false), ...listen(errorSinks, true)];
    function cleanup() {
      clearTimeout(timer);
      for (const [s, fn] of listeners) s.removeListener("input", fn);
    }
    t0 = performance.now();
    cpu0 = process.cpuUsage();
    for (let k = 0; k < window; k++) next();
  });
}

/**
 * What an integrator builds without this package: a function node that sets the URL, the headers
 * and the body (`elems` is the body's elems, as JavaScript), then an http request node that parses
 * the JSON answer and sends it to `sink`. The function node's id is "fn".
 */
function handBuiltNodes(sim, device, elems, sink) {
  const headers = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    accept: "application/json",
  };
  const streamPath = `/${sim.company}/devices/${device}/:command`;
  const func = [
    `msg.method = "POST";`,
    `msg.url = ${JSON.stringify(`${sim.url}/v5.0/${sim.company}/event`)};`,
    `msg.headers = ${JSON.stringify(headers)};`,
    `msg.payload = { path: ${JSON.stringify(streamPath)}, elems: ${elems} };`,
    `return msg;`,
  ].join("\n");
  return [
    {
      id: "fn",
      z: "tab",
      type: "function",
      func,
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: "",
      finalize: "",
      libs: [],
      wires: [["http"]],
    },
    {
      id: "http",
      z: "tab",
      type: "http request",
      method: "use",
      ret: "obj",
      paytoqs: "ignore",
      url: "",
      tls: "",
      persist: true,
      proxy: "",
      insecureHTTPParser: false,
      authType: "",
      senderr: false,
      headers: [],
      wires: [[sink]],
    },
  ];
}

module.exports = { startRuntime, accountNode, sinkNode, catchNode, drive, handBuiltNodes, ROOT };
