#!/usr/bin/env node
// Soak run: 10,000 commands through edge-send-command -> edge-await-command in an embedded
// Node-RED, against the simulator in a child process, with about 5% of the requests faulted
// (503, 429 with Retry-After, 502, connections dropped before and after processing, slow
// answers). Prints inputs, outputs per await output, errors by code, messages that ended twice or
// never, duplicate commands in the simulator's :command streams, and the heap before and after.
//
// Then a burst phase: 2,000 commands with awaits through an account with the default settings
// (20 requests a second, 8 at once, a queue of 1,000) and an await node with its defaults (1 s
// interval, 30 s timeout), fed as fast as the account's queue takes them, without faults. It
// reports how many commands were reported as timed out although the device completed them before
// the wait's deadline (read back from the simulator's inboxes): the target is 0.
//
//   npm run soak                      (builds, then: node --expose-gc scripts/soak.js)
//   SOAK_COMMANDS=2000 npm run soak   (a shorter run)
//   SOAK_BURST=0 npm run soak         (without the burst phase)
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const COMMANDS = Number(process.env.SOAK_COMMANDS ?? 10_000);
const DEVICES = 25;
const IN_FLIGHT = 300;
const FAULT_EVERY = 20; // one fault per 20 commands: 5%
const LIMIT_MS = Number(process.env.SOAK_LIMIT_MS ?? 10 * 60_000);
const WARM_UP = Math.min(1000, COMMANDS);
const ACCOUNT = { rate: "400", concurrency: "16", queue: "2000", timeout: "5000", retries: "3" };
const BURST = Number(process.env.SOAK_BURST ?? 2000);
/**
 * Messages between the burst's send node and its output: 600 wait at most 30 s at 20 a second,
 * within a command's default time budget (Timeout x (Retries + 1) = 40 s).
 */
const BURST_IN_FLIGHT = 600;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function heap() {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed;
}
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The simulator in its own process, so its memory is not counted in ours. */
function startSimulator() {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "dist", "simulator", "cli.js"), "--port", "0", "--command-delay", "5"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (\S+) \(company (\S+), token (\S+)\)/.exec(out);
      if (m) resolve({ child, url: m[1], company: m[2], token: m[3] });
    });
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}: ${out}`)));
  });
}

async function json(url, options = {}) {
  const res = await fetch(url, {
    ...options,
    headers: { "content-type": "application/json", ...options.headers },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${options.method ?? "GET"} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const FAULTS = [
  { method: "POST", path: "/event", status: 503 },
  { method: "POST", path: "/event", status: 429, retryAfter: "1" },
  { method: "POST", path: "/event", status: 502 },
  { method: "POST", path: "/event", drop: "before" },
  { method: "POST", path: "/event", drop: "after" },
  { method: "POST", path: "/event", delayMs: 300 },
  { method: "GET", path: "/event", status: 503 },
  { method: "GET", path: "/event", drop: "after" },
  { method: "GET", path: "/event", body: "html", status: 502 },
];

async function main() {
  const started = Date.now();
  const sim = await startSimulator();
  const control = (p, body, method = "POST") =>
    json(`${sim.url}/_sim${p}`, { method, body: body && JSON.stringify(body) });
  /** The events of a device's :command or :inbox stream, read through the API. */
  const streamEvents = async (device, which) => {
    const info = await json(`${sim.url}/_sim/devices/${device}`);
    const events = await json(
      `${sim.url}/v5.0/${sim.company}/event/${info.streams[which].id}?limit=100000`,
      { headers: { "x-auth-token": sim.token } },
    );
    return events.body;
  };
  const devices = Array.from({ length: DEVICES }, (_, i) => `soak-${i}`);
  for (const name of devices) await control("/devices", { name, resources: ["/soak/seq"] });

  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-soak-"));
  fs.mkdirSync(path.join(userDir, "node_modules", "@edgewire"), { recursive: true });
  fs.symlinkSync(ROOT, path.join(userDir, "node_modules", "@edgewire", "node-red-edge-device"));
  const RED = require(require.resolve("node-red", { paths: [ROOT] }));
  const server = http.createServer();
  RED.init(server, {
    userDir,
    flowFile: "flows.json",
    credentialSecret: "soak",
    httpAdminRoot: "/",
    uiHost: "127.0.0.1",
    logging: { console: { level: "off" } },
    editorTheme: { palette: { catalogues: [] }, tours: false },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { palette: { allowInstall: false } },
  });
  server.on("request", RED.httpAdmin);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  await RED.start();
  const red = `http://127.0.0.1:${server.address().port}`;

  /** An account, a send node the harness feeds and an await node after it, in a row at `y`. */
  const chain = (id, y, account, wait) => [
    {
      id: `acc${id}`,
      type: "edge-account",
      baseUrl: sim.url,
      company: sim.company,
      ...account,
      credentials: { token: sim.token },
    },
    {
      id: `send${id}`,
      z: "t1",
      type: "edge-send-command",
      account: `acc${id}`,
      target: "device",
      device: "{{deviceId}}",
      stream: "",
      elems: "",
      ttl: "",
      x: 200,
      y,
      wires: [[`await${id}`]],
    },
    {
      id: `await${id}`,
      z: "t1",
      type: "edge-await-command",
      account: `acc${id}`,
      inbox: "",
      ...wait,
      x: 400,
      y,
      wires: [["sink"], ["sink"], ["sink"]],
    },
  ];
  const flows = [
    { id: "t1", type: "tab", label: "soak" },
    ...chain("", 100, { name: "soak", ...ACCOUNT }, { timeout: "20000", interval: "200" }),
    { id: "sink", z: "t1", type: "junction", x: 600, y: 100, wires: [] },
    // The burst phase: an account and an await node left at their defaults.
    ...chain("B", 300, { name: "defaults" }, { timeout: "", interval: "" }),
    { id: "c1", z: "t1", type: "catch", scope: null, x: 400, y: 200, wires: [["sink"]] },
  ];
  await json(`${red}/flows`, {
    method: "POST",
    headers: { "node-red-deployment-type": "full" },
    body: JSON.stringify(flows),
  });

  const outputs = [0, 0, 0];
  const errors = {};
  // How many times each command's message ended, by its seq; allocated once so the harness
  // itself does not grow the heap it measures.
  const ends = new Uint8Array(COMMANDS);
  let endedCount = 0;
  const ended = (seq) => {
    if (ends[seq]++ === 0) endedCount++;
  };
  const burst = { sent: 0, outputs: [0, 0, 0], errors: {}, ended: 0, timedOut: [] };
  RED.hooks.add("onSend.soak", (events) => {
    for (const e of events) {
      if (typeof e.msg?.burst === "number") {
        if (e.source.id === "sendB") burst.sent++;
        if (e.source.id === "awaitB") {
          burst.outputs[e.source.port]++;
          burst.ended++;
          if (e.source.port === 2) {
            // When the wait started and when it would have ended, by the wall clock.
            const started = Date.now() - e.msg.elapsed;
            burst.timedOut.push({
              id: e.msg.command.id,
              device: e.msg.deviceId,
              deadline: started + (e.msg.timedOut?.timeout ?? 30_000),
            });
          }
        }
        continue;
      }
      if (e.source.id === "await" && typeof e.msg?.soak === "number") {
        outputs[e.source.port]++;
        ended(e.msg.soak);
      }
    }
  });
  RED.hooks.add("onComplete.soak", ({ msg, error, node }) => {
    if (error && typeof msg?.burst === "number" && (node.id === "sendB" || node.id === "awaitB")) {
      const code = error.code ?? "other";
      burst.errors[code] = (burst.errors[code] ?? 0) + 1;
      burst.ended++;
      return;
    }
    if (!error || typeof msg?.soak !== "number" || (node.id !== "send" && node.id !== "await"))
      return;
    const code = error.code ?? "other";
    errors[code] = (errors[code] ?? 0) + 1;
    ended(msg.soak);
  });

  await sleep(500);
  const heapStart = heap();
  const send = RED.nodes.getNode("send");
  let inputs = 0;
  let heapWarm;
  const deadline = started + LIMIT_MS;
  while (inputs < COMMANDS && Date.now() < deadline) {
    if (heapWarm === undefined && endedCount >= WARM_UP) heapWarm = heap();
    if (inputs - endedCount >= IN_FLIGHT) {
      await sleep(5);
      continue;
    }
    if (inputs % FAULT_EVERY === 0) {
      await control("/faults", FAULTS[(inputs / FAULT_EVERY) % FAULTS.length]);
    }
    const seq = inputs++;
    send.receive({
      _msgid: RED.util.generateId(),
      soak: seq,
      deviceId: devices[seq % DEVICES],
      payload: { "/soak/seq": seq },
    });
    if (seq % 50 === 0) await sleep(0);
  }
  while (endedCount < inputs && Date.now() < deadline) await sleep(50);
  const seconds = (Date.now() - started) / 1000;
  const heapMid = heap();
  await control("/faults", undefined, "DELETE");

  // Every command the simulator received, by its unique seq.
  const seen = new Map();
  for (const name of devices) {
    for (const e of await streamEvents(name, "command")) {
      const seq = e.elems["/soak/seq"];
      seen.set(seq, (seen.get(seq) ?? 0) + 1);
    }
  }
  const duplicates = [...seen.values()].filter((n) => n > 1).length;
  const twice = ends.filter((n) => n > 1).length;
  const lost = inputs - endedCount;
  const errorTotal = Object.values(errors).reduce((a, b) => a + b, 0);
  const outputTotal = outputs.reduce((a, b) => a + b, 0);

  // The burst phase, without faults.
  let burstRows = [];
  let burstOk = true;
  if (BURST > 0) {
    const burstStarted = Date.now();
    const sendB = RED.nodes.getNode("sendB");
    let fed = 0;
    const burstDeadline = Date.now() + LIMIT_MS;
    while (fed < BURST && Date.now() < burstDeadline) {
      if (fed - burst.sent - errorCount(burst.errors) >= BURST_IN_FLIGHT) {
        await sleep(5);
        continue;
      }
      const seq = fed++;
      sendB.receive({
        _msgid: RED.util.generateId(),
        burst: seq,
        deviceId: devices[seq % DEVICES],
        payload: { "/soak/seq": COMMANDS + seq },
      });
      if (seq % 50 === 0) await sleep(0);
    }
    while (burst.ended < fed && Date.now() < burstDeadline) await sleep(50);
    // A timed-out command that the device completed (or faulted) before the wait's deadline.
    const done = new Map();
    for (const name of devices) {
      for (const e of await streamEvents(name, "inbox")) {
        const status = e.elems?.cmd?.status;
        if (status === "COMMAND_COMPLETE" || status === "COMMAND_FAULT")
          done.set(e.elems.cmd.ref, e.creationDate);
      }
    }
    let beforeDeadline = 0;
    let later = 0;
    for (const t of burst.timedOut) {
      const at = done.get(t.id);
      if (at === undefined) continue;
      if (at <= t.deadline) beforeDeadline++;
      else later++;
    }
    const burstErrors = errorCount(burst.errors);
    burstRows = [
      ["burst: commands", `${fed} (${((Date.now() - burstStarted) / 1000).toFixed(1)} s)`],
      ["burst: complete / fault / timed out", burst.outputs.join(" / ")],
      [
        "burst: errors",
        `${burstErrors} (${Object.entries(burst.errors)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")})`,
      ],
      ["burst: completed, reported timed out", `${beforeDeadline} (target 0)`],
      ["burst: timed out, completed after the deadline", later],
    ];
    burstOk =
      fed === BURST &&
      burst.ended === fed &&
      beforeDeadline === 0 &&
      burst.outputs.reduce((a, b) => a + b, 0) + burstErrors === fed;
  }

  await RED.stop();
  await new Promise((resolve) => server.close(resolve));
  sim.child.kill("SIGTERM");
  await sleep(200);
  const heapEnd = heap();
  fs.rmSync(userDir, { recursive: true, force: true });

  const rows = [
    ["machine", `${os.cpus().length} CPUs, Node ${process.version}`],
    ["duration", `${seconds.toFixed(1)} s`],
    ["inputs", inputs],
    ["outputs: complete", outputs[0]],
    ["outputs: fault", outputs[1]],
    ["outputs: timeout", outputs[2]],
    [
      "errors",
      `${errorTotal} (${Object.entries(errors)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})`,
    ],
    ["outputs + errors", outputTotal + errorTotal],
    ["messages ended twice", twice],
    ["messages never ended", lost],
    ["commands at the simulator", seen.size],
    ["duplicate commands", duplicates],
    ["heap at start", mb(heapStart)],
    [`heap after ${WARM_UP} commands`, heapWarm === undefined ? "-" : mb(heapWarm)],
    ["heap after the run", mb(heapMid)],
    ["heap after stop", mb(heapEnd)],
    ...burstRows,
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  const ok =
    inputs === COMMANDS &&
    outputTotal + errorTotal === inputs &&
    twice === 0 &&
    lost === 0 &&
    duplicates === 0 &&
    burstOk;
  console.log(ok ? "soak: OK" : "soak: FAILED");
  process.exit(ok ? 0 : 1);
}

function errorCount(errors) {
  return Object.values(errors).reduce((a, b) => a + b, 0);
}

if (!global.gc)
  console.warn("soak: run with --expose-gc for heap figures after garbage collection");
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
