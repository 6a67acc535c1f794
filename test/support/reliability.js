// Helpers of the reliability specs (faults, bad input, security): flows of worker nodes on one
// account, the simulator's request log, injected faults, and a record of how each input message
// ended (one output, one error or done() alone).
"use strict";
const assert = require("node:assert/strict");
const { control } = require("./simulator");
const { load, account, helper, CORE } = require("./red");

const COMPLETE = require("@node-red/nodes/core/common/24-complete.js");

const DEFAULTS = {
  "edge-device-state": { device: "lcd-board", mode: "get", outputs: 1 },
  "edge-send-command": {
    target: "device",
    device: "lcd-board",
    stream: "",
    elems: "",
    ttl: "",
    outputs: 1,
  },
  "edge-list-events": {
    stream: "s5f3c1a2b0000000000000011",
    limit: "",
    start: "",
    mode: "page",
    maxEvents: "",
    outputs: 1,
  },
  "edge-await-command": { inbox: "", timeout: "", interval: 50, outputs: 3 },
};

/** A worker node of `type` on the account "acc", with the defaults deploy() gives it. */
function worker(type, props = {}) {
  const defaults = { ...DEFAULTS[type] };
  delete defaults.outputs;
  return { type, account: "acc", ...defaults, ...props };
}

/**
 * Deploys a tab with the account `acc` and the given workers, each wired to helper nodes
 * `<id>.out` (`<id>.out0..2` for edge-await-command), one Catch node for the tab feeding
 * `caught`, and every worker watched by `ends()`. A worker may name `wires` to feed another one.
 */
async function deploy(sim, workers, { account: accProps = {}, creds = {}, extra = [] } = {}) {
  const acc = account(sim, { z: "tab", ...accProps }, creds);
  const nodes = [{ id: "tab", type: "tab" }, acc.node];
  for (const w of workers) {
    const { outputs } = DEFAULTS[w.type];
    const outs = Array.from({ length: outputs }, (_, i) =>
      outputs === 1 ? `${w.id}.out` : `${w.id}.out${i}`,
    );
    nodes.push({ z: "tab", ...worker(w.type, w), wires: w.wires ?? outs.map((o) => [o]) });
    if (!w.wires) for (const o of outs) nodes.push({ id: o, z: "tab", type: "helper" });
  }
  nodes.push(
    { id: "c1", z: "tab", type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
    { id: "caught", z: "tab", type: "helper" },
    ...extra,
  );
  await load(nodes, acc.credentials, [CORE.catch, COMPLETE]);
  const get = (id) => helper.getNode(id);
  const result = { caught: get("caught"), acc: get("acc"), get, ends: {} };
  for (const w of workers) {
    result[w.id] = get(w.id);
    result.ends[w.id] = watchEnds(get(w.id));
  }
  return result;
}

/**
 * How each message given to `node` ended: Node-RED's done(err) calls the node's `_complete`, so
 * wrapping it on the instance sees every done() and done(err), with or without Catch nodes.
 */
function watchEnds(node) {
  const ends = [];
  const original = node._complete.bind(node);
  node._complete = (msg, err) => {
    ends.push({ id: msg?._msgid, error: err });
    return original(msg, err);
  };
  return ends;
}

/** Asserts every id in `ids` ended exactly once and nothing else ended. */
function assertEndedOnce(ends, ids) {
  const counts = new Map();
  for (const e of ends) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  for (const id of ids)
    assert.equal(counts.get(id), 1, `message ${id} ended ${counts.get(id) ?? 0} times`);
  assert.equal(ends.length, ids.length, `${ends.length} ends for ${ids.length} messages`);
}

/** Sends msgs to a node and returns their _msgid values. */
function feed(node, msgs) {
  return msgs.map((m) => {
    const msg = { _msgid: helper._RED.util.generateId(), ...m };
    node.receive(msg);
    return msg._msgid;
  });
}

async function fault(sim, spec) {
  const res = await control(sim, "POST", "/faults", spec);
  assert.equal(res.status, 201, res.text);
}

/** API requests the simulator received, oldest first, optionally only `METHOD /subpath...`. */
async function requests(sim, method, prefix = "") {
  const all = (await control(sim, "GET", "/requests?limit=10000")).json;
  return all.filter(
    (r) =>
      (!method || r.method === method) && r.pathname.startsWith(`/v5.0/${sim.company}${prefix}`),
  );
}

/** Milliseconds between consecutive requests. */
function gaps(records) {
  return records.slice(1).map((r, i) => Math.round(r.time - records[i].time));
}

/** The events of a device's :command stream (newest first, up to 1000). */
async function commandEvents(sim, device) {
  const info = (await control(sim, "GET", `/devices/${device}`)).json;
  const res = await fetch(
    `${sim.url}/v5.0/${sim.company}/event/${info.streams.command.id}?limit=1000`,
    { headers: { "x-auth-token": sim.token } },
  );
  return (await res.json()).body;
}

module.exports = {
  worker,
  deploy,
  watchEnds,
  assertEndedOnce,
  feed,
  fault,
  requests,
  gaps,
  commandEvents,
};
