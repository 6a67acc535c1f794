// nodes/lib/api/redact.ts: the token, whole or in pieces of 8 or more characters, never survives
// in a text taken from an answer, and a cut is made after that.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { redact, cut, REDACTED, MIN_PIECE } = lib("api/redact");

const TOKEN = "demo-token-0123456789abcdef";

describe("unit: api/redact", function () {
  it("should replace every copy of the token", function () {
    assert.equal(redact(`a ${TOKEN} b ${TOKEN}`, TOKEN), `a ${REDACTED} b ${REDACTED}`);
  });

  it("should replace a piece of the token as long as MIN_PIECE or longer", function () {
    const piece = TOKEN.slice(5, 5 + MIN_PIECE);
    assert.equal(redact(`x${piece}y`, TOKEN), `x${REDACTED}y`);
    const tail = TOKEN.slice(-12);
    assert.equal(redact(`cut: ${tail}`, TOKEN), `cut: ${REDACTED}`);
    for (let at = 0; at + MIN_PIECE <= TOKEN.length; at++)
      assert.ok(!redact(`>${TOKEN.slice(at)}<`, TOKEN).includes(TOKEN.slice(at, at + MIN_PIECE)));
  });

  it("should leave shorter pieces and other text alone", function () {
    const short = TOKEN.slice(0, MIN_PIECE - 1);
    assert.equal(redact(`x${short}y`, TOKEN), `x${short}y`);
    assert.equal(redact("nothing here", TOKEN), "nothing here");
    assert.equal(redact("", TOKEN), "");
    assert.equal(redact("abc", ""), "abc");
  });

  it("should replace a short token only whole", function () {
    assert.equal(redact("key=abcd, abc", "abcd"), `key=${REDACTED}, abc`);
  });

  it("should cut a long text to the length asked, with an ellipsis", function () {
    assert.equal(cut("abcdefghij", 6), "abc...");
    assert.equal(cut("abc", 6), "abc");
  });
});
