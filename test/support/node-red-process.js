// A real Node-RED in a child process, for what the test helper cannot show: adminAuth, the editor
// in a browser, the packed package loaded from a fresh user directory, a restart. Bound to
// 127.0.0.1 on a free port, telemetry and the online catalogue off. Also what the specs do to it
// over its admin API: deploy, log in, and the flow nodes they deploy.
"use strict";
const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { tempDir } = require("./temp");

const ROOT = path.resolve(__dirname, "..", "..");
const RED_JS = require.resolve("node-red/red.js", { paths: [ROOT] });

/** A fresh user directory with this package linked into its node_modules (unless told not to). */
function makeUserDir({ link = true } = {}) {
  const dir = tempDir("edgewire-nr-");
  if (link) {
    fs.mkdirSync(path.join(dir, "node_modules", "@edgewire"), { recursive: true });
    fs.symlinkSync(
      ROOT,
      path.join(dir, "node_modules", "@edgewire", "node-red-edge-device"),
      "dir",
    );
  }
  return dir;
}

function settingsSource(extra) {
  const base = {
    uiHost: "127.0.0.1",
    uiPort: 0,
    flowFile: "flows.json",
    credentialSecret: "edgewire-test-secret",
    editorTheme: { palette: { catalogues: [] }, tours: false },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { palette: { allowInstall: false } },
    logging: { console: { level: "info", metrics: false, audit: false } },
  };
  return `module.exports = ${JSON.stringify({ ...base, ...extra }, null, 2)};\n`;
}

/**
 * Starts Node-RED; resolves with {url, stop, output()} once it serves HTTP and has started its
 * flows. `settingsJs` may add JS (e.g. adminAuth with a bcrypt hash).
 */
async function startNodeRed({
  userDir = makeUserDir(),
  settings = {},
  flows,
  timeoutMs = 30000,
} = {}) {
  fs.writeFileSync(path.join(userDir, "settings.js"), settingsSource(settings));
  if (flows) fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flows, null, 2));
  const child = spawn(
    process.execPath,
    [RED_JS, "-u", userDir, "-s", path.join(userDir, "settings.js")],
    {
      cwd: userDir,
      env: { ...process.env, NODE_RED_ENABLE_TOURS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const url = await new Promise((resolve, reject) => {
    let found;
    const timer = setTimeout(() => {
      // Nobody else holds the child of a start that failed: it would outlive the run.
      child.kill("SIGKILL");
      reject(new Error(`Node-RED did not start:\n${output}`));
    }, timeoutMs);
    const check = () => {
      found = found ?? /Server now running at (http:\/\/[^/\s]+)\//.exec(output)?.[1];
      if (found && /Started flows|Flows file.*not found|\[info\] Started/.test(output)) {
        clearTimeout(timer);
        resolve(found.replace("0.0.0.0", "127.0.0.1"));
      }
    };
    child.stdout.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Node-RED exited with ${code}:\n${output}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGINT");
    });
  return { url, userDir, stop, output: () => output, child };
}

/** Settings for a context store "file" (Node-RED's localfilesystem) beside the default memory one. */
const FILE_CONTEXT = {
  contextStorage: {
    default: { module: "memory" },
    file: { module: "localfilesystem" },
  },
};

/** Settings for adminAuth with `users` ({username, password, permissions}), passwords hashed. */
function adminAuth(users) {
  const bcrypt = require("bcryptjs");
  return {
    adminAuth: {
      type: "credentials",
      users: users.map((u) => ({ ...u, password: bcrypt.hashSync(u.password, 8) })),
    },
  };
}

/** Logs in to the admin API as the editor does; resolves with the bearer token. */
async function login(red, username, password, scope = "*") {
  const res = await fetch(`${red.url}/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_id: "node-red-admin",
      grant_type: "password",
      scope,
      username,
      password,
    }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).access_token;
}

/** Deploys flows (credentials inline, as the editor sends them) through the admin API. */
async function deployFlows(url, flows, { headers = {}, type = "full" } = {}) {
  const res = await fetch(`${url}/flows`, {
    method: "POST",
    headers: { "content-type": "application/json", "node-red-deployment-type": type, ...headers },
    body: JSON.stringify(flows),
  });
  assert.ok(res.status === 200 || res.status === 204, `deploy: ${res.status} ${await res.text()}`);
}

/** An edge-account "acc" on a simulator, its credentials inline as the editor deploys them. */
function accountNode(sim, props = {}) {
  return {
    id: "acc",
    type: "edge-account",
    name: "sim",
    baseUrl: sim.url,
    company: sim.company,
    credentials: { user: sim.user, token: sim.token },
    ...props,
  };
}

/** A core http request node on tab `z` that posts each msg.payload to `url`. */
function postNode(id, z, url) {
  return {
    id,
    type: "http request",
    z,
    method: "POST",
    ret: "txt",
    paytoqs: "ignore",
    url,
    wires: [[]],
  };
}

/**
 * The flow of the specs that restart or redeploy around a pending wait, on tab t1: inject i1
 * (payload `{"/lcd/txt1": text}`, and msg.keep when given) into edge-send-command s1 (lcd-board)
 * into edge-await-command a1 (`awaitProps` over a 60 s timeout, 200 ms interval, default store);
 * each of a1's outputs n goes through a function that posts `{ output: n, restored, ...fields }`
 * (`fields`: more of that object literal, as JS) to `${sink.url}/out`, and each caught error's
 * message to `${sink.url}/error`.
 */
function commandFlow(sim, sink, { label, text, keep, fields, awaitProps = {} }) {
  const report = (id, output) => ({
    id,
    type: "function",
    z: "t1",
    func: `msg.payload = { output: ${output}, restored: msg.restored === true, ${fields} };\nreturn msg;`,
    outputs: 1,
    wires: [["p1"]],
  });
  const props = [{ p: "payload", v: JSON.stringify({ "/lcd/txt1": text }), vt: "json" }];
  if (keep !== undefined) props.push({ p: "keep", v: keep, vt: "str" });
  return [
    { id: "t1", type: "tab", label },
    accountNode(sim),
    { id: "i1", type: "inject", z: "t1", props, repeat: "", once: false, wires: [["s1"]] },
    {
      id: "s1",
      type: "edge-send-command",
      z: "t1",
      account: "acc",
      target: "device",
      device: "lcd-board",
      elems: "",
      ttl: "",
      wires: [["a1"]],
    },
    {
      id: "a1",
      type: "edge-await-command",
      z: "t1",
      account: "acc",
      inbox: "",
      timeout: "60000",
      interval: 200,
      store: "",
      wires: [["r0"], ["r1"], ["r2"]],
      ...awaitProps,
    },
    report("r0", 0),
    report("r1", 1),
    report("r2", 2),
    postNode("p1", "t1", `${sink.url}/out`),
    { id: "c1", type: "catch", z: "t1", scope: null, wires: [["f9"]] },
    {
      id: "f9",
      type: "function",
      z: "t1",
      func: "msg.payload = { message: msg.error.message };\nreturn msg;",
      outputs: 1,
      wires: [["p9"]],
    },
    postNode("p9", "t1", `${sink.url}/error`),
  ];
}

/**
 * The watch of the specs that restart or redeploy around a stream position, on tab t1: a
 * `resume` watch w1 of `stream` (its `watchProps` over store "file" and a day's interval, so that
 * only a start reads: what arrives afterwards can only come from a kept position), each event
 * posted to `${sink.url}/event` as `{ id, seq, round, gap }` of its elems, each status it shows to
 * `${sink.url}/status`.
 */
function watchFlow(sim, sink, stream, { label, watchProps = {} }) {
  return [
    { id: "t1", type: "tab", label },
    accountNode(sim),
    {
      id: "w1",
      type: "edge-watch-events",
      z: "t1",
      account: "acc",
      stream: stream.path,
      interval: 86400000,
      start: "resume",
      last: 10,
      store: "file",
      wires: [["f1"]],
      ...watchProps,
    },
    {
      id: "f1",
      type: "function",
      z: "t1",
      func: "msg.payload = { id: msg.eventId, seq: msg.payload.elems.seq, round: msg.payload.elems.round, gap: msg.gap === true };\nreturn msg;",
      outputs: 1,
      wires: [["p1"]],
    },
    postNode("p1", "t1", `${sink.url}/event`),
    { id: "s1", type: "status", z: "t1", scope: ["w1"], wires: [["f2"]] },
    {
      id: "f2",
      type: "function",
      z: "t1",
      func: "msg.payload = { text: msg.status.text, fill: msg.status.fill };\nreturn msg;",
      outputs: 1,
      wires: [["p2"]],
    },
    postNode("p2", "t1", `${sink.url}/status`),
  ];
}

/** Presses inject i1; a deploy answers before its flows have started, so a 404 is retried. */
async function pressInject(red, timeoutMs = 30000) {
  const { waitFor } = require("./simulator");
  await waitFor(
    async () => (await fetch(`${red.url}/inject/i1`, { method: "POST" })).status === 200,
    { timeoutMs, intervalMs: 100, what: `the inject node\n${red.output().slice(-2000)}` },
  );
}

/**
 * The hooks of the restart specs: before each test a simulator (env.sim), a collector of what the
 * flow posts to `paths` (env.sink, test/support/http-server.js) and a user directory (env.userDir)
 * that env.startRed() starts a Node-RED on, with a file context store (or the settings it is given:
 * `{}` is Node-RED's stock settings, without contextStorage), as often as a test asks;
 * env.stopRed() stops it. After each test all of it is stopped and removed.
 */
function withRestarts(...paths) {
  const { startSim } = require("./simulator");
  const { collector } = require("./http-server");
  const env = { sim: undefined, sink: undefined, userDir: undefined, red: undefined };
  env.startRed = async (settings = FILE_CONTEXT) => {
    env.red = await startNodeRed({ userDir: env.userDir, settings });
    return env.red;
  };
  env.stopRed = async () => {
    await env.red?.stop();
    env.red = undefined;
  };
  beforeEach(async function () {
    env.sim = await startSim();
    env.sink = await collector(...paths);
    env.userDir = makeUserDir();
  });
  afterEach(async function () {
    await env.stopRed();
    await env.sim?.close();
    await env.sink?.close();
    if (env.userDir) fs.rmSync(env.userDir, { recursive: true, force: true });
  });
  return env;
}

module.exports = {
  startNodeRed,
  makeUserDir,
  ROOT,
  FILE_CONTEXT,
  adminAuth,
  login,
  deployFlows,
  accountNode,
  postNode,
  commandFlow,
  watchFlow,
  pressInject,
  withRestarts,
};
