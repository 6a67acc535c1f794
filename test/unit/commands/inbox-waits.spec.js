// nodes/lib/commands/inbox-waits.ts: the pending waits of an inbox in order of creation (all, and
// those without a command id), found by the command id a marker holds, with the ids of ended waits
// remembered and the shortest interval asked for.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { Entry, InboxWaits } = lib("commands/inbox-waits");
const { markerOf } = lib("commands/markers");

const owner = { removed: [], remove: (e) => owner.removed.push(e), requestFinal: () => {} };
const entry = (since, commandId, intervalMs = 1000) =>
  new Entry(owner, { since, commandId, intervalMs, onMarker() {}, onError() {}, onFinalRead() {} });
const marker = (ref) =>
  markerOf({ id: "e1", creationDate: 1, elems: { s: "COMMAND_COMPLETE", ref } });
function order(waits, noId = false) {
  const out = [];
  for (let e = noId ? waits.oldestWithoutId : waits.oldest; e; e = noId ? e.nextNoId : e.next)
    out.push(e.wait.since);
  return out;
}

describe("unit: commands/inbox-waits", function () {
  it("should keep the waits oldest first, and those without a command id apart", function () {
    const waits = new InboxWaits();
    for (const [since, id] of [
      [20, "c2"],
      [10, undefined],
      [40, undefined],
      [30, "c3"],
      [5, "c1"],
    ])
      waits.add(entry(since, id));
    assert.equal(waits.count, 5);
    assert.deepEqual(order(waits), [5, 10, 20, 30, 40]);
    assert.deepEqual(order(waits, true), [10, 40]);
  });

  it("should keep a wait with an empty command id with those without one: an empty id names nothing", function () {
    const waits = new InboxWaits();
    const empty = entry(10, "");
    waits.add(entry(5, "c1"));
    waits.add(empty);
    assert.deepEqual(order(waits, true), [10]);
    assert.equal(waits.withIdOf(marker("anything")), undefined);
    waits.remove(empty);
    assert.deepEqual(order(waits, true), []);
    assert.equal(waits.count, 1);
  });

  it("should find the wait whose command id a marker holds, the first of two with the same id first", function () {
    const waits = new InboxWaits();
    const first = entry(1, "cmd-42");
    const second = entry(2, "cmd-42");
    waits.add(first);
    waits.add(second);
    waits.add(entry(3, "cmd-43"));
    assert.equal(waits.withIdOf(marker("answer to cmd-42")), first);
    waits.remove(first);
    assert.equal(waits.withIdOf(marker("cmd-42")), second);
    assert.equal(waits.endedIdOf(marker("cmd-42")), false, "a wait with that id is still pending");
    waits.remove(second);
    assert.equal(waits.withIdOf(marker("cmd-42")), undefined);
    assert.equal(waits.endedIdOf(marker("cmd-42")), true);
    assert.deepEqual(order(waits), [3]);
  });

  it("should forget the ids of waits that ended before a time", function () {
    const waits = new InboxWaits();
    const one = entry(1, "cmd-1");
    waits.add(one);
    waits.remove(one);
    waits.forgetEnded(Date.now() - 60_000);
    assert.equal(waits.endedIdOf(marker("cmd-1")), true, "ended a moment ago: remembered");
    waits.forgetEnded(Date.now() + 1);
    assert.equal(waits.endedIdOf(marker("cmd-1")), false);
  });

  it("should tell a string shaped like the waits' command ids", function () {
    const waits = new InboxWaits();
    assert.equal(waits.hasIdShaped(marker("e5f3c1a2b0000000000000abc")), false);
    waits.add(entry(1, "e5f3c1a2b0000000000000001"));
    assert.equal(waits.hasIdShaped(marker("e5f3c1a2b0000000000000abc")), true);
    assert.equal(waits.hasIdShaped(marker("not an id")), false);
    assert.deepEqual([...waits.idLengths], [25]);
  });

  it("should tell a marker that names another command of a server with short ids", function () {
    const waits = new InboxWaits();
    waits.add(entry(1, "7"));
    waits.add(entry(2, "cmd-42"));
    for (const foreign of ["17", "2001", "done 17", "cmd-421", "for cmd-9999: ok"])
      assert.equal(waits.hasIdShaped(marker(foreign)), true, foreign);
    assert.equal(waits.hasIdShaped(marker("done")), false);
    const hex = new InboxWaits();
    hex.add(entry(1, "e5f3c1a2b0000000000000001"));
    // Words made of hex letters only hold no digit: they name no command.
    assert.equal(hex.hasIdShaped(marker("added")), false);
    assert.equal(hex.hasIdShaped(marker("bad face")), false);
    // Long ids keep one length: a number in a marker names none of them.
    assert.equal(hex.hasIdShaped(marker("progress 100")), false);
    assert.equal(hex.hasIdShaped(marker("e5f3c1a2b0000000000000abc")), true);
  });

  it("should not take a date, a time or a hex word for another command of a server with numeric ids", function () {
    const waits = new InboxWaits();
    waits.add(entry(1, "7"));
    for (const own of ["2024-05-01T10:00:00Z", "2024-05-01", "10:00:00", "be3", "face"])
      assert.equal(waits.hasIdShaped(marker(own)), false, own);
    assert.equal(waits.hasIdShaped(marker("at 10:00 for 17")), true);
    // A decimal beside a wait for 7 names another number, not no id (issue 28).
    assert.equal(waits.hasIdShaped(marker("7.1")), true);
  });

  it("should poll at the shortest interval a pending wait asked for, 1 s with none", function () {
    const waits = new InboxWaits();
    assert.equal(waits.interval(), 1000);
    const fast = entry(1, undefined, 250);
    waits.add(fast);
    waits.add(entry(2, undefined, 5000));
    assert.equal(waits.interval(), 250);
    waits.remove(fast);
    assert.equal(waits.interval(), 5000);
  });

  it("should hand its wait's stop and final read to the watch that owns it", function () {
    const e = entry(1, "x");
    e.stop();
    assert.deepEqual(owner.removed, [e]);
  });
});
