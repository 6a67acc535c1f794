// nodes/lib/node-red/copyable.ts: whether Node-RED can copy a msg (for a second wire, a Catch or
// a Complete node), checked before it is handed over.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const c = lib("node-red/copyable");

function nested(depth) {
  let value = { v: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("unit: node-red/copyable", function () {
  it("should find nesting past the limit, and getters that throw", function () {
    assert.equal(c.uncopyable(nested(c.MAX_MSG_DEPTH)), false);
    assert.equal(c.uncopyable(nested(c.MAX_MSG_DEPTH + 1)), true);
    assert.equal(c.uncopyable(nested(100_000)), true);
    const cycle = { a: {} };
    cycle.a.back = cycle;
    assert.equal(c.uncopyable(cycle), false);
    const hostile = {
      get x() {
        throw new Error("no");
      },
    };
    assert.equal(c.uncopyable({ inner: hostile }), true);
    assert.equal(c.uncopyable("text"), false);
  });

  it("should name the msg properties a copy could not hold, leaving out what Node-RED does not copy", function () {
    const deep = nested(5000);
    const msg = { _msgid: "m", payload: deep, topic: "t", req: { deep }, res: { deep } };
    assert.deepEqual(c.uncopyableKeys(msg), ["payload"]);
    assert.equal(c.msgUncopyable(msg), true);
    assert.equal(c.msgUncopyable({ payload: nested(10), req: { deep }, res: { deep } }), false);
    const getter = {};
    Object.defineProperty(getter, "payload", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    assert.equal(c.msgUncopyable(getter), true);
    assert.deepEqual(c.fitForCatch(msg), ["payload"]);
    assert.deepEqual(Object.keys(msg), ["_msgid", "topic", "req", "res"]);
  });

  it("should list every message of what a node sends, skipping nulls", function () {
    const [a, b, d] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    assert.deepEqual(c.messagesOf(a), [a]);
    assert.deepEqual(c.messagesOf([a, null, [b, null, d]]), [a, b, d]);
    assert.deepEqual(c.messagesOf([null, null]), []);
  });
});
