// The latency section's first-command cases (issue 29), on a server that is not the simulator: the
// fault harness's v5.0 server (test/fuzz/server.js, no faults drawn), whose devices run their
// commands one after another, each answered ANSWER_MS after it starts, so a burst on one device is
// answered at growing delays. Every run starts from a server reset (devices never used) and a
// freshly deployed account (default limits: 20/s, 8 at once, Polls/s 100; 1 s interval), and runs
// with reads that follow the commands ("fast") and with the interval alone ("fixed"), paired in
// alternating order by the caller. An account is either "cold" (it has never seen a result) or
// "learned" (one command on another device, not measured, taught it that device's answer time).
//   one at a time - 10 commands on one fresh device, the next after the previous result
//   burst         - 40 commands at once on 10 fresh devices (4 each)
//   fleet         - edge-fleet-command to 200 fresh devices at the account's pace (rate 0, all
//                   in flight): time from the message to the report against the sends' own
//                   floor (the last command's creation on the server plus its device's answer
//                   time, from the server's own log), and inbox reads per device
// Marker to output is the flow's message time less the COMPLETE marker's creationDate (same
// machine); reads are inbox GETs in the server's request log.
"use strict";
const path = require("node:path");
const { sinkNode, ROOT } = require("./node-red");
const { ELEMS, sendAwaitFlow, deploySendAwait, summary } = require("./send-await");

const { startFuzzServer } = require(path.join(ROOT, "test", "fuzz", "server"));

const ANSWER_MS = 240;
const FLEET_DEVICES = 200;

/** The send -> await flow, and an edge-fleet-command with sinks on its report and each outputs. */
function flow(server, runId) {
  return sendAwaitFlow(
    server,
    runId,
    "first commands",
    ["complete", "other", "other"],
    [
      {
        id: `fleet${runId}`,
        z: "tab",
        type: "edge-fleet-command",
        account: `acc${runId}`,
        devices: "{{{payload}}}",
        filter: "",
        elems: JSON.stringify(ELEMS),
        ttl: "",
        rate: 0,
        concurrency: FLEET_DEVICES,
        maxFailures: 0,
        timeout: "60000",
        interval: 1000,
        store: "",
        wires: [["report"], ["each"]],
      },
      sinkNode("report", "tab"),
      sinkNode("each", "tab"),
    ],
  );
}

async function deploy(server, red, runId, pace, deviceCount) {
  server.reset({ answerMs: ANSWER_MS, serial: true }, { deviceCount });
  const d = await deploySendAwait(red, flow(server, runId), runId, pace, "complete", ["other"]);
  return { ...d, notComplete: () => d.other.other };
}

/** Inbox GETs (by path or by the inbox's stream id) in the server's log since `t0`. */
function inboxReads(server, t0, deviceCount) {
  const ids = new Set();
  for (let i = 0; i < deviceCount; i++) ids.add(server.device(`dev${i}`).inbox.id);
  return server.log.requests.filter((r) => {
    if (r.method !== "GET" || r.t < t0 || r.other) return false;
    const byPath = new URLSearchParams(r.query).get("path");
    if (byPath) return byPath.endsWith("/:inbox");
    return ids.has(decodeURIComponent(r.path.split("/").pop()));
  }).length;
}

/** The shared figures plus the waits that did not end complete (no fault is drawn here). */
function firstSummary(delays, reads, commands, notComplete, extra = {}) {
  return summary(delays, reads, commands, { timedOut: notComplete, fault: 0, ...extra });
}

/** Teaches a "learned" account the last device's answer time; the measured devices come first. */
async function teach(d, account, deviceCount) {
  if (account === "learned") await d.command(`dev${deviceCount - 1}`);
  d.delays.length = 0;
}

async function oneAtATime(server, red, runId, pace, account) {
  const d = await deploy(server, red, runId, pace, 2);
  await teach(d, account, 2);
  const t0 = Date.now();
  for (let i = 0; i < 10; i++) await d.command("dev0");
  return firstSummary(d.delays, inboxReads(server, t0, 2), 10, d.notComplete());
}

async function burst(server, red, runId, pace, account) {
  const d = await deploy(server, red, runId, pace, 11);
  await teach(d, account, 11);
  const t0 = Date.now();
  const all = [];
  for (let k = 0; k < 4; k++) for (let i = 0; i < 10; i++) all.push(d.command(`dev${i}`));
  await Promise.all(all);
  return firstSummary(d.delays, inboxReads(server, t0, 11), all.length, d.notComplete());
}

async function fleet(server, red, runId, pace, account) {
  const d = await deploy(server, red, runId, pace, FLEET_DEVICES + 1);
  await teach(d, account, FLEET_DEVICES + 1);
  const devices = Array.from({ length: FLEET_DEVICES }, (_, i) => `dev${i}`);
  const delays = [];
  const each = (msg, _send, done) => {
    if (msg.payload?.creationDate) delays.push(Date.now() - msg.payload.creationDate);
    done();
  };
  red.getNode("each").on("input", each);
  const t0 = Date.now();
  const report = new Promise((resolve) => {
    red.getNode("report").on("input", (msg, _send, done) => {
      resolve(msg.payload);
      done();
    });
  });
  red.getNode(`fleet${runId}`).receive({ payload: devices.join("\n") });
  const result = await report;
  const elapsed = Date.now() - t0;
  const sent = server.log.executed.filter((e) => e.t >= t0 && !e.other);
  const lastSend = Math.max(...sent.map((e) => e.t));
  const floor = lastSend - t0 + ANSWER_MS;
  const reads = inboxReads(server, t0, FLEET_DEVICES + 1);
  return firstSummary(delays, reads, FLEET_DEVICES, FLEET_DEVICES - (result.complete ?? 0), {
    timeMs: elapsed,
    floorMs: floor,
    overFloor: elapsed / floor,
    sends: sent.length,
  });
}

const CASES = {
  first: { label: "one at a time, 10 commands on a fresh device", run: oneAtATime },
  freshBurst: { label: "40 at once on 10 fresh devices", run: burst },
  fleetPace: { label: `fleet of ${FLEET_DEVICES} at the default account's pace`, run: fleet },
};

module.exports = { startFuzzServer, CASES, ANSWER_MS, FLEET_DEVICES };
