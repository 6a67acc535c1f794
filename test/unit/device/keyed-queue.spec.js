// nodes/lib/device/keyed-queue.ts: tasks of one key one after another, of different keys side
// by side, and a failed task does not stop the ones behind it.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { KeyedQueue } = lib("device/keyed-queue");

/** A task that records its start and end, and finishes when told to. */
function gate(log, name) {
  let open;
  const opened = new Promise((resolve) => (open = resolve));
  const task = async () => {
    log.push(`start ${name}`);
    await opened;
    log.push(`end ${name}`);
    return name;
  };
  return { task, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("unit: device/keyed-queue", function () {
  it("should run the tasks of one key one after another, in order", async function () {
    const q = new KeyedQueue();
    const log = [];
    const a = gate(log, "a");
    const b = gate(log, "b");
    const pa = q.run("dev", a.task);
    const pb = q.run("dev", b.task);
    await tick();
    assert.deepEqual(log, ["start a"]);
    b.open(); // b is ready, but must still wait for a
    await tick();
    assert.deepEqual(log, ["start a"]);
    a.open();
    assert.deepEqual(await Promise.all([pa, pb]), ["a", "b"]);
    assert.deepEqual(log, ["start a", "end a", "start b", "end b"]);
  });

  it("should run the tasks of different keys side by side", async function () {
    const q = new KeyedQueue();
    const log = [];
    const a = gate(log, "a");
    const b = gate(log, "b");
    const pa = q.run("one", a.task);
    const pb = q.run("two", b.task);
    await tick();
    assert.deepEqual(log.sort(), ["start a", "start b"]);
    b.open();
    assert.equal(await pb, "b");
    a.open();
    assert.equal(await pa, "a");
  });

  it("should pass a failure to its caller only and go on with the next task", async function () {
    const q = new KeyedQueue();
    const failed = q.run("dev", async () => {
      throw new Error("boom");
    });
    const next = q.run("dev", async () => "after");
    await assert.rejects(failed, /boom/);
    assert.equal(await next, "after");
  });

  it("should forget a key once its last task has ended", async function () {
    const q = new KeyedQueue();
    await q.run("a", async () => 1);
    await q
      .run("b", async () => {
        throw new Error("x");
      })
      .catch(() => undefined);
    await tick();
    assert.equal(q.size, 0);
  });
});
