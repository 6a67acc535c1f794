// nodes/lib/records/saved-message.ts and saved-waits.ts: a pending wait's message kept as JSON
// (what cannot be kept is named at once), read back with its Buffers, and the waits of a node kept
// in memory (kept-records.ts) and in its context store, and resumed from them each once. The store
// is Node-RED's own memory context, through the test helper.
"use strict";
const assert = require("node:assert/strict");
const { twoStores } = require("../../support/context-stores");
const { lib } = require("../../support/lib");
const { helper } = require("../../support/red");

const { serializeMessage, parseMessage } = lib("records/saved-message");
const { WAITS } = lib("records/saved-waits");
const { KeptRecords } = lib("records/kept-records");
const { SavedRecords } = lib("records/saved-records");

/** A node's waits, in memory (`kept`) and in its context store, as the await node keeps them. */
const waitStore = (node, store, kept, onError) =>
  new SavedRecords(node, store, kept, WAITS, onError);

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

describe("unit: records/saved-waits", function () {
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

    /** A store of node c1 with the memory of one process; a new KeptRecords is a restart. */
    const store = (kept = new KeptRecords()) =>
      waitStore(node, undefined, kept.of("c1:f1"), (err) => errors.push(err));
    const keysOf = (list) => list.map((r) => r.key).sort();
    const noBad = (key, field) => assert.fail(`bad ${key}: ${field}`);

    it("should save, resume and remove the node's waits, with keys of their own", async function () {
      const s = store();
      const a = s.newKey();
      const b = s.newKey();
      assert.notEqual(a, b);
      s.save(a, wait({ commandId: "x" }));
      s.save(b, wait());
      node.context().set("unrelated", 5);
      // After a restart: from the store alone.
      const listed = await store().restorable(noBad);
      assert.deepEqual(keysOf(listed), [a, b].sort());
      assert.equal(listed.find((r) => r.key === a).wait.commandId, "x");
      assert.deepEqual(listed.find((r) => r.key === a).msg, {});
      s.remove(a);
      assert.deepEqual(keysOf(await store().restorable(noBad)), [b]);
      await s.removeAll();
      assert.deepEqual(await store().restorable(noBad), []);
      assert.deepEqual(node.context().keys(), ["unrelated"]);
      assert.equal(node.context().get("unrelated"), 5, "other context keys are not the store's");
      assert.deepEqual(errors, []);
    });

    it("should drop a saved value that is not a wait, naming it and the field", async function () {
      const s = store();
      const key = s.newKey();
      const good = s.newKey();
      node.context().set(key, { v: 2, junk: true });
      node.context().set(good, wait());
      const bad = [];
      const list = await s.restorable((k, field) => bad.push([k, field]));
      assert.deepEqual(keysOf(list), [good]);
      assert.deepEqual(bad, [[key, "v"]]);
      assert.equal(node.context().get(key), undefined);
    });

    it("should resume from memory, once, a wait whose context Node-RED deleted at the close", async function () {
      const kept = new KeptRecords();
      const first = store(kept);
      assert.deepEqual(await first.restorable(noBad), []);
      const key = first.newKey();
      first.save(key, wait({ commandId: "m" }));
      // What deleteContext does when no context store is configured.
      node.context().set(key, undefined);
      const again = store(kept);
      const list = await again.restorable(noBad);
      assert.deepEqual(keysOf(list), [key]);
      assert.equal(list[0].wait.commandId, "m");
      // Written back to the store, so that a persistent one would hold it.
      assert.equal(node.context().get(key).commandId, "m");
      // Held by memory and store alike, and still resumed once.
      assert.deepEqual(keysOf(await store(kept).restorable(noBad)), [key]);
    });

    it("should not resume a wait found only in the store once this process has read the store", async function () {
      const kept = new KeptRecords();
      const s = store(kept);
      await s.restorable(noBad);
      const key = s.newKey();
      // A wait that ended here, whose removal did not reach the store.
      node.context().set(key, wait());
      assert.deepEqual(await store(kept).restorable(noBad), []);
      assert.equal(node.context().get(key), undefined);
    });

    it("should not resume a wait that started while the store was being read", async function () {
      const kept = new KeptRecords();
      const old = store(kept);
      const before = old.newKey();
      old.save(before, wait());
      // The node re-created by a deploy.
      const s = store(kept);
      const pending = s.restorable(noBad);
      const during = s.newKey();
      s.save(during, wait());
      assert.deepEqual(keysOf(await pending), [before]);
    });

    it("should not resume a wait that the new instance started before its restore", async function () {
      const kept = new KeptRecords();
      const old = store(kept);
      const before = old.newKey();
      old.save(before, wait());
      const s = store(kept);
      // A message from a node the deploy left running, before flows:started.
      const early = s.newKey();
      s.save(early, wait());
      assert.deepEqual(keysOf(await s.restorable(noBad)), [before]);
    });
  });
});

describe("unit: records/saved-waits, with a context store that fails", function () {
  /**
   * A node whose context answers as a context store plugin that fails does: an error in the
   * callback (or a throw, as Node-RED's own context does for a bad key).
   */
  function failingNode(fail) {
    const data = new Map();
    const context = {
      keys(_store, cb) {
        if (fail.keys) cb(new Error("keys failed"));
        else cb(null, [...data.keys()]);
      },
      get(key, _store, cb) {
        if (fail.get) cb(new Error("get failed"));
        else cb(null, data.get(key));
      },
      set(key, value, _store, cb) {
        if (fail.throw) throw new Error("set threw");
        if (fail.set) return cb(new Error("set failed"));
        if (value === undefined) data.delete(key);
        else data.set(key, value);
        cb(null);
      },
    };
    return { node: { context: () => context }, data };
  }
  const noBad = (key, field) => assert.fail(`bad ${key}: ${field}`);

  it("should resume the waits in memory when the store cannot be listed, and read it at the next start", async function () {
    const fail = { keys: false };
    const { node, data } = failingNode(fail);
    const kept = new KeptRecords();
    const errors = [];
    const store = () => waitStore(node, undefined, kept.of("n1:f1"), (e) => errors.push(e));
    const old = store();
    const inMemory = old.newKey();
    old.save(inMemory, wait());
    const onlyStored = old.newKey();
    data.set(onlyStored, wait());
    fail.keys = true;
    assert.deepEqual(
      (await store().restorable(noBad)).map((r) => r.key),
      [inMemory],
    );
    assert.match(String(errors[0]), /keys failed/);
    assert.equal(kept.of("n1:f1").loaded, false);
    fail.keys = false;
    const next = await store().restorable(noBad);
    assert.deepEqual(next.map((r) => r.key).sort(), [inMemory, onlyStored].sort());
    assert.equal(kept.of("n1:f1").loaded, true);
  });

  it("should leave a record it could not read in the store, and read it at the next start", async function () {
    const fail = { get: true };
    const { node, data } = failingNode(fail);
    const kept = new KeptRecords();
    const errors = [];
    const s = waitStore(node, undefined, kept.of("n1:f1"), (e) => errors.push(e));
    const key = s.newKey();
    data.set(key, wait());
    assert.deepEqual(await s.restorable(noBad), []);
    assert.match(String(errors[0]), /get failed/);
    assert.ok(data.has(key));
    fail.get = false;
    assert.deepEqual(
      (await s.restorable(noBad)).map((r) => r.key),
      [key],
    );
  });

  it("should tell a write that fails or throws, and keep the wait in memory", async function () {
    const fail = { set: true };
    const { node } = failingNode(fail);
    const kept = new KeptRecords();
    const errors = [];
    const s = waitStore(node, undefined, kept.of("n1:f1"), (e) => errors.push(e));
    const a = s.newKey();
    s.save(a, wait());
    fail.set = false;
    fail.throw = true;
    const b = s.newKey();
    s.save(b, wait());
    assert.deepEqual(errors.map(String), ["Error: set failed", "Error: set threw"]);
    assert.deepEqual([...kept.of("n1:f1").records.keys()], [a, b]);
  });

  it("should forget a removed node's waits in memory", function () {
    const kept = new KeptRecords();
    kept.of("n1:f1").records.set("k", wait());
    kept.of("n1:f1").loaded = true;
    kept.forget("n1:f1");
    assert.deepEqual(kept.of("n1:f1"), { loaded: false, records: new Map(), store: null });
  });
});

describe("unit: records/saved-waits, when a deploy changes the node's Store", function () {
  const noBad = (key, field) => assert.fail(`bad ${key}: ${field}`);

  it("should move the pending waits to the new store and leave none in the old one", async function () {
    const { node, stores } = twoStores();
    const kept = new KeptRecords();
    const inA = waitStore(node, "a", kept.of("n1"), assert.fail);
    await inA.restorable(noBad);
    const key = inA.newKey();
    inA.save(key, wait());
    assert.ok(stores.a.has(key));
    // Redeployed with Store b: the wait resumes, written to b, and goes from a, so that a restart
    // that finds Store a chosen again does not resume a wait that has long ended.
    const inB = waitStore(node, "b", kept.of("n1"), assert.fail);
    assert.deepEqual(
      (await inB.restorable(noBad)).map((r) => r.key),
      [key],
    );
    assert.ok(stores.b.has(key));
    assert.equal(stores.a.has(key), false);
  });
});
