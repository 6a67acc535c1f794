// nodes/lib/commands/markers.ts: a command marker is found wherever its name stands in an inbox
// event's elems, with every other string it holds, and the command it answers is found among
// those strings whatever the shape of the server's ids (docs/api-notes.md, Markers).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { markerOf, namesSomeId, IdIndex, MARKERS, holdsId, tokensOf } = lib("commands/markers");

const HEX_ID = "e5f3c1a2b0000000000000abc";
const UUID = "0b7c1b1e-8a52-4c4e-9d7e-2f1b6c3a9d01";
const event = (elems) => ({ id: "e000000000000000000000001", creationDate: 1, elems });

describe("unit: commands/markers", function () {
  it("should know the three command markers", function () {
    assert.deepEqual([...MARKERS], ["COMMAND_START", "COMMAND_COMPLETE", "COMMAND_FAULT"]);
  });

  it("should find a marker as a value, as a key, and nested, with the strings around it", function () {
    const e = event({ status: "COMMAND_COMPLETE", ref: HEX_ID });
    const m = markerOf(e);
    assert.equal(m.name, "COMMAND_COMPLETE");
    assert.equal(m.event, e);
    assert.deepEqual([...m.strings].sort(), [HEX_ID, "ref", "status"]);
    assert.equal(markerOf(event({ COMMAND_FAULT: { ref: HEX_ID } })).name, "COMMAND_FAULT");
    assert.equal(
      markerOf(event({ cmd: { result: { s: "COMMAND_START" } } })).name,
      "COMMAND_START",
    );
  });

  it("should hold the numbers of a marker as their decimal text, as ids of a server with numeric ids", function () {
    const m = markerOf(event({ cmd: { status: "COMMAND_COMPLETE", ref: 17, at: 1e21, x: 7.1 } }));
    assert.deepEqual([...m.strings].sort(), [
      "1000000000000000000000",
      "17",
      "7.1",
      "at",
      "cmd",
      "ref",
      "status",
      "x",
    ]);
    const odd = markerOf(event({ status: "COMMAND_FAULT", a: NaN, b: Infinity, c: true, d: null }));
    assert.deepEqual([...odd.strings].sort(), ["a", "b", "c", "d", "status"]);
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

  it("should tell whether a marker names some id of a known shape", function () {
    assert.equal(namesSomeId(markerOf(event({ s: "COMMAND_COMPLETE", ref: HEX_ID }))), true);
    assert.equal(namesSomeId(markerOf(event({ s: "COMMAND_COMPLETE", ref: `cmd ${UUID}` }))), true);
    assert.equal(namesSomeId(markerOf(event({ s: "COMMAND_COMPLETE", ref: "42" }))), false);
    assert.equal(namesSomeId(markerOf(event({ s: "COMMAND_COMPLETE" }))), false);
  });

  it("should tell whether a string is or holds an id as a whole token", function () {
    assert.equal(holdsId("7", "7"), true);
    assert.equal(holdsId("cmd 7", "7"), true);
    assert.equal(holdsId("17 and 7", "7"), true);
    assert.equal(holdsId("17", "7"), false);
    assert.equal(holdsId("cmd-421", "cmd-42"), false);
    assert.equal(holdsId("anything", ""), false, "an empty id is in every string: never held");
    assert.equal(holdsId("", ""), false);
    assert.deepEqual(tokensOf("done: cmd-42, 17/x"), ["done", "cmd-42", "17", "x"]);
  });

  it("should take a full stop after an id as the end of a sentence, not a longer id", function () {
    assert.equal(holdsId("Command 7.", "7"), true);
    assert.equal(
      holdsId("done e5f3c1a2b0000000000000abc. Next", "e5f3c1a2b0000000000000abc"),
      true,
    );
    assert.equal(holdsId("7.1", "7"), false);
    assert.equal(holdsId("7..", "7"), false);
  });

  describe("IdIndex", function () {
    it("should find the id a string is, or contains, whatever its shape", function () {
      const index = new IdIndex();
      index.set(HEX_ID, "hex");
      index.set("cmd-7", "short");
      assert.equal(index.find(["x", HEX_ID]), "hex");
      assert.equal(index.find([`done: ${HEX_ID}!`]), "hex");
      assert.equal(index.find(["ran cmd-7 ok"]), "short");
      assert.equal(index.find(["nothing", "here"]), undefined);
      assert.equal(index.size, 2);
      assert.deepEqual([...index.keys()].sort(), ["cmd-7", HEX_ID].sort());
    });

    it("should prefer an exact string to one that merely contains an id", function () {
      const index = new IdIndex();
      index.set("ab", "inside");
      index.set("xaby", "exact");
      assert.equal(index.find(["xaby"]), "exact");
    });

    it("should find an id inside a string only as a whole token, never as part of a longer id", function () {
      const index = new IdIndex();
      index.set("7", "seven");
      index.set("cmd-42", "cmd-42");
      index.set("1", "one");
      for (const foreign of [
        "17",
        "71",
        "cmd-421",
        "xcmd-42",
        "2001",
        "7.1",
        "cmd_7",
        "done 17",
        "v1.0",
      ])
        assert.equal(index.find([foreign]), undefined, foreign);
      assert.equal(index.find(["command 7 done"]), "seven");
      assert.equal(index.find(["id=7"]), "seven");
      assert.equal(index.find(["/event/7"]), "seven");
      assert.equal(index.find(["ran cmd-42, ok"]), "cmd-42");
      assert.equal(index.find(["for 2001 and 1"]), "one");
    });

    it("should forget deleted ids and their lengths", function () {
      const index = new IdIndex();
      index.set("abc", 1);
      index.set("abc", 2);
      assert.equal(index.get("abc"), 2);
      index.delete("abc");
      index.delete("abc");
      assert.equal(index.size, 0);
      assert.equal(index.find(["xxabcxx"]), undefined);
      assert.equal(new IdIndex().find(["anything"]), undefined);
    });
  });
});
