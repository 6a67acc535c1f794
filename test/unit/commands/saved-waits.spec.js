// nodes/lib/commands/saved-waits.ts: a pending wait's message kept as JSON (what cannot be kept is
// named at once), read back with its Buffers, and the waits of a node listed from its context store.
// The store is Node-RED's own memory context, through the test helper.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { helper } = require("../../support/red");

const { serializeMessage, parseMessage, WaitStore } = lib("commands/saved-waits");

/** A wait as the await node saves it. */
const wait = (extra = {}) => ({
  v: 1,
  inbox: { path: "/demo/devices/lcd-board/:inbox" },
  since: 1,
  deadline: 2,
  timeoutMs: 1,
  intervalMs: 1000,
  startedAt: 1,
  msg: "{}",
  ...extra,
});

describe("unit: commands/saved-waits", function () {
  describe("serializeMessage and parseMessage", function () {
    it("should keep a message as JSON and give it back with its Buffers", function () {
      const { json, dropped } = serializeMessage({
        _msgid: "m1",
        payload: { a: 1 },
        raw: Buffer.from([1, 2, 3]),
        topic: "t",
      });
      assert.deepEqual(dropped, []);
      const back = parseMessage(json);
      assert.equal(back._msgid, "m1");
      assert.deepEqual(back.payload, { a: 1 });
      assert.ok(Buffer.isBuffer(back.raw));
      assert.deepEqual([...back.raw], [1, 2, 3]);
    });

    it("should name what cannot be kept and keep the rest", function () {
      const cycle = { name: "loop" };
      cycle.self = cycle;
      const { json, dropped } = serializeMessage({
        payload: 1,
        fn: () => 1,
        sym: Symbol("s"),
        cycle,
        big: 10n,
      });
      assert.deepEqual(dropped.sort(), ["big", "cycle", "fn", "sym"]);
      assert.deepEqual(parseMessage(json), { payload: 1 });
    });

    it("should leave an object that only looks like a Buffer without data as it is", function () {
      assert.deepEqual(parseMessage('{"x":{"type":"Buffer","data":"no"}}'), {
        x: { type: "Buffer", data: "no" },
      });
    });
  });

  describe("WaitStore, in a real Node-RED context", function () {
    let node;
    let errors;

    before(function (done) {
      helper.startServer(done);
    });
    after(function (done) {
      helper.stopServer(done);
    });
    beforeEach(async function () {
      // Any core node gives a node context; a comment node does nothing else.
      await helper.load(require("@node-red/nodes/core/common/90-comment.js"), [
        { id: "c1", type: "comment", z: "f1" },
        { id: "f1", type: "tab" },
      ]);
      node = helper.getNode("c1");
      errors = [];
    });
    afterEach(async function () {
      await helper.unload();
    });

    const store = () => new WaitStore(node, undefined, (err) => errors.push(err));

    it("should save, list and remove the node's waits, with keys of their own", async function () {
      const s = store();
      const a = s.newKey();
      const b = s.newKey();
      assert.notEqual(a, b);
      s.save(a, wait({ commandId: "x" }));
      s.save(b, wait());
      node.context().set("unrelated", 5);
      const listed = await s.list();
      assert.deepEqual(listed.map(([k]) => k).sort(), [a, b].sort());
      assert.equal(listed.find(([k]) => k === a)[1].commandId, "x");
      s.remove(a);
      assert.deepEqual(
        (await s.list()).map(([k]) => k),
        [b],
      );
      await s.removeAll();
      assert.deepEqual(await s.list(), []);
      assert.equal(node.context().get("unrelated"), 5, "other context keys are not the store's");
      assert.deepEqual(errors, []);
    });

    it("should drop a saved value that is not a wait", async function () {
      const s = store();
      const key = s.newKey();
      node.context().set(key, { v: 2, junk: true });
      assert.deepEqual(await s.list(), []);
      assert.equal(node.context().get(key), undefined);
    });
  });
});
