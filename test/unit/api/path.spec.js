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

  it("should refuse a name holding a piece of dots that a server decoding %2F reads as another path", function () {
    // Issue 35, item 14: x%2F..%2Fpump-3 passed, and a server that decodes %2F reads x/../pump-3.
    for (const name of [
      "x%2F..%2Fpump-3",
      "x/../pump-3",
      "x%2f.%2fy",
      "..%2Fpump-3",
      "x%2F..",
      "x%5C..%5Cy",
      "x\\..\\y",
      "x%252F..%252Fy",
    ])
      assert.throws(() => checkName(name, "the device"), { code: "dot-name" }, name);
    for (const name of ["x..y", "x/..y", "a.b/c", "pump-3.v2", "x%2Fy"])
      assert.equal(checkName(name, "the device"), name);
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
