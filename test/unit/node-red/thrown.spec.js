// nodes/lib/node-red/thrown.ts: what a thrown value is, whatever realm threw it (a Function node
// runs in its own vm context, with its own Error and RangeError).
"use strict";
const assert = require("node:assert/strict");
const vm = require("node:vm");
const { lib } = require("../../support/lib");

const { isErrorLike, isStackOverflow, textOf } = lib("node-red/thrown");

/** What `code` throws when run in a fresh context. */
function thrownIn(code) {
  try {
    vm.runInNewContext(code);
  } catch (err) {
    return err;
  }
  throw new Error("nothing thrown");
}

describe("unit: node-red/thrown", function () {
  it("should know an Error of another realm, which instanceof does not", function () {
    const err = thrownIn('throw new TypeError("not ready")');
    assert.equal(err instanceof Error, false, "the realms are the same");
    assert.equal(isErrorLike(err), true);
    assert.equal(textOf(err), "TypeError: not ready");
    assert.equal(isErrorLike({ name: "Error", message: "a plain object" }), false);
    assert.equal(isErrorLike("Error: text"), false);
  });

  it("should read the text of an error whose toString throws, and of any value", function () {
    const err = thrownIn('const e = new Error("boom"); e.toString = () => { throw e; }; throw e');
    assert.equal(textOf(err), "Error: boom");
    assert.equal(textOf("plain text"), "plain text");
    assert.equal(textOf(42), "42");
    const hostile = {
      toString() {
        throw new Error("no");
      },
    };
    assert.equal(textOf(hostile), "an unprintable value");
  });

  it("should know a stack overflow of either realm and nothing else", function () {
    const foreign = thrownIn("const f = () => f() + 1; f()");
    let own;
    try {
      const f = () => f() + 1;
      f();
    } catch (err) {
      own = err;
    }
    assert.equal(foreign instanceof RangeError, false, "the realms are the same");
    assert.equal(isStackOverflow(foreign), true);
    assert.equal(isStackOverflow(own), true);
    assert.equal(isStackOverflow(thrownIn("new Array(-1)")), false);
    assert.equal(isStackOverflow(new Error("Maximum call stack size exceeded")), false);
  });
});
