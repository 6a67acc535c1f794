// nodes/lib/commands/markers.ts: a command marker is found wherever its name stands in an inbox
// event's elems, and so is any event id it mentions (docs/api-notes.md, Markers).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { markerOf, idsIn, MARKERS } = lib("commands/markers");

const ID = "e5f3c1a2b0000000000000abc";
const event = (elems) => ({ id: "e000000000000000000000001", creationDate: 1, elems });

describe("unit: commands/markers", function () {
  it("should know the three command markers", function () {
    assert.deepEqual([...MARKERS], ["COMMAND_START", "COMMAND_COMPLETE", "COMMAND_FAULT"]);
  });

  it("should find a marker as a value, as a key, and nested", function () {
    assert.equal(markerOf(event({ status: "COMMAND_COMPLETE" })), "COMMAND_COMPLETE");
    assert.equal(markerOf(event({ COMMAND_FAULT: { ref: ID } })), "COMMAND_FAULT");
    assert.equal(markerOf(event({ cmd: { result: { s: "COMMAND_START" } } })), "COMMAND_START");
  });

  it("should find none in other inbox events", function () {
    for (const elems of [
      { status: "PUSH_CONFIGURATION_COMPLETE" },
      { text: "COMMAND_COMPLETE soon" },
      { n: 5, on: true },
      {},
      undefined,
      null,
    ])
      assert.equal(markerOf(event(elems)), undefined, JSON.stringify(elems));
  });

  it("should stop looking past a bounded depth and number of items", function () {
    let deep = { status: "COMMAND_COMPLETE" };
    for (let i = 0; i < 20; i++) deep = { x: deep };
    assert.equal(markerOf(event(deep)), undefined);
    const wide = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    wide.zz = "COMMAND_COMPLETE";
    assert.equal(markerOf(event(wide)), undefined);
  });

  it("should list the event ids mentioned anywhere in the elems, not the event's own", function () {
    const other = "e5f3c1a2b0000000000000def";
    assert.deepEqual(idsIn(event({ cmd: { status: "COMMAND_COMPLETE", ref: ID } })), [ID]);
    assert.deepEqual(idsIn(event({ [ID]: "COMMAND_COMPLETE", note: `after ${other}` })), [
      ID,
      other,
    ]);
    assert.deepEqual(idsIn(event({ status: "COMMAND_COMPLETE" })), []);
    assert.deepEqual(idsIn(event({ ref: "E5F3C1A2B0000000000000ABC" })), [], "ids are lower case");
  });
});
