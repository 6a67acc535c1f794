// nodes/lib/commands/inbox-waits.ts, beyond inbox-waits.spec.js: waits that share one command id
// ended in any order, waits inserted between others and removed from anywhere in both lists, the
// intervals of several waits alike, and the bound on the ids of ended waits.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { Entry, InboxWaits } = lib("commands/inbox-waits");
const { markerOf } = lib("commands/markers");

const owner = { remove() {}, requestFinal() {} };
const entry = (since, commandId, intervalMs = 1000) =>
  new Entry(owner, { since, commandId, intervalMs, onMarker() {}, onError() {}, onFinalRead() {} });
const marker = (ref) =>
  markerOf({ id: "e1", creationDate: 1, elems: { s: "COMMAND_COMPLETE", ref } });

/** The `since` of each wait, oldest first, in both directions, all or only those without an id. */
function order(waits, noId = false) {
  const out = [];
  let last;
  for (let e = noId ? waits.oldestWithoutId : waits.oldest; e; e = noId ? e.nextNoId : e.next) {
    out.push(e.wait.since);
    last = e;
  }
  const back = [];
  for (let e = last; e; e = noId ? e.prevNoId : e.prev) back.push(e.wait.since);
  assert.deepEqual(back.reverse(), out, "the list reads the same backwards");
  return out;
}

describe("unit: commands/inbox-waits, order and removal", function () {
  it("should find the waits of one command id in order as any of them ends", function () {
    for (const removeAt of [0, 1, 2]) {
      const waits = new InboxWaits();
      const same = [entry(1, "cmd-7"), entry(2, "cmd-7"), entry(3, "cmd-7")];
      for (const e of same) waits.add(e);
      waits.remove(same[removeAt]);
      const left = same.filter((_, i) => i !== removeAt);
      assert.equal(waits.withIdOf(marker("cmd-7")), left[0], `removed #${removeAt}`);
      waits.remove(left[0]);
      assert.equal(waits.withIdOf(marker("cmd-7")), left[1], `removed #${removeAt}`);
      assert.equal(waits.endedIdOf(marker("cmd-7")), false);
      waits.remove(left[1]);
      assert.equal(waits.withIdOf(marker("cmd-7")), undefined);
      assert.equal(waits.endedIdOf(marker("cmd-7")), true);
      assert.equal(waits.count, 0);
    }
  });

  it("should keep both lists in order as waits come between others and leave from anywhere", function () {
    const waits = new InboxWaits();
    const e = {};
    for (const [since, id] of [
      [50, undefined],
      [10, undefined],
      [30, "c30"],
      [40, undefined],
      [20, undefined],
      [60, "c60"],
      [5, undefined],
      [45, undefined],
    ]) {
      e[since] = entry(since, id);
      waits.add(e[since]);
    }
    assert.deepEqual(order(waits), [5, 10, 20, 30, 40, 45, 50, 60]);
    assert.deepEqual(order(waits, true), [5, 10, 20, 40, 45, 50]);
    for (const since of [5, 45, 60, 30, 50]) waits.remove(e[since]);
    assert.deepEqual(order(waits), [10, 20, 40]);
    assert.deepEqual(order(waits, true), [10, 20, 40]);
    assert.equal(waits.count, 3);
    waits.add(entry(15, undefined));
    waits.add(entry(1, undefined));
    assert.deepEqual(order(waits, true), [1, 10, 15, 20, 40]);
    for (const since of [10, 20, 40]) waits.remove(e[since]);
    assert.deepEqual(order(waits), [1, 15]);
    assert.deepEqual(order(waits, true), [1, 15]);
  });

  it("should keep waits of one date in the order they came", function () {
    const waits = new InboxWaits();
    const a = entry(10, undefined);
    const b = entry(10, undefined);
    const c = entry(10, "c");
    waits.add(a);
    waits.add(b);
    waits.add(c);
    assert.equal(waits.oldest, a);
    assert.equal(a.next, b);
    assert.equal(b.next, c);
    assert.equal(waits.oldestWithoutId, a);
    assert.equal(a.nextNoId, b);
    assert.equal(b.nextNoId, undefined);
  });

  it("should read at the shortest interval until the last wait that asked for it ends", function () {
    const waits = new InboxWaits();
    const a = entry(1, undefined, 200);
    const b = entry(2, undefined, 200);
    waits.add(a);
    waits.add(b);
    waits.add(entry(3, undefined, 900));
    waits.remove(a);
    assert.equal(waits.interval(), 200, "b still asks for 200 ms");
    waits.remove(b);
    assert.equal(waits.interval(), 900);
  });

  it("should remember the ids of at most 10,000 ended waits, the oldest forgotten first", function () {
    const waits = new InboxWaits();
    for (let i = 0; i <= 10_000; i++) {
      const e = entry(i, `cmd-${i}`);
      waits.add(e);
      waits.remove(e);
    }
    assert.equal(waits.endedIdOf(marker("cmd-0")), false);
    assert.equal(waits.endedIdOf(marker("cmd-1")), true);
    assert.equal(waits.endedIdOf(marker("cmd-10000")), true);
  });
});
