// nodes/lib/records/context-id.ts: the name that state kept in memory across a deploy is found
// again under by the node's new instance.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { contextIdOf } = lib("records/context-id");

describe("unit: records/context-id", function () {
  it("should be the node's id alone, which stays when the node moves to another tab", function () {
    assert.equal(contextIdOf({ id: "n1", z: "f1" }), "n1");
    assert.equal(contextIdOf({ id: "n1", z: "f2" }), contextIdOf({ id: "n1", z: "f1" }));
  });

  it("should be the template node's id and the instance inside a subflow, whose ids change", function () {
    assert.equal(contextIdOf({ id: "n1-generated", _alias: "n1", z: "sf1" }), "n1:sf1");
    assert.notEqual(
      contextIdOf({ id: "n1-a", _alias: "n1", z: "sf1" }),
      contextIdOf({ id: "n1-b", _alias: "n1", z: "sf2" }),
    );
  });

  it("should do without a flow or an alias", function () {
    assert.equal(contextIdOf({ id: "n1" }), "n1");
    assert.equal(contextIdOf({ id: "n1", _alias: "" }), "n1");
  });
});
