// Which of the Elems typed in a node and msg.payload is the command (issue 37): what is typed in
// the node wins, as in core nodes, and msg.payload is the command only where Elems is empty or
// the node's Command says so. 0.1.0 sent an object msg.payload in place of the typed Elems, so a
// watch node wired to a send node sent the whole telemetry event to a machine, status "sent", no
// word. Real nodes in a real Node-RED against the simulator; what counts is what the server got.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("../support/simulator");
const { next, withRedAndSimulator } = require("../support/red");
const { startFlow, startNode } = require("../support/flow");
const { addDevices, fleetNode } = require("../support/fleet");
const { SEED } = require("../support/seed");

const FUNCTION = require("@node-red/nodes/core/function/10-function.js");
const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");

/** A send node to the lcd-board as the editor of this version saves it: Command is set. */
const SEND = {
  type: "edge-send-command",
  target: "device",
  device: SEED.lcd.name,
  stream: "",
  elems: "",
  elemsFrom: "elems",
  ttl: "",
};

/** An event of a telemetry stream, as edge-watch-events outputs it in msg.payload. */
const TELEMETRY = {
  id: "e0000000000000000000000a1",
  streamId: "s0000000000000000000000b2",
  path: "/demo/telemetry",
  creationDate: 1700000000000,
  elems: { temperature: 31, humidity: 40 },
};

/** The elems of the commands the server was sent (POST /event), oldest first. */
async function sentElems(sim) {
  const log = (await control(sim, "GET", "/requests?limit=200")).json;
  return log
    .filter((r) => r.method === "POST" && /\/event$/.test(r.url))
    .map((r) => JSON.parse(r.body).elems);
}

/** The node's warnings so far, as text (the test helper's spy sees every node's). */
const warnings = (node) =>
  node.warn
    .getCalls()
    .filter((c) => c.thisValue === node)
    .map((c) => String(c.args[0]));

describe("typed Elems and msg.payload", function () {
  this.timeout(20000);
  const env = withRedAndSimulator({ commandDelayMs: 10 });

  describe("edge-send-command", function () {
    it("should send the typed Elems, filled in from the message, when msg.payload is an object, and warn once that msg.payload was not sent", async function () {
      const { n1, out } = await startNode(env.sim, {
        ...SEND,
        elems: '{"/lcd/txt2": "{{topic}}"}',
      });
      n1.receive({ topic: "hot", payload: TELEMETRY });
      const first = await next(out);
      assert.deepEqual(first.payload.elems, { "/lcd/txt2": "hot" });
      n1.receive({ topic: "cold", payload: { "/lcd/txt1": "x" } });
      await next(out);
      assert.deepEqual(await sentElems(env.sim), [{ "/lcd/txt2": "hot" }, { "/lcd/txt2": "cold" }]);
      const said = warnings(n1);
      assert.equal(said.length, 1, JSON.stringify(said));
      assert.match(
        said[0],
        /^msg\.payload is an object, but this node has Elems: the Elems was sent/,
      );
    });

    it("should send what the Elems reads of a watch node's event, without a warning: the event was used", async function () {
      const { n1, out } = await startNode(env.sim, {
        ...SEND,
        elems: '{"/lcd/txt2": "hot {{payload.elems.temperature}}"}',
      });
      n1.receive({ payload: TELEMETRY });
      await next(out);
      assert.deepEqual(await sentElems(env.sim), [{ "/lcd/txt2": "hot 31" }]);
      assert.deepEqual(warnings(n1), []);
    });

    it("should warn when the Elems puts the whole object in a text, where it reads [object Object]", async function () {
      const { n1, out } = await startNode(env.sim, {
        ...SEND,
        elems: '{"/lcd/txt1": "{{payload}}"}',
      });
      n1.receive({ payload: { "/lcd/txt9": "no such line" } });
      await next(out);
      assert.deepEqual(await sentElems(env.sim), [{ "/lcd/txt1": "[object Object]" }]);
      assert.equal(warnings(n1).length, 1);
    });

    it("should send msg.payload when Elems is empty, without a warning", async function () {
      const { n1, out } = await startNode(env.sim, SEND);
      n1.receive({ payload: { "/lcd/txt1": "from the payload" } });
      await next(out);
      assert.deepEqual(await sentElems(env.sim), [{ "/lcd/txt1": "from the payload" }]);
      assert.deepEqual(warnings(n1), []);
    });

    it("should send an object msg.payload, else the Elems, when Command is msg.payload, without a warning", async function () {
      const { n1, out } = await startNode(env.sim, {
        ...SEND,
        elems: '{"/lcd/txt1": "{{payload}}"}',
        elemsFrom: "payload",
      });
      n1.receive({ payload: { "/lcd/txt2": "the object" } });
      await next(out);
      n1.receive({ payload: "a text" });
      await next(out);
      assert.deepEqual(await sentElems(env.sim), [
        { "/lcd/txt2": "the object" },
        { "/lcd/txt1": "a text" },
      ]);
      assert.deepEqual(warnings(n1), []);
    });

    it("should keep the rule of 0.1.0 for a node saved without Command, and say once what it did", async function () {
      const saved = { ...SEND, elems: '{"/lcd/txt1": "{{payload}}"}' };
      delete saved.elemsFrom;
      const { n1, out } = await startNode(env.sim, saved);
      n1.receive({ payload: { "/lcd/txt2": "as 0.1.0 did" } });
      await next(out);
      n1.receive({ payload: { "/lcd/txt2": "again" } });
      await next(out);
      n1.receive({ payload: "a text" });
      await next(out);
      assert.deepEqual(await sentElems(env.sim), [
        { "/lcd/txt2": "as 0.1.0 did" },
        { "/lcd/txt2": "again" },
        { "/lcd/txt1": "a text" },
      ]);
      const said = warnings(n1);
      assert.equal(said.length, 1, JSON.stringify(said));
      assert.match(said[0], /as nodes saved by version 0\.1\.0 do .*choose under Command/);
    });

    it("should send the typed Elems when a Function node built msg.payload, in its own realm", async function () {
      const { get } = await startFlow(
        env.sim,
        [
          {
            id: "fn",
            type: "function",
            func: 'return { topic: "from fn", payload: { "/lcd/txt1": "built", lcd: { txt2: "x" } } };',
            outputs: 1,
            wires: [["n1"]],
          },
          { id: "n1", ...SEND, elems: '{"/lcd/txt2": "{{topic}}"}', wires: [["out"]] },
          { id: "out", type: "helper" },
        ],
        { extraTypes: [FUNCTION] },
      );
      get("fn").receive({});
      await next(get("out"));
      assert.deepEqual(await sentElems(env.sim), [{ "/lcd/txt2": "from fn" }]);
      assert.equal(warnings(get("n1")).length, 1);
    });
  });

  describe("edge-fleet-command", function () {
    async function start(props) {
      const { get } = await startFlow(
        env.sim,
        [fleetNode(props), { id: "report", type: "helper" }, { id: "each", type: "helper" }],
        { account: { rate: 0, concurrency: 16 }, extraTypes: [FLEET] },
      );
      return { f1: get("f1"), report: get("report") };
    }

    it("should send every device the typed Elems when msg.payload is an object, and warn once", async function () {
      await addDevices(env.sim, ["t1", "t2"]);
      const { f1, report } = await start({
        devices: "t1, t2",
        elems: '{"/lcd/txt1": "{{topic}}"}',
      });
      f1.receive({ topic: "shift 1", payload: TELEMETRY });
      assert.equal((await next(report, 15000)).payload.complete, 2);
      f1.receive({ topic: "shift 2", payload: TELEMETRY });
      assert.equal((await next(report, 15000)).payload.complete, 2);
      const texts = (await sentElems(env.sim)).map((e) => e["/lcd/txt1"]);
      assert.deepEqual(texts, ["shift 1", "shift 1", "shift 2", "shift 2"]);
      const said = warnings(f1).filter((w) => /msg\.payload/.test(w));
      assert.equal(said.length, 1, JSON.stringify(warnings(f1)));
      assert.match(said[0], /^msg\.payload is an object, but this node has Elems/);
    });

    it("should send every device msg.payload when Elems is empty, without a warning", async function () {
      await addDevices(env.sim, ["t3", "t4"]);
      const { f1, report } = await start({ devices: "t3, t4", elemsFrom: "elems" });
      f1.receive({ payload: { "/lcd/txt1": "from the payload" } });
      assert.equal((await next(report, 15000)).payload.complete, 2);
      assert.deepEqual(await sentElems(env.sim), [
        { "/lcd/txt1": "from the payload" },
        { "/lcd/txt1": "from the payload" },
      ]);
      assert.deepEqual(
        warnings(f1).filter((w) => /msg\.payload/.test(w)),
        [],
      );
    });

    it("should send every device an object msg.payload when Command is msg.payload", async function () {
      await addDevices(env.sim, ["t5"]);
      const { f1, report } = await start({
        devices: "t5",
        elems: '{"/lcd/txt1": "{{payload}}"}',
        elemsFrom: "payload",
      });
      f1.receive({ payload: { "/lcd/txt1": "the object" } });
      assert.equal((await next(report, 15000)).payload.complete, 1);
      assert.deepEqual(await sentElems(env.sim), [{ "/lcd/txt1": "the object" }]);
      assert.deepEqual(
        warnings(f1).filter((w) => /msg\.payload/.test(w)),
        [],
      );
    });
  });

  describe("edge-device-state", function () {
    // It has no state typed in the node: msg.payload is its only source, for both writes.
    for (const [mode, method] of [
      ["replace", "PUT"],
      ["merge", "PUT"],
    ])
      it(`should write msg.payload in ${mode} mode, a Function node's object included`, async function () {
        const { get } = await startFlow(
          env.sim,
          [
            {
              id: "fn",
              type: "function",
              func: 'msg.payload = { "/lcd/txt1": "written", "/lcd/txt2": "too" }; return msg;',
              outputs: 1,
              wires: [["n1"]],
            },
            {
              id: "n1",
              type: "edge-device-state",
              device: SEED.lcd.id,
              mode,
              wires: [["out"]],
            },
            { id: "out", type: "helper" },
          ],
          { extraTypes: [FUNCTION] },
        );
        get("fn").receive({});
        const msg = await next(get("out"));
        assert.deepEqual(msg.payload, { "/lcd/txt1": "written", "/lcd/txt2": "too" });
        const log = (await control(env.sim, "GET", "/requests?limit=50")).json;
        const write = log.filter((r) => r.method === method && /\/device\//.test(r.url)).at(-1);
        assert.deepEqual(JSON.parse(write.body).state, {
          "/lcd/txt1": "written",
          "/lcd/txt2": "too",
        });
        assert.deepEqual(warnings(get("n1")), []);
      });
  });
});
