// The flow that the restart property deploys into a real Node-RED, with every node that keeps
// records on the `localfilesystem` store "file": commands (inject i-cmd -> edge-send-command ->
// edge-await-command), hand-built command references (inject i-ref -> edge-send-command ->
// a Function node that keeps only some fields of msg.command -> edge-await-command), fleet jobs
// (inject i-fleet -> edge-fleet-command) and a watch of the server's telemetry stream. Everything that leaves a
// node is posted to the test's collector by core http request nodes as it happens, so that the
// test's record of it survives a SIGKILL; each post names the Node-RED life it came from
// (global "life", set by the test in each start's settings), not the time it arrived.
"use strict";
const { accountNode, postNode } = require("../support/node-red-process");
/**
 * The await and fleet nodes' Timeout: every input ends by then (a timed-out output at the
 * latest), so the test can tell "never ends" from "not yet" by waiting it out.
 */
const TIMEOUT_MS = 15000;

/** JS of a Function node: `msg.payload = { ...fields, life, may }` then return msg. */
function reporter(fields) {
  return (
    "const e = msg.edgeError;\n" +
    `msg.payload = { ${fields}, life: global.get("life"), ` +
    "may: msg.mayHaveBeenSent === true || (!!e && e.mayHaveBeenSent === true) };\n" +
    "return msg;"
  );
}

/** A Function node `id` posting what `fields` makes of each message to `${sink.url}${to}`. */
function post(sink, id, fields, to) {
  return [
    { id, type: "function", z: "t1", func: reporter(fields), outputs: 1, wires: [[`p-${id}`]] },
    postNode(`p-${id}`, "t1", `${sink.url}${to}`),
  ];
}

/**
 * The Function node between i-ref's send and its await: msg.command as a user builds it by hand,
 * `{ id, device }` and a creationDate that is left out, an ISO text or null (msg.refShape).
 */
const HAND_BUILT =
  "const c = msg.command;\n" +
  "const ref = { id: c.id, device: c.device };\n" +
  'if (msg.refShape === "iso") ref.creationDate = new Date(c.creationDate).toISOString();\n' +
  'if (msg.refShape === "null") ref.creationDate = null;\n' +
  "msg.command = ref;\n" +
  "return msg;";

function awaitNode(id, wires) {
  return {
    id,
    type: "edge-await-command",
    z: "t1",
    account: "acc",
    inbox: "",
    timeout: String(TIMEOUT_MS),
    interval: 200,
    store: "file",
    wires,
  };
}

function sendNode(id, wires) {
  return {
    id,
    type: "edge-send-command",
    z: "t1",
    account: "acc",
    target: "device",
    device: "",
    elems: "",
    ttl: "",
    wires,
  };
}

const inject = (id, wires) => ({
  id,
  type: "inject",
  z: "t1",
  props: [],
  repeat: "",
  once: false,
  wires,
});

/** The flow; `server` is the API server (server.js), `sink` the collector. */
function restartFlow(server, sink) {
  const outputs = [["r0"], ["r1"], ["r2"]];
  return [
    { id: "t1", type: "tab", label: "restart property" },
    accountNode({ ...server, user: "fuzz-user" }),
    inject("i-cmd", [["s1"]]),
    sendNode("s1", [["a1"]]),
    awaitNode("a1", outputs),
    inject("i-ref", [["s2"]]),
    sendNode("s2", [["h2"]]),
    { id: "h2", type: "function", z: "t1", func: HAND_BUILT, outputs: 1, wires: [["a2"]] },
    awaitNode("a2", outputs),
    ...[0, 1, 2].flatMap((n) =>
      post(
        sink,
        `r${n}`,
        `tag: msg.tag, output: ${n}, restored: msg.restored === true, id: msg.command && msg.command.id`,
        "/out",
      ),
    ),
    inject("i-fleet", [["f1"]]),
    {
      id: "f1",
      type: "edge-fleet-command",
      z: "t1",
      account: "acc",
      devices: "",
      filter: "",
      elems: "",
      ttl: "",
      // Slow enough that a job is still rolling out when a crash comes.
      rate: 3,
      concurrency: 2,
      maxFailures: 0,
      timeout: String(TIMEOUT_MS),
      interval: 200,
      store: "file",
      wires: [["fr"], ["fd"]],
    },
    ...post(
      sink,
      "fr",
      "tag: msg.tag, restored: msg.restored === true, devices: msg.payload.devices",
      "/report",
    ),
    ...post(
      sink,
      "fd",
      "tag: msg.job, device: msg.device, outcome: msg.outcome, id: msg.command && msg.command.id",
      "/device",
    ),
    {
      id: "w1",
      type: "edge-watch-events",
      z: "t1",
      account: "acc",
      stream: server.telemetryPath,
      interval: 300,
      start: "resume",
      last: 10,
      store: "file",
      wires: [["fw"]],
    },
    ...post(sink, "fw", "id: String(msg.eventId), restored: msg.restored === true", "/event"),
    { id: "c1", type: "catch", z: "t1", scope: null, wires: [["fe"]] },
    ...post(
      sink,
      "fe",
      "tag: msg.tag || msg.job, source: msg.error.source && msg.error.source.id, " +
        "code: e && e.code, message: msg.error.message",
      "/error",
    ),
  ];
}

module.exports = { restartFlow, TIMEOUT_MS };
