// nodes/lib/commands/unclaimed-markers.ts: markers no wait took yet, found again by the command id
// they hold (whole, inside a longer string, or in a string too long to index) and by date, and
// forgotten by age and past a count.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { itemsOf } = require("../../support/unclaimed-items");

const { UnclaimedMarkers } = lib("commands/unclaimed-markers");

const { item, refs: ids } = itemsOf();

describe("unit: commands/unclaimed-markers", function () {
  it("should find a marker by an id it holds whole or inside a longer string, oldest first", function () {
    const store = new UnclaimedMarkers();
    const later = item({ s: "COMMAND_COMPLETE", ref: "cmd-7" }, { date: 20 });
    const earlier = item({ s: "COMMAND_START", ref: "answer to cmd-7 here" }, { date: 10 });
    store.add(later, new Set([5]));
    store.add(earlier, new Set([5]));
    assert.equal(store.size, 2);
    assert.deepEqual(ids(store.withId("cmd-7")), ["answer to cmd-7 here", "cmd-7"]);
    assert.deepEqual(store.withId("cmd-8"), []);
  });

  it("should not find a marker by an id that is only part of a longer one", function () {
    const store = new UnclaimedMarkers();
    store.add(item({ s: "COMMAND_COMPLETE", ref: "17" }), new Set([1]));
    store.add(item({ s: "COMMAND_COMPLETE", ref: "done 2001" }), new Set([1]));
    store.add(item({ s: "COMMAND_COMPLETE", ref: "cmd-421" }), new Set([1, 6]));
    store.add(item({ s: "COMMAND_COMPLETE", ref: "answer to 7" }), new Set([1]));
    assert.deepEqual(store.withId("1"), []);
    assert.deepEqual(store.withId("cmd-42"), []);
    assert.deepEqual(ids(store.withId("7")), ["answer to 7"], "an id at the end of a string");
    const long = `${"x".repeat(600)} 17 ${"y".repeat(10)}`;
    store.add(item({ s: "COMMAND_COMPLETE", ref: long }), new Set([1]));
    assert.deepEqual(ids(store.withId("7")), ["answer to 7"], "nor in a string too long to index");
  });

  it("should index what it holds anew when ids of a new length come", function () {
    const store = new UnclaimedMarkers();
    store.add(item({ s: "COMMAND_COMPLETE", ref: "for abc123 done" }), new Set([5]));
    assert.deepEqual(store.withId("abc123"), [], "not indexed by substrings of length 6 yet");
    store.indexLength(6);
    assert.deepEqual(ids(store.withId("abc123")), ["for abc123 done"]);
  });

  it("should search the strings too long to index", function () {
    const store = new UnclaimedMarkers();
    const long = `${"x".repeat(600)} cmd-9 ${"y".repeat(10)}`;
    store.add(item({ s: "COMMAND_COMPLETE", ref: long }), new Set([5]));
    assert.deepEqual(ids(store.withId("cmd-9")), [long]);
  });

  it("should list the markers created at or after a date, the named ones only when asked", function () {
    const store = new UnclaimedMarkers();
    store.add(item({ s: "COMMAND_COMPLETE", ref: "a" }, { date: 10 }), new Set());
    store.add(item({ s: "COMMAND_COMPLETE", ref: "b" }, { date: 30, named: true }), new Set());
    store.add(item({ s: "COMMAND_COMPLETE", ref: "c" }, { date: 20 }), new Set());
    assert.deepEqual(ids(store.since(15, true)), ["c", "b"]);
    assert.deepEqual(ids(store.since(15, false)), ["c"]);
    assert.deepEqual(ids(store.since(0, false)), ["a", "c"]);
  });

  it("should take a dropped marker out of every index, once", function () {
    const store = new UnclaimedMarkers();
    const one = item({ s: "COMMAND_COMPLETE", ref: "cmd-1" });
    store.add(one, new Set([5]));
    store.drop(one);
    store.drop(one);
    assert.equal(store.size, 0);
    assert.deepEqual(store.withId("cmd-1"), []);
    assert.deepEqual(store.since(0, true), []);
  });

  it("should forget what was read at or before a time, in read order", function () {
    const store = new UnclaimedMarkers();
    store.add(item({ s: "COMMAND_COMPLETE", ref: "old" }, { readAt: 100 }), new Set());
    store.add(item({ s: "COMMAND_COMPLETE", ref: "new" }, { readAt: 200 }), new Set());
    store.expire(100);
    assert.deepEqual(ids(store.since(0, true)), ["new"]);
  });

  it("should keep at most 10000 markers, dropping the first read", function () {
    const store = new UnclaimedMarkers();
    for (let i = 0; i <= 10_000; i++)
      store.add(item({ s: "COMMAND_COMPLETE", ref: `r${i}` }, { date: i }), new Set());
    assert.equal(store.size, 10_000);
    assert.deepEqual(store.withId("r0"), []);
    assert.deepEqual(ids(store.withId("r1")), ["r1"]);
  });
});
