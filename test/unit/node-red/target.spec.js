// nodes/lib/node-red/target.ts: the device or stream a message is about, from the node's property
// (with mustache) or, when that is empty, from a msg property.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { resolveTarget } = lib("node-red/target");

describe("unit: node-red/target", function () {
  it("should render the node's property against the msg", function () {
    assert.equal(
      resolveTarget("dev-{{topic}}", { topic: "7" }, "deviceId", "device-empty"),
      "dev-7",
    );
    assert.equal(resolveTarget(" lcd-board ", {}, "deviceId", "device-empty"), "lcd-board");
  });

  it("should take the msg property when the node's is empty, numbers included", function () {
    assert.equal(resolveTarget("", { deviceId: " pump-3 " }, "deviceId", "device-empty"), "pump-3");
    assert.equal(resolveTarget(undefined, { streamId: 42 }, "streamId", "stream-empty"), "42");
    assert.equal(resolveTarget("  ", { deviceId: "x" }, "deviceId", "device-empty"), "x");
  });

  it("should fail with the given code when nothing is left", function () {
    assert.throws(() => resolveTarget("{{nothing}}", {}, "deviceId", "device-empty"), {
      code: "device-empty",
    });
    assert.throws(() => resolveTarget("", { streamId: { id: 1 } }, "streamId", "stream-empty"), {
      code: "stream-empty",
    });
    assert.throws(() => resolveTarget("", {}, "inbox", "inbox-empty"), { code: "inbox-empty" });
  });
});
