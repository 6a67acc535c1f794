// What a Function node builds, as most flows build a command or a state: its code runs in its own
// vm context, so its objects and errors come from another realm than ours (their prototypes are
// not our Object.prototype and Error.prototype). Real Function nodes in a real Node-RED against
// the simulator.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("../support/simulator");
const { next, noMessage, withRedAndSimulator, caughtCode } = require("../support/red");
const { startFlow } = require("../support/flow");
const { SEED } = require("../support/seed");

const FUNCTION = require("@node-red/nodes/core/function/10-function.js");

/** A Function node "fn" running `code`, wired to the node under test "n1", wired to "out". */
async function start(sim, code, node) {
  return startFlow(
    sim,
    [
      { id: "fn", type: "function", func: code, outputs: 1, wires: [["n1"]] },
      { id: "n1", wires: [["out"]], ...node },
      { id: "out", type: "helper" },
    ],
    { extraTypes: [FUNCTION] },
  );
}

const SEND = { type: "edge-send-command", target: "device", device: "lcd-board", elems: "" };

describe("a Function node's objects and errors", function () {
  const env = withRedAndSimulator();

  it("sends a command whose elems a Function node built", async function () {
    const { get } = await start(
      env.sim,
      'return { payload: { "/lcd/txt1": "hi", lcd: { txt2: "nested" } } };',
      SEND,
    );
    get("fn").receive({});
    const msg = await next(get("out"));
    assert.deepEqual(msg.payload.elems, { "/lcd/txt1": "hi", lcd: { txt2: "nested" } });
    const [req] = (await control(env.sim, "GET", "/requests?limit=1")).json;
    assert.deepEqual(JSON.parse(req.body).elems, { "/lcd/txt1": "hi", lcd: { txt2: "nested" } });
  });

  it("merges a state a Function node built into the device", async function () {
    const { get } = await start(env.sim, 'msg.payload = { "/lcd/txt2": "merged" }; return msg;', {
      type: "edge-device-state",
      device: SEED.lcd.id,
      mode: "merge",
    });
    get("fn").receive({});
    const msg = await next(get("out"));
    assert.deepEqual(msg.payload, { "/lcd/txt1": "Hello", "/lcd/txt2": "merged" });
  });

  it("still refuses a Map, a Date or a class instance a Function node built", async function () {
    const { get } = await start(
      env.sim,
      `const values = {
         map: new Map([["/lcd/txt1", "x"]]),
         date: new Date(),
         reading: new (class Reading {})(),
       };
       return { payload: values[msg.topic] };`,
      { type: "edge-device-state", device: SEED.lcd.id, mode: "replace" },
    );
    for (const [topic, type] of [
      ["map", "Map"],
      ["date", "Date"],
      ["reading", "Reading"],
    ]) {
      get("fn").receive({ topic });
      const caught = await next(get("caught"));
      assert.equal(caughtCode(caught), "not-plain", topic);
      assert.match(caught.error.message, new RegExp(`must be a plain object .* got a ${type}`));
    }
    assert.equal(env.sim.stats().total, 0, "a request was sent");
  });

  it("reports an Error a Function node's getter throws as that error, not an unprintable value", async function () {
    // Node-RED hands a msg to the only node wired without copying it: the getter arrives as is.
    // The error's toString() throws, so only its name and message, read as an Error's of any
    // realm, can say what it is.
    const { get } = await start(
      env.sim,
      `const err = new TypeError("not ready");
       err.toString = () => { throw new Error("no text"); };
       Object.defineProperty(msg, "payload", {
         enumerable: true, configurable: true, get() { throw err; },
       });
       return msg;`,
      SEND,
    );
    get("fn").receive({});
    const caught = await next(get("caught"));
    assert.equal(caughtCode(caught), "internal");
    assert.match(caught.error.message, /Unexpected error: TypeError: not ready/);
    await noMessage(get("out"), 50);
    assert.equal(get("out").received.length, 0);
  });

  it("reports a stack overflow in a Function node's getter as a msg too deep, in its realm too", async function () {
    const { get } = await start(
      env.sim,
      'const f = (n) => f(n + 1) + 1; Object.defineProperty(msg, "payload", { enumerable: true, configurable: true, get() { return f(0); } }); return msg;',
      SEND,
    );
    get("fn").receive({});
    const caught = await next(get("caught"));
    assert.equal(caughtCode(caught), "too-deep-msg");
    assert.deepEqual(caught.edgeError.removed, ["payload"]);
  });
});
