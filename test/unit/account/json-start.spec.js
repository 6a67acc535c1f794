// lib/account/json-start.ts alone: the start of a value's JSON, as JSON.stringify writes it, from
// a walk that stops once it has written enough (the sidebar's elems).
"use strict";
const assert = require("node:assert/strict");
const vm = require("node:vm");
const { jsonStart } = require("../../../dist/nodes/lib/account/json-start");

describe("lib/account/json-start", function () {
  it("writes what JSON.stringify writes, whole, when it fits", function () {
    const values = [
      { a: 1, b: "two", c: [true, null, undefined, () => 1, Symbol("s")], d: undefined },
      { nested: { deep: [{ x: NaN, y: -Infinity, z: -0 }] }, 2: "index first", 1: "one" },
      [new Date(0), new Number(3), new String("s"), new Boolean(false), { toJSON: () => "own" }],
      'a "quoted" line\nwith\u2028 a separator',
      42,
      null,
      Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
      vm.runInNewContext("({ a: [1, 2], n: new Number(5) })"),
    ];
    for (const v of values)
      assert.deepEqual(jsonStart(v, 10_000), { text: JSON.stringify(v), whole: true });
    for (const v of [undefined, () => 1, Symbol("s")])
      assert.deepEqual(jsonStart(v, 100), { text: "", whole: true });
  });

  it("stops at the limit, with the start of JSON.stringify's text", function () {
    const big = { list: Array.from({ length: 10_000 }, (_, i) => ({ i, s: "x".repeat(i % 50) })) };
    const { text, whole } = jsonStart(big, 500);
    assert.equal(whole, false);
    assert.ok(text.length >= 500 && text.length < 600, `${text.length} characters`);
    assert.ok(JSON.stringify(big).startsWith(text));
    const long = jsonStart({ s: "y".repeat(1_000_000) }, 100);
    assert.equal(long.whole, false);
    assert.ok(long.text.length < 200);
  });

  it("throws as JSON.stringify does for a cycle or a BigInt it meets, not for one past the limit", function () {
    const cyclic = { a: 1 };
    cyclic.self = cyclic;
    assert.throws(() => jsonStart(cyclic, 1000), TypeError);
    assert.throws(() => jsonStart({ n: 1n }, 1000), TypeError);
    assert.equal(jsonStart({ s: "x".repeat(200), n: 1n }, 100).whole, false);
    // The same object twice, not inside itself, is no cycle.
    const shared = { k: 1 };
    assert.equal(jsonStart([shared, shared], 1000).text, JSON.stringify([shared, shared]));
  });
});
