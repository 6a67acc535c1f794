// nodes/lib/node-red/validate.ts: user input checked before any request, and what is checked is
// what is sent (fresh plain copies).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const v = lib("node-red/validate");

describe("unit: node-red/validate", function () {
  describe("checkState", function () {
    it("should return a plain copy of a state of strings, finite numbers and booleans", function () {
      const input = { "/lcd/txt1": "hi", "/app/period/value": 5, "/app/enable/value": false };
      const out = v.checkState(input, "msg.payload");
      assert.deepEqual(out, input);
      assert.notEqual(out, input);
    });

    it("should refuse what is not a plain object, an empty one, nulls and other values", function () {
      const cases = [
        ["text", "not-object"],
        [[1], "not-object"],
        [null, "not-object"],
        [Buffer.from("x"), "not-plain"],
        [new Map([["a", 1]]), "not-plain"],
        [new Date(0), "not-plain"],
        [{}, "empty"],
        [{ a: null }, "null-value"],
        [{ a: [1] }, "bad-value"],
        [{ a: { b: 1 } }, "bad-value"],
        [{ a: NaN }, "bad-value"],
        [{ a: Infinity }, "bad-value"],
      ];
      for (const [value, code] of cases)
        assert.throws(() => v.checkState(value, "msg.payload"), { code }, String(value));
    });

    it("should keep a __proto__ key as a key", function () {
      const out = v.checkState(JSON.parse('{"__proto__": "x"}'), "msg.payload");
      assert.deepEqual(Object.keys(out), ["__proto__"]);
      assert.equal(Object.getPrototypeOf(out), Object.prototype);
    });
  });

  describe("checkPatch", function () {
    it("should allow null, which removes a key", function () {
      assert.deepEqual(v.checkPatch({ a: null, b: 1 }, "msg.payload"), { a: null, b: 1 });
      assert.deepEqual(v.checkPatch({}, "msg.payload"), {});
      assert.throws(() => v.checkPatch({ a: [] }, "msg.payload"), { code: "bad-value" });
      assert.throws(() => v.checkPatch(7, "msg.payload"), { code: "not-object" });
    });
  });

  describe("checkElems", function () {
    it("should copy flat and nested elems", function () {
      const nested = { leds: { tri: { blue: { enable: true } } }, "/lcd/txt1": "x" };
      assert.deepEqual(v.checkElems(nested, "Elems"), nested);
      const object = Object.create(null);
      object.a = 1;
      assert.deepEqual({ ...v.checkElems(object, "Elems") }, { a: 1 });
    });

    it("should refuse empty parts, cycles, deep nesting and values of other kinds", function () {
      const cycle = { a: {} };
      cycle.a.back = cycle;
      let deep = { x: 1 };
      for (let i = 0; i < v.MAX_ELEMS_DEPTH + 1; i++) deep = { d: deep };
      const cases = [
        [{}, "empty"],
        [{ a: {} }, "empty"],
        [cycle, "circular"],
        [deep, "too-deep"],
        [{ a: null }, "bad-value"],
        [{ a: [1] }, "bad-value"],
        [{ a: new Date(0) }, "bad-value"],
        [new Map(), "not-plain"],
      ];
      for (const [value, code] of cases)
        assert.throws(() => v.checkElems(value, "Elems"), { code });
    });

    it("should name where in the elems a bad value is", function () {
      assert.throws(
        () => v.checkElems({ a: { b: [1] } }, "Elems"),
        (err) => {
          assert.equal(err.params.key, "a/b");
          return true;
        },
      );
    });
  });

  describe("objects from another realm (a Function node's vm context)", function () {
    const vm = require("node:vm");
    /** Evaluates `code` in a fresh context, as Node-RED runs a Function node's code. */
    const foreign = (code) => vm.runInNewContext(code);

    it("should take a plain object built in another realm, and copy it into this one", function () {
      const value = foreign('({ "/lcd/txt1": "hi", lcd: { txt2: "there" } })');
      assert.notEqual(Object.getPrototypeOf(value), Object.prototype, "not a foreign object");
      assert.equal(v.isPlainObject(value), true);
      assert.equal(v.typeName(value), "an object");
      const elems = v.checkElems(value, "msg.payload");
      assert.deepEqual(elems, { "/lcd/txt1": "hi", lcd: { txt2: "there" } });
      assert.equal(Object.getPrototypeOf(elems.lcd), Object.prototype);
      assert.deepEqual(v.checkState(foreign('({ "/a": 1 })'), "msg.payload"), { "/a": 1 });
      assert.deepEqual(v.checkPatch(foreign('({ "/a": null })'), "msg.payload"), { "/a": null });
      assert.equal(v.isPlainObject(foreign("Object.create(null)")), true);
    });

    it("should still refuse a foreign Map, Date, array, class instance or typed array", function () {
      const cases = [
        ["new Map([['a', 1]])", "not-plain", "a Map"],
        ["new Date(0)", "not-plain", "a Date"],
        ["new (class Reading { constructor() { this.a = 1; } })()", "not-plain", "a Reading"],
        ["new Uint8Array(2)", "not-plain", "a Uint8Array"],
        ["[1]", "not-object", "an array"],
      ];
      for (const [code, expected, type] of cases) {
        const value = foreign(code);
        assert.equal(v.isPlainObject(value), false, code);
        assert.throws(() => v.checkState(value, "msg.payload"), { code: expected }, code);
        assert.equal(v.typeName(value), type, code);
      }
    });

    it("should refuse objects dressed up as plain ones", function () {
      // A fake Object.prototype: its constructor is named Object but is not the built-in one.
      const fakeProto = Object.create(null);
      fakeProto.constructor = function Object() {};
      fakeProto.constructor.prototype = fakeProto;
      const cases = [
        // A class instance claiming the tag of a plain object.
        new (class Tagged {
          get [Symbol.toStringTag]() {
            return "Object";
          }
        })(),
        // An own `constructor` that says Object.
        Object.assign(Object.create(new Map()), { constructor: Object }),
        Object.create(fakeProto),
        // A foreign object whose own tag says it is something else.
        foreign('({ [Symbol.toStringTag]: "Map", a: 1 })'),
        // A foreign Object.prototype with its constructor replaced.
        foreign("const p = Object.create(null); p.constructor = Object; Object.create(p)"),
        // A proxy whose traps throw.
        new Proxy(
          {},
          {
            getPrototypeOf() {
              throw new Error("trap");
            },
          },
        ),
      ];
      for (const value of cases) assert.equal(v.isPlainObject(value), false);
    });
  });

  describe("checkInteger", function () {
    it("should take whole numbers in range, as numbers or decimal text", function () {
      assert.equal(v.checkInteger(5, "limit", 1, 10), 5);
      assert.equal(v.checkInteger(" 10 ", "limit", 1, 10), 10);
      assert.equal(v.checkInteger("-3", "x", -5, 0), -3);
    });

    it("should refuse anything else, and show what it got", function () {
      for (const value of [0, 11, 1.5, NaN, "5a", "", null, undefined, true, [], "1e1"])
        assert.throws(() => v.checkInteger(value, "limit", 1, 10), { code: "integer" });
      assert.throws(
        () => v.checkInteger("abc", "limit", 1, 10),
        (err) => {
          assert.equal(err.params.value, '"abc"');
          return true;
        },
      );
    });
  });

  describe("parseJson and typeName", function () {
    it("should parse JSON text or say why it is not", function () {
      assert.deepEqual(v.parseJson('{"a":1}', "Elems"), { a: 1 });
      assert.throws(() => v.parseJson("{a:1}", "Elems"), { code: "bad-json" });
    });

    it("should name a value's kind for a message", function () {
      assert.equal(v.typeName(null), "null");
      assert.equal(v.typeName([]), "an array");
      assert.equal(v.typeName(NaN), "NaN");
      assert.equal(v.typeName({}), "an object");
      assert.equal(v.typeName(new Map()), "a Map");
      assert.equal(v.typeName(Object.create(Object.create(null))), "an object of another kind");
      assert.equal(v.typeName("x"), "a string");
      assert.equal(v.isPlainObject(Object.create(null)), true);
      assert.equal(v.isPlainObject(new (class Thing {})()), false);
    });
  });
});
