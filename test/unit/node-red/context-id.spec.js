// nodes/lib/node-red/context-id.ts: the name Node-RED keeps a node's context under, which a deploy
// that re-creates the node keeps.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { contextIdOf } = lib("node-red/context-id");

describe("unit: node-red/context-id", function () {
  it("should be the node's id and flow", function () {
    assert.equal(contextIdOf({ id: "n1", z: "f1" }), "n1:f1");
  });

  it("should be the template node's id inside a subflow instance, whose id changes", function () {
    assert.equal(contextIdOf({ id: "n1-generated", _alias: "n1", z: "sf1" }), "n1:sf1");
  });

  it("should do without a flow, as a config node has none", function () {
    assert.equal(contextIdOf({ id: "n1" }), "n1:");
    assert.equal(contextIdOf({ id: "n1", _alias: "" }), "n1:");
  });
});
