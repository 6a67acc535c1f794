// nodes/lib/commands/markers.ts at its edges: the first marker name in an event is its name and a
// later one just a string; elems are walked 8 levels and 500 items deep, strings searched for ids
// up to 4,096 characters; an empty id names nothing; an id held as a whole token further on in a
// string counts; an index of ids still finds an id whose length another deleted id had.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { markerOf, namesCommand, holdsId, tokensOf, IdIndex } = lib("commands/markers");

const event = (elems) => ({ id: "e000000000000000000000001", creationDate: 1, elems });

/** `inner` nested `levels` objects down. */
function nested(levels, inner) {
  let v = inner;
  for (let i = 0; i < levels; i++) v = { x: v };
  return v;
}

describe("unit: commands/markers, bounds", function () {
  it("should name a marker by the first marker name in it, and keep a later one as a string", function () {
    const m = markerOf(event({ status: "COMMAND_START", next: "COMMAND_COMPLETE" }));
    assert.equal(m.name, "COMMAND_START");
    assert.ok(m.strings.includes("COMMAND_COMPLETE"));
  });

  it("should walk elems 8 objects deep and no deeper", function () {
    assert.equal(markerOf(event(nested(8, { s: "COMMAND_FAULT" })))?.name, "COMMAND_FAULT");
    assert.equal(markerOf(event(nested(9, { s: "COMMAND_FAULT" }))), undefined);
  });

  it("should walk 500 items of elems and no more", function () {
    const wide = (n) => {
      const elems = {};
      for (let i = 0; i < n - 1; i++) elems[`k${i}`] = i;
      elems.last = "COMMAND_COMPLETE";
      return elems;
    };
    // elems itself is the first item, each value one more.
    assert.equal(markerOf(event(wide(499)))?.name, "COMMAND_COMPLETE");
    assert.equal(markerOf(event(wide(500))), undefined);
  });

  it("should search a string for the command's id only in its first 4,096 characters", function () {
    const id = "e5f3c1a2b0000000000000abc";
    const near = `${"x ".repeat(2000)}${id}`;
    const far = `${"x ".repeat(2100)}${id}`;
    assert.equal(namesCommand(event({ s: "COMMAND_COMPLETE", log: near }), id), true);
    assert.equal(namesCommand(event({ s: "COMMAND_COMPLETE", log: far }), id), false);
  });

  it("should tell a marker that names a command, by text or number, from one that does not", function () {
    assert.equal(namesCommand(event({ s: "COMMAND_COMPLETE", ref: 17 }), "17"), true);
    assert.equal(namesCommand(event({ s: "COMMAND_COMPLETE", ref: "cmd 17 ok" }), "17"), true);
    assert.equal(namesCommand(event({ s: "COMMAND_COMPLETE", ref: 170 }), "17"), false);
    assert.equal(namesCommand(event({ note: "17" }), "17"), false, "not a marker");
    for (const none of ["", null, undefined])
      assert.equal(namesCommand(event({ s: "COMMAND_COMPLETE", ref: "" }), none), false);
  });

  it("should find an id held as a whole token after one that is part of a longer id", function () {
    assert.equal(holdsId("7a then 7", "7"), true);
    assert.equal(holdsId("7a then 7b", "7"), false);
    assert.deepEqual(tokensOf(" !? "), []);
  });

  it("should find no empty id in an index, and ids of a length another id deleted had", function () {
    const index = new IdIndex();
    index.set("", "empty");
    assert.equal(index.find(["anything"]), undefined, "an empty id is in every string: never held");
    index.set("abc", 1);
    index.set("xyz", 2);
    index.delete("abc");
    assert.equal(index.find(["ran xyz now"]), 2);
    assert.equal(index.find(["ran abc now"]), undefined);
  });
});
