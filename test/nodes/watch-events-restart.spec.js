// `resume` across Node-RED restarts: a real Node-RED process with a `localfilesystem` context
// store, stopped and started again on the same user directory while events arrive at the
// simulator. What the watch node sends and shows is posted by core http request nodes to a small
// collector in this process, as a user's flow would forward it.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const http = require("node:http");
const { startSim, control, waitFor, sleep } = require("../support/simulator");
const { startNodeRed, makeUserDir } = require("../support/node-red-process");

const WAIT = 30000;

/** Records what the flow posts: events at /event, statuses at /status. */
function collector() {
  const got = { events: [], statuses: [] };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const value = JSON.parse(body);
      if (req.url === "/event") got.events.push(value);
      else got.statuses.push(value);
      res.end("ok");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ got, server, url: `http://127.0.0.1:${server.address().port}` }),
    ),
  );
}

function flows(sim, stream, sink) {
  const post = (id, path) => ({
    id,
    type: "http request",
    z: "t1",
    method: "POST",
    ret: "txt",
    paytoqs: "ignore",
    url: `${sink.url}${path}`,
    wires: [[]],
  });
  return [
    { id: "t1", type: "tab", label: "restart" },
    {
      id: "acc",
      type: "edge-account",
      name: "sim",
      baseUrl: sim.url,
      company: sim.company,
      credentials: { user: sim.user, token: sim.token },
    },
    {
      id: "w1",
      type: "edge-watch-events",
      z: "t1",
      account: "acc",
      stream: stream.path,
      // Read at each start only: what arrives afterwards can only come from a resumed position.
      interval: 86400000,
      start: "resume",
      last: 10,
      store: "file",
      wires: [["f1"]],
    },
    {
      id: "f1",
      type: "function",
      z: "t1",
      func: "msg.payload = { id: msg.eventId, seq: msg.payload.elems.seq, round: msg.payload.elems.round, gap: msg.gap === true };\nreturn msg;",
      outputs: 1,
      wires: [["p1"]],
    },
    post("p1", "/event"),
    { id: "s1", type: "status", z: "t1", scope: ["w1"], wires: [["f2"]] },
    {
      id: "f2",
      type: "function",
      z: "t1",
      func: "msg.payload = { text: msg.status.text, fill: msg.status.fill };\nreturn msg;",
      outputs: 1,
      wires: [["p2"]],
    },
    post("p2", "/status"),
  ];
}

async function deploy(red, nodes, type = "full") {
  const res = await fetch(`${red.url}/flows`, {
    method: "POST",
    headers: { "content-type": "application/json", "node-red-deployment-type": type },
    body: JSON.stringify(nodes),
  });
  assert.ok(res.ok, `deploy: HTTP ${res.status} ${await res.text()}`);
}

const SETTINGS = {
  contextStorage: {
    default: { module: "memory" },
    file: { module: "localfilesystem" },
  },
};

describe("edge-watch-events resume across Node-RED restarts", function () {
  this.timeout(180000);
  let sim;
  let sink;
  let red;
  let userDir;

  before(async function () {
    sim = await startSim();
    sink = await collector();
    userDir = makeUserDir();
  });

  after(async function () {
    await red?.stop();
    await sim?.close();
    sink?.server.closeAllConnections();
    await new Promise((resolve) => (sink ? sink.server.close(resolve) : resolve()));
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  const watching = (n) =>
    waitFor(() => sink.got.statuses.filter((s) => s.text === "watching").length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `status "watching" number ${n}`,
    });

  const eventsArrived = (n) =>
    waitFor(() => sink.got.events.length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `${n} events at the collector (got ${sink.got.events.length})`,
    });

  it("should deliver what arrived while Node-RED was down or the node redeployed, once, also when it stopped before the first event", async function () {
    const res = await control(sim, "POST", "/streams", { path: `/${sim.company}/restarts` });
    assert.equal(res.status, 201, res.text);
    const stream = res.json;
    const add = (round, count) =>
      control(sim, "POST", "/events", { streamId: stream.id, elems: { round }, count });
    await add("before the first start", 3);

    // Run 1: no saved position yet, so as `new`: the start is saved; stopped before any event.
    red = await startNodeRed({ userDir, settings: SETTINGS });
    await deploy(red, flows(sim, stream, sink));
    await watching(1);
    await red.stop();
    await add("while down 1", 4);

    // Run 2: the four that arrived while it was down; then two more, sent by the node that a
    // "modified nodes" deploy puts in its place, from the position the first one saved.
    red = await startNodeRed({ userDir, settings: SETTINGS });
    await eventsArrived(4);
    await add("before the redeploy", 2);
    const current = await (await fetch(`${red.url}/flows`)).json();
    await deploy(
      red,
      current.map((n) => (n.id === "w1" ? { ...n, name: "renamed" } : n)),
      "nodes",
    );
    await eventsArrived(6);
    await red.stop();
    await add("while down 2", 6);

    // Run 3: only the six.
    red = await startNodeRed({ userDir, settings: SETTINGS });
    await eventsArrived(12);
    await sleep(1500);
    await red.stop();
    red = undefined;

    const rounds = sink.got.events.map((e) => `${e.round}#${e.seq}`);
    assert.deepEqual(rounds, [
      ...[0, 1, 2, 3].map((i) => `while down 1#${i}`),
      "before the redeploy#0",
      "before the redeploy#1",
      ...[0, 1, 2, 3, 4, 5].map((i) => `while down 2#${i}`),
    ]);
    assert.equal(new Set(sink.got.events.map((e) => e.id)).size, 12, "an event came twice");
    assert.ok(sink.got.events.every((e) => !e.gap));
    // The position lives in the store's files, under the node's id.
    const files = fs.readdirSync(`${userDir}/context`, { recursive: true }).join(" ");
    assert.match(files, /w1/);
  });
});
