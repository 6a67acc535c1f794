// nodes/lib/commands/unclaimed-markers.ts: a marker handed out or dropped is found by no id and no
// date any more, while the markers left are all found, once each, in the order they happened
// (read order among equal dates); a string of 512 characters is indexed, a longer one searched.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { itemsOf } = require("../../support/unclaimed-items");

const { UnclaimedMarkers } = lib("commands/unclaimed-markers");

const { item, refs } = itemsOf();

describe("unit: commands/unclaimed-markers, drops", function () {
  it("should still find the other markers that hold an id when one of them is dropped", function () {
    const store = new UnclaimedMarkers();
    const start = item({ s: "COMMAND_START", ref: "cmd-1" }, { date: 1 });
    const done = item({ s: "COMMAND_COMPLETE", ref: "cmd-1" }, { date: 2 });
    store.add(start, new Set([5]));
    store.add(done, new Set([5]));
    store.drop(start);
    assert.deepEqual(store.withId("cmd-1"), [done]);
  });

  it("should find a dropped marker by no substring it was indexed by, also one indexed later", function () {
    const store = new UnclaimedMarkers();
    const one = item({ s: "COMMAND_COMPLETE", ref: "for abc12 and abcdef1 done" });
    store.add(one, new Set([5]));
    store.indexLength(7);
    assert.deepEqual(store.withId("abc12"), [one]);
    assert.deepEqual(store.withId("abcdef1"), [one]);
    store.drop(one);
    assert.deepEqual(store.withId("abc12"), []);
    assert.deepEqual(store.withId("abcdef1"), []);
  });

  it("should not search a dropped marker's string too long to index", function () {
    const store = new UnclaimedMarkers();
    const one = item({ s: "COMMAND_COMPLETE", ref: `${"x".repeat(600)} cmd-9` });
    store.add(one, new Set([5]));
    store.drop(one);
    assert.deepEqual(store.withId("cmd-9"), []);
  });

  it("should list by date exactly the markers left after most were dropped", function () {
    const store = new UnclaimedMarkers();
    const all = [];
    for (let i = 0; i < 6; i++) {
      all.push(item({ s: "COMMAND_COMPLETE", ref: `r${i}` }, { date: 60 - i * 10 }));
      store.add(all[i], new Set());
    }
    for (const i of [5, 3, 1, 0]) store.drop(all[i]);
    assert.deepEqual(refs(store.since(0, true)), ["r4", "r2"]);
    const late = item({ s: "COMMAND_COMPLETE", ref: "r6" }, { date: 35 });
    store.add(late, new Set());
    store.drop(all[4]);
    assert.deepEqual(refs(store.since(0, true)), ["r6", "r2"]);
  });

  it("should list markers of one date in the order they were read, from that date on", function () {
    const store = new UnclaimedMarkers();
    store.add(item({ s: "COMMAND_COMPLETE", ref: "first" }, { date: 20 }), new Set());
    store.add(item({ s: "COMMAND_COMPLETE", ref: "second" }, { date: 20 }), new Set());
    store.add(item({ s: "COMMAND_COMPLETE", ref: "before" }, { date: 19 }), new Set());
    assert.deepEqual(refs(store.since(20, false)), ["first", "second"]);
    assert.deepEqual(refs(store.since(19, false)), ["before", "first", "second"]);
  });

  it("should index a string of 512 characters and search a longer one", function () {
    const store = new UnclaimedMarkers();
    const at512 = `${"x".repeat(506)} cmd-9`;
    assert.equal(at512.length, 512);
    const indexed = item({ s: "COMMAND_START", ref: at512 }, { date: 1 });
    const searched = item({ s: "COMMAND_COMPLETE", ref: `y${at512}` }, { date: 2 });
    store.add(indexed, new Set([5]));
    store.add(searched, new Set([5]));
    assert.deepEqual(store.withId("cmd-9"), [indexed, searched]);
  });
});
