// nodes/lib/api/errors.ts: the one error type, its sentence from the catalog, and the plain data a
// flow sees in msg.edgeError.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { EdgeError, interpolate } = lib("api/errors");

describe("unit: api/errors", function () {
  it("should fill __name__ placeholders and leave unknown ones", function () {
    assert.equal(interpolate("a __x__ b __y__", { x: 1 }), "a 1 b __y__");
    assert.equal(interpolate("no placeholders", { x: 1 }), "no placeholders");
  });

  it("should build its message from the catalog's sentence for the code", function () {
    const err = new EdgeError("queue-full", { max: 5 });
    assert.equal(
      err.message,
      "Too many requests waiting for this account (5 queued): the message was not sent",
    );
    assert.equal(String(err), err.message, "toString is the sentence alone, for msg.error");
    assert.equal(err.name, "EdgeError");
    assert.ok(err instanceof Error);
  });

  it("should carry the details and give them to flows as plain data", function () {
    const cause = new Error("socket hang up");
    const err = new EdgeError(
      "reset-uncertain",
      { origin: "http://x", method: "POST", path: "/v5.0/c/event" },
      { method: "POST", path: "/v5.0/c/event", mayHaveBeenSent: true, cause },
    );
    assert.deepEqual(JSON.parse(JSON.stringify(err)), {
      name: "EdgeError",
      code: "reset-uncertain",
      message: err.message,
      errors: [],
      method: "POST",
      path: "/v5.0/c/event",
      mayHaveBeenSent: true,
    });
    assert.equal(err.underlying, cause);
    assert.ok(!Object.keys(err).includes("underlying"), "the cause stays out of copies");
    assert.ok(!Object.keys(err).includes("cause"), "Node-RED would copy a cause into msg.error");
  });

  it("should default to not sent, with no errors", function () {
    const err = new EdgeError("no-account");
    assert.equal(err.mayHaveBeenSent, false);
    assert.deepEqual(err.errors, []);
    assert.equal(err.status, undefined);
  });
});
