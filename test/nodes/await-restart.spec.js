// edge-await-command across a full redeploy and a Node-RED restart: a real Node-RED process with a
// `localfilesystem` context store, stopped and started again on the same user directory between a
// command and its markers. What leaves the await node is posted by core http request nodes to a
// small collector in this process, as a user's flow would forward it.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const http = require("node:http");
const { startSim, control, waitFor, sleep } = require("../support/simulator");
const { startNodeRed, makeUserDir } = require("../support/node-red-process");

const WAIT = 30000;
const INBOX_GETS = "GET /v5.0/demo/event";

/** Records what the flow posts to /out (the await node's outputs) and /error (Catch). */
function collector() {
  const got = { out: [], error: [] };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      (req.url === "/out" ? got.out : got.error).push(JSON.parse(body));
      res.end("ok");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ got, server, url: `http://127.0.0.1:${server.address().port}` }),
    ),
  );
}

function flows(sim, sink, { store, timeout }) {
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
  const report = (id, output) => ({
    id,
    type: "function",
    z: "t1",
    func:
      `msg.payload = { output: ${output}, restored: msg.restored === true, id: msg.command.id, ` +
      `keep: msg.keep, markers: msg.markers.length, timedOut: msg.timedOut || null };\nreturn msg;`,
    outputs: 1,
    wires: [["p1"]],
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
      id: "i1",
      type: "inject",
      z: "t1",
      props: [
        { p: "payload", v: '{"/lcd/txt1":"across a restart"}', vt: "json" },
        { p: "keep", v: "kept", vt: "str" },
      ],
      repeat: "",
      once: false,
      wires: [["s1"]],
    },
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
      timeout: String(timeout),
      interval: 200,
      store,
      wires: [["r0"], ["r1"], ["r2"]],
    },
    report("r0", 0),
    report("r1", 1),
    report("r2", 2),
    post("p1", "/out"),
    { id: "c1", type: "catch", z: "t1", scope: null, wires: [["f9"]] },
    {
      id: "f9",
      type: "function",
      z: "t1",
      func: "msg.payload = { message: msg.error.message };\nreturn msg;",
      outputs: 1,
      wires: [["p9"]],
    },
    post("p9", "/error"),
  ];
}

async function deploy(red, nodes) {
  const res = await fetch(`${red.url}/flows`, {
    method: "POST",
    headers: { "content-type": "application/json", "node-red-deployment-type": "full" },
    body: JSON.stringify(nodes),
  });
  assert.ok(res.ok, `deploy: HTTP ${res.status} ${await res.text()}`);
}

/** Presses the inject button; a deploy answers before its flows have started, so retry a 404. */
async function inject(red) {
  await waitFor(
    async () => (await fetch(`${red.url}/inject/i1`, { method: "POST" })).status === 200,
    { timeoutMs: WAIT, intervalMs: 100, what: `the inject node\n${red.output().slice(-2000)}` },
  );
}

const SETTINGS = {
  contextStorage: {
    default: { module: "memory" },
    file: { module: "localfilesystem" },
  },
};

describe("edge-await-command across a redeploy and a restart", function () {
  this.timeout(180000);
  let sim;
  let sink;
  let red;
  let userDir;

  beforeEach(async function () {
    sim = await startSim();
    sink = await collector();
    userDir = makeUserDir();
    await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
  });

  afterEach(async function () {
    await red?.stop();
    red = undefined;
    await sim?.close();
    sink?.server.closeAllConnections();
    await new Promise((resolve) => (sink ? sink.server.close(resolve) : resolve()));
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  const commandsSent = async () =>
    (await control(sim, "GET", "/devices/lcd-board")).json.streams.command.count;

  /** Sends the command and waits until its wait has read the inbox at least once. */
  async function sendAndWait() {
    await inject(red);
    await waitFor(async () => (await commandsSent()) === 1, {
      timeoutMs: WAIT,
      what: "the command",
    });
    const polls = sim.stats().byRoute[INBOX_GETS] ?? 0;
    await waitFor(() => (sim.stats().byRoute[INBOX_GETS] ?? 0) > polls, {
      timeoutMs: WAIT,
      what: "an inbox poll",
    });
  }

  const outputs = (n) =>
    waitFor(() => sink.got.out.length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `${n} outputs (got ${JSON.stringify(sink.got.out)}, errors ${JSON.stringify(sink.got.error)})`,
    });

  it("delivers the result once, with msg.restored, after Node-RED is restarted between the command and its markers", async function () {
    red = await startNodeRed({ userDir, settings: SETTINGS });
    await deploy(red, flows(sim, sink, { store: "file", timeout: 60000 }));
    await sendAndWait();
    await red.stop();
    red = undefined;
    assert.deepEqual(sink.got.out, []);
    red = await startNodeRed({ userDir, settings: SETTINGS });
    // The device runs the command only now, while the restarted Node-RED waits.
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(1);
    const [out] = sink.got.out;
    assert.equal(out.output, 0);
    assert.equal(out.restored, true);
    assert.equal(out.keep, "kept");
    assert.equal(out.markers, 2);
    await sleep(1500);
    assert.equal(sink.got.out.length, 1, JSON.stringify(sink.got.out));
    assert.deepEqual(sink.got.error, []);
    assert.equal(await commandsSent(), 1, "the command was sent again");
  });

  it("gives one timed out, with msg.restored, for a deadline that passed while Node-RED was down", async function () {
    red = await startNodeRed({ userDir, settings: SETTINGS });
    await deploy(red, flows(sim, sink, { store: "file", timeout: 3000 }));
    await sendAndWait();
    await red.stop();
    red = undefined;
    assert.deepEqual(sink.got.out, []);
    await sleep(3500);
    red = await startNodeRed({ userDir, settings: SETTINGS });
    await outputs(1);
    const [out] = sink.got.out;
    assert.equal(out.output, 2);
    assert.equal(out.restored, true);
    assert.equal(out.timedOut.timeout, 3000);
    await sleep(1500);
    assert.equal(sink.got.out.length, 1, JSON.stringify(sink.got.out));
    assert.equal(await commandsSent(), 1);
  });

  it("resumes the wait after a full redeploy with Node-RED's default store", async function () {
    red = await startNodeRed({ userDir, settings: SETTINGS });
    const nodes = flows(sim, sink, { store: "", timeout: 60000 });
    await deploy(red, nodes);
    await sendAndWait();
    await deploy(red, nodes);
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(1);
    const [out] = sink.got.out;
    assert.equal(out.output, 0);
    assert.equal(out.restored, true);
    await sleep(1500);
    assert.equal(sink.got.out.length, 1, JSON.stringify(sink.got.out));
    assert.equal(await commandsSent(), 1);
  });
});
