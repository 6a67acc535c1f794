// nodes/lib/api/path.ts: every name goes into a request as exactly one path segment, and names
// that cannot (dots only, unpaired surrogates) are refused before any request.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { checkName, encodeSegment } = lib("api/path");

describe("unit: api/path", function () {
  it("should encode a name as one segment", function () {
    assert.equal(encodeSegment("lcd-board"), "lcd-board");
    assert.equal(encodeSegment("a/b?c#d%e"), "a%2Fb%3Fc%23d%25e");
    assert.equal(encodeSegment("Pumpe Süd"), "Pumpe%20S%C3%BCd");
    assert.equal(encodeSegment("x..y"), "x..y");
  });

  it("should refuse a name made only of dots, however it is written", function () {
    for (const name of [".", "..", "...", "%2E%2E", ".%2e", "%252E%252E"])
      assert.throws(() => checkName(name, "the device"), { code: "dot-name" }, name);
    assert.throws(() => encodeSegment(".."), { code: "dot-name" });
  });

  it("should check every segment of a stream path", function () {
    assert.equal(
      checkName("/demo/devices/lcd-board/:inbox", "the stream"),
      "/demo/devices/lcd-board/:inbox",
    );
    assert.throws(() => checkName("/demo/devices/../:inbox", "the stream"), { code: "dot-name" });
  });

  it("should refuse a name with an unpaired surrogate, and take a paired one", function () {
    assert.throws(() => checkName("bad\uD800name", "the device"), { code: "bad-text" });
    assert.equal(encodeSegment("ok\uD83D\uDE00"), "ok%F0%9F%98%80");
  });

  it("should take a % that does not decode as it is", function () {
    assert.equal(encodeSegment("100%"), "100%25");
  });
});
