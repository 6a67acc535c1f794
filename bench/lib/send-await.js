// The send -> await flow the latency section runs its commands through, on the simulator
// (bench/latency.js) and on the fault harness's server (bench/lib/first-commands.js): one account
// with the default limits (20/s, 8 at once, Polls/s 100), a send whose message goes on to an await
// with the default 1 s interval, a way to run one command and learn when its wait has ended, and
// the figures a case reports. Kept in one place so both servers measure the same flow.
"use strict";
const { accountNode, sinkNode } = require("./node-red");
const { percentile } = require("./stats");

const DEFAULT_LIMITS = { timeout: "", retries: "", rate: "", concurrency: "", queue: "" };
/** What every measured command writes. */
const ELEMS = { "/lcd/txt1": "x" };

/**
 * Tab, account, send -> await; the await's complete, fault and timed-out outputs go to the sinks
 * named in `outputs` (a name may repeat). `more` adds nodes to the same tab.
 */
function sendAwaitFlow(server, runId, label, outputs, more = []) {
  return [
    { id: "tab", type: "tab", label },
    accountNode(server, `acc${runId}`, DEFAULT_LIMITS),
    {
      id: `send${runId}`,
      z: "tab",
      type: "edge-send-command",
      account: `acc${runId}`,
      target: "device",
      device: "{{device}}",
      elems: "",
      ttl: "",
      wires: [[`await${runId}`]],
    },
    {
      id: `await${runId}`,
      z: "tab",
      type: "edge-await-command",
      account: `acc${runId}`,
      inbox: "",
      timeout: "60000",
      interval: "",
      wires: outputs.map((name) => [name]),
    },
    ...[...new Set(outputs)].map((name) => sinkNode(name, "tab")),
    ...more,
  ];
}

/**
 * Deploys `nodes` (a sendAwaitFlow) with the account's reads at `pace` ("fast" or "fixed").
 * Returns {command, delays, other}: command(device) sends ELEMS and resolves when its wait has
 * ended on any output (the message keeps `tag`); delays are marker to output of the completed
 * ones (ms); other counts the rest by sink name.
 */
async function deploySendAwait(red, nodes, runId, pace, complete, others) {
  await red.deploy(nodes);
  red.getNode(`acc${runId}`).services.poller.pace = pace;
  const waiting = new Map();
  const delays = [];
  const other = Object.fromEntries(others.map((name) => [name, 0]));
  const end = (msg) => {
    waiting.get(msg.tag)?.();
    waiting.delete(msg.tag);
  };
  red.getNode(complete).on("input", (msg, _send, done) => {
    if (msg.tag !== undefined) delays.push(Date.now() - msg.payload.creationDate);
    end(msg);
    done();
  });
  for (const name of others) {
    red.getNode(name).on("input", (msg, _send, done) => {
      if (msg.tag !== undefined) other[name]++;
      end(msg);
      done();
    });
  }
  const send = red.getNode(`send${runId}`);
  let serial = 0;
  const command = (device) =>
    new Promise((resolve) => {
      const tag = ++serial;
      waiting.set(tag, resolve);
      send.receive({ payload: ELEMS, device, tag });
    });
  return { command, delays, other };
}

/** Marker to output p50 / p95 / max and inbox reads per command; `extra` is kept as it is. */
function summary(delays, reads, commands, extra = {}) {
  return {
    p50: percentile(delays, 50),
    p95: percentile(delays, 95),
    max: delays.length ? Math.max(...delays) : NaN,
    readsPerCommand: reads / commands,
    ...extra,
  };
}

module.exports = { ELEMS, sendAwaitFlow, deploySendAwait, summary };
