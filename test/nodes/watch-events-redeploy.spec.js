// edge-watch-events through deploys while its stream keeps getting events, on the test helper's
// stock settings (no contextStorage: Node-RED deletes a node's context when the node closes). A
// "modified nodes" deploy that restarts the watch once lost the events of its last read and of the
// deploy, silently, unless Start was resume (issue 28). Checked against the simulator's own stream
// contents, not against what the node says.
"use strict";
const assert = require("node:assert/strict");
const { api, control, waitFor, sleep } = require("../support/simulator");
const { deploy, helper, load, account, statuses, withRedAndSimulator } = require("../support/red");
const { slowClose } = require("../support/flow");

const WAIT = 20000;

async function newStream(sim, name) {
  const res = await control(sim, "POST", "/streams", { path: `/${sim.company}/${name}` });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

/** The ids of the stream's events as the API lists them, oldest first. */
async function streamIds(sim, stream) {
  const res = await api(sim, "GET", `/event/${stream.id}?limit=10000`);
  assert.equal(res.status, 200, res.text);
  return res.json.body.map((e) => e.id).reverse();
}

/** Adds an event to the stream every `everyMs` until the returned function is called. */
function keepAdding(sim, stream, everyMs) {
  let stopped = false;
  let n = 0;
  const adding = (async () => {
    while (!stopped) {
      const res = await control(sim, "POST", "/events", { streamId: stream.id, elems: { n: n++ } });
      assert.equal(res.status, 201, res.text);
      await sleep(everyMs);
    }
  })();
  return async () => {
    stopped = true;
    await adding;
  };
}

/** A tab with the account, the watch w1 wired to the helper "out", and a node of nothing else. */
function flow(sim, stream, start) {
  const { node: acc, credentials } = account(sim);
  // With x and y, as the editor deploys them: without, Node-RED takes a node for a config node.
  const nodes = [
    { id: "t1", type: "tab" },
    { ...acc, z: "t1" },
    {
      id: "w1",
      type: "edge-watch-events",
      z: "t1",
      name: "watch",
      account: "acc",
      stream: stream.path,
      interval: 300,
      start,
      last: 10,
      store: "",
      x: 100,
      y: 40,
      wires: [["out"]],
    },
    { id: "out", type: "helper", z: "t1", x: 300, y: 40 },
    { id: "other", type: "helper", z: "t1", name: "unchanged", x: 100, y: 100, wires: [] },
  ];
  return { nodes, credentials };
}

describe("edge-watch-events redeployed while its stream keeps getting events (stock settings)", function () {
  this.timeout(60000);
  const env = withRedAndSimulator();

  for (const start of ["new", "last", "resume"]) {
    it(`should send every event created after it started exactly once through deploys that restart it or change another node (Start: ${start})`, async function () {
      const { sim } = env;
      const stream = await newStream(sim, `w-redeploy-${start}`);
      await control(sim, "POST", "/events", { streamId: stream.id, elems: { old: true } });
      let { nodes, credentials } = flow(sim, stream, start);
      await load(nodes, credentials);
      const out = helper.getNode("out");
      const shown = statuses(helper.getNode("w1"));
      await waitFor(() => shown.some((s) => /^(watching|1 events)/.test(s.text)), {
        timeoutMs: WAIT,
        what: "the watch started",
      });
      const before = new Set(await streamIds(sim, stream));
      const stop = keepAdding(sim, stream, 100);
      // Modified-nodes deploys as the editor makes them: the watch renamed (it restarts, "out"
      // keeps running), or only the other node changed (the watch keeps running).
      for (const [id, name] of [
        ["w1", "renamed 1"],
        ["other", "changed 1"],
        ["w1", "renamed 2"],
        ["w1", "renamed 3"],
        ["other", "changed 2"],
      ]) {
        await sleep(700);
        nodes = nodes.map((n) => (n.id === id ? { ...n, name } : n));
        await deploy(nodes, "nodes", credentials);
      }
      await sleep(700);
      await stop();
      const expected = (await streamIds(sim, stream)).filter((id) => !before.has(id));
      assert.ok(expected.length >= 30, `${expected.length} events added`);
      const sent = () => out.received.map((m) => m.eventId).filter((id) => !before.has(id));
      await waitFor(() => sent().length >= expected.length, {
        timeoutMs: WAIT,
        intervalMs: 50,
        what: `${expected.length} events`,
      }).catch(() => {});
      // Anything sent twice would come by now: the interval is 300 ms.
      await sleep(700);
      const got = sent();
      const missing = expected.filter((id) => !got.includes(id));
      assert.deepEqual(missing, [], `${missing.length} of ${expected.length} events never sent`);
      assert.deepEqual(got, expected);
      // Start: last sent the old event once, at its first start, not at each restart.
      const old = out.received.filter((m) => before.has(m.eventId)).length;
      assert.equal(old, start === "last" ? 1 : 0);
    });
  }

  it("should send no event while a deploy restarts the node after it, and every event once after", async function () {
    const { sim } = env;
    const stream = await newStream(sim, "w-redeploy-next");
    let { nodes, credentials } = flow(sim, stream, "new");
    nodes = nodes.map((n) => (n.id === "w1" ? { ...n, wires: [["next"]] } : n));
    nodes.push({
      id: "next",
      type: "slow-close",
      z: "t1",
      name: "next",
      x: 200,
      y: 40,
      wires: [["out"]],
    });
    await load(nodes, credentials, [slowClose]);
    const out = helper.getNode("out");
    const shown = statuses(helper.getNode("w1"));
    await waitFor(() => shown.some((s) => s.text === "watching"), {
      timeoutMs: WAIT,
      what: "the watch started",
    });
    const before = new Set(await streamIds(sim, stream));
    const stop = keepAdding(sim, stream, 100);
    for (const name of ["changed 1", "changed 2", "changed 3"]) {
      await sleep(700);
      nodes = nodes.map((n) => (n.id === "next" ? { ...n, name } : n));
      await deploy(nodes, "nodes", credentials);
    }
    await sleep(700);
    await stop();
    const expected = (await streamIds(sim, stream)).filter((id) => !before.has(id));
    await waitFor(() => out.received.length >= expected.length, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `${expected.length} events`,
    }).catch(() => {});
    await sleep(700);
    const got = out.received.map((m) => m.eventId);
    const missing = expected.filter((id) => !got.includes(id));
    assert.deepEqual(missing, [], `${missing.length} of ${expected.length} events never arrived`);
    assert.deepEqual(got, expected);
  });
});
