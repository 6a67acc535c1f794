// Bad input and malformed answers, table-driven: each bad input is a clear error to a Catch node
// before any request; path inputs go out encoded as one segment; answers that are not what the
// API promises are clear errors, never crashes.
"use strict";
const assert = require("node:assert/strict");
const { next, withRedAndSimulator } = require("../support/red");
const { deploy, feed, fault, requests, assertEndedOnce } = require("../support/reliability");

const SEND = { type: "edge-send-command" };
const STATE = { type: "edge-device-state" };
const LIST = { type: "edge-list-events" };
const AWAIT = { type: "edge-await-command" };
const REPLACE = { ...STATE, mode: "replace" };
const MERGE = { ...STATE, mode: "merge" };
const BY_MSG = { ...STATE, device: "" };
const NOW = Date.now();

/** Nested `depth` levels deep: { a: { a: ... { v: 1 } } }. */
function nested(depth) {
  let value = { v: 1 };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const circular = { "/lcd/txt1": "x", lcd: { txt2: "y" } };
circular.lcd.back = circular;

class Reading {
  constructor() {
    this["/lcd/txt1"] = "from a class";
  }
}

// Every bad input, on every node it can reach: [input, node, msg, expected code, message, account].
// Each must end its message with that error at a Catch node, and no request may be sent.
const BAD_INPUT = [
  // A state (replace) or a patch (merge) that is not a plain object: a Buffer, Map or {} used to
  // wipe the device, a Date to set it to a string.
  [
    "a Buffer as the state",
    REPLACE,
    { payload: Buffer.from('{"/lcd/txt1":"x"}') },
    "not-plain",
    /msg\.payload must be a plain object .* got a Buffer/,
  ],
  [
    "a Map as the state",
    REPLACE,
    { payload: new Map([["/lcd/txt1", "x"]]) },
    "not-plain",
    /got a Map/,
  ],
  ["a Date as the state", REPLACE, { payload: new Date() }, "not-plain", /got a Date/],
  [
    "a class instance as the state",
    REPLACE,
    { payload: new Reading() },
    "not-plain",
    /got a Reading/,
  ],
  ["{} as the state", REPLACE, { payload: {} }, "empty", /msg\.payload is empty/],
  [
    "a Buffer as the merge patch",
    MERGE,
    { payload: Buffer.from("x") },
    "not-plain",
    /got a Buffer/,
  ],
  ["a Map as the merge patch", MERGE, { payload: new Map([["/a", 1]]) }, "not-plain", /got a Map/],
  [
    "a Date value in a state",
    REPLACE,
    { payload: { "/a": new Date() } },
    "bad-value",
    /the value of "\/a" .* got a Date/,
  ],
  [
    "a string as the state",
    REPLACE,
    { payload: "on" },
    "not-object",
    /msg\.payload must be an object, got a string/,
  ],
  ["null as the state", REPLACE, { payload: null }, "not-object", /must be an object, got null/],
  [
    "an array as the state",
    REPLACE,
    { payload: [{ "/a": 1 }] },
    "not-object",
    /must be an object, got an array/,
  ],
  [
    "a nested value in a state",
    REPLACE,
    { payload: { "/lcd": { txt1: "x" } } },
    "bad-value",
    /the value of "\/lcd" must be a string, number or boolean, got an object/,
  ],
  [
    "an array value in a state",
    REPLACE,
    { payload: { "/a": [1, 2] } },
    "bad-value",
    /the value of "\/a" .* got an array/,
  ],
  [
    "a NaN value in a state",
    REPLACE,
    { payload: { "/a": NaN } },
    "bad-value",
    /the value of "\/a" .* got NaN/,
  ],
  [
    "a null value when replacing",
    REPLACE,
    { payload: { "/a": null } },
    "null-value",
    /the value of "\/a" is null; null removes a key and is allowed in merge mode only/,
  ],
  [
    "an array as the merge patch",
    MERGE,
    { payload: [] },
    "not-object",
    /must be an object, got an array/,
  ],
  [
    "a nested value in a merge patch",
    MERGE,
    { payload: { "/a": { b: 1 } } },
    "bad-value",
    /the value of "\/a" .* got an object/,
  ],
  [
    "a state over the account's size limit",
    REPLACE,
    { payload: { "/lcd/txt1": "x".repeat(500) } },
    "payload-too-large",
    /over the account's limit of 200 bytes/,
    { maxPayload: "200" },
  ],
  // A merge cannot write less than its patch: too big alone, it is refused before the read.
  [
    "a merge patch over the account's size limit",
    MERGE,
    { payload: { "/lcd/txt1": "x".repeat(500) } },
    "payload-too-large",
    /The request body is \d+ bytes, over the account's limit of 200 bytes/,
    { maxPayload: "200" },
  ],
  ["an unknown mode", { ...STATE, mode: "patch" }, {}, "bad-mode", /Unknown mode "patch"/],
  // Devices and streams
  [
    "an empty device after mustache",
    { ...STATE, device: "{{topic}}" },
    { topic: "" },
    "device-empty",
    /No device: set the node's Device property or msg\.deviceId/,
  ],
  [
    "a missing mustache value for the device",
    { ...STATE, device: "{{nothing}}" },
    {},
    "device-empty",
    /No device/,
  ],
  ["a blank msg.deviceId", BY_MSG, { deviceId: "   " }, "device-empty", /No device/],
  // Dots between slashes too (issue 35, item 14): a server that decodes %2F reads x/../y.
  ...["..", ".", "...", "%2E%2E", ".%2e", "%252E%252e", "../x", "x%2F..%2Fpump-3"].flatMap(
    (name) => [
      [
        `the device ${JSON.stringify(name)} to read`,
        BY_MSG,
        { deviceId: name },
        "dot-name",
        /The device ".*" is made of dots/,
      ],
      [
        `the device ${JSON.stringify(name)} to replace`,
        { ...REPLACE, device: "" },
        { deviceId: name, payload: { "/a": 1 } },
        "dot-name",
        /made of dots/,
      ],
      [
        `the device ${JSON.stringify(name)} to merge`,
        { ...MERGE, device: "" },
        { deviceId: name, payload: { "/a": 1 } },
        "dot-name",
        /made of dots/,
      ],
      [
        `the stream ${JSON.stringify(name)} to list`,
        { ...LIST, stream: "" },
        { streamId: name },
        "dot-name",
        /The stream ".*" is made of dots/,
      ],
      [
        `the stream ${JSON.stringify(name)} for a command`,
        { ...SEND, target: "stream", stream: "" },
        { streamId: name, payload: { a: 1 } },
        "dot-name",
        /made of dots/,
      ],
      // A device of a command is part of a stream path: a "/" in it is refused first.
      [
        `the device ${JSON.stringify(name)} for a command`,
        { ...SEND, device: "" },
        { deviceId: name, payload: { a: 1 } },
        name.includes("/") ? "bad-device" : "dot-name",
        name.includes("/") ? /a device name holds no "\/"/ : /made of dots/,
      ],
    ],
  ),
  [
    "a stream path with a .. segment",
    { ...LIST, stream: "" },
    { streamId: "/demo/devices/../:inbox" },
    "dot-name",
    /The stream path .* is made of dots/,
  ],
  [
    "a command awaited on the device ..",
    AWAIT,
    { command: { device: "..", creationDate: NOW } },
    "dot-name",
    /made of dots/,
  ],
  [
    "a lone surrogate in a device id",
    BY_MSG,
    { deviceId: "lcd-\ud800" },
    "bad-text",
    /The device holds an unpaired surrogate/,
  ],
  [
    "a lone surrogate in a device name for a command",
    { ...SEND, device: "" },
    { deviceId: "\udc00", payload: { a: 1 } },
    "bad-text",
    /unpaired surrogate/,
  ],
  [
    "a lone surrogate in a stream id",
    { ...LIST, stream: "" },
    { streamId: "s\ud83d" },
    "bad-text",
    /The stream holds an unpaired surrogate/,
  ],
  [
    "a lone surrogate in a stream path",
    { ...LIST, stream: "" },
    { streamId: "/demo/devices/\udfff/:inbox" },
    "bad-text",
    /The stream path holds/,
  ],
  [
    "a lone surrogate in a command's stream id",
    { ...SEND, target: "stream", stream: "" },
    { streamId: "\ud800x", payload: { a: 1 } },
    "bad-text",
    /unpaired surrogate/,
  ],
  // Command elems
  [
    "a Buffer as the elems",
    SEND,
    { payload: Buffer.from('{"/lcd/txt1":"x"}') },
    "not-plain",
    /msg\.payload must be a plain object .* got a Buffer/,
  ],
  ["a Map as the elems", SEND, { payload: new Map([["a", 1]]) }, "not-plain", /got a Map/],
  ["a Date as the elems", SEND, { payload: new Date() }, "not-plain", /got a Date/],
  [
    "a Map nested in the elems",
    SEND,
    { payload: { lcd: new Map([["txt1", "x"]]) } },
    "bad-value",
    /the value of "lcd" .* got a Map/,
  ],
  [
    "circular elems",
    SEND,
    { payload: circular },
    "circular",
    /msg\.payload refers to itself at "lcd\/back"/,
  ],
  [
    "elems nested 10,000 deep",
    SEND,
    { payload: nested(10000) },
    "too-deep",
    /msg\.payload nests deeper than 32 levels/,
  ],
  ["elems nested 33 deep", SEND, { payload: nested(33) }, "too-deep", /deeper than 32 levels/],
  [
    "elems that are an array",
    SEND,
    { payload: [1] },
    "not-object",
    /msg\.payload must be an object, got an array/,
  ],
  [
    "elems that are a number without an Elems property",
    SEND,
    { payload: 3 },
    "not-object",
    /msg\.payload must be an object, got a number/,
  ],
  ["empty elems", SEND, { payload: {} }, "empty", /msg\.payload is empty/],
  [
    "an empty nested object in elems",
    SEND,
    { payload: { lcd: {} } },
    "empty",
    /msg\.payload at "lcd" is empty/,
  ],
  [
    "an array value in elems",
    SEND,
    { payload: { lcd: { txt: ["a"] } } },
    "bad-value",
    /the value of "lcd\/txt" .* got an array/,
  ],
  [
    "a null value in elems",
    SEND,
    { payload: { "/lcd/txt1": null } },
    "bad-value",
    /the value of "\/lcd\/txt1" .* got null/,
  ],
  [
    "invalid elems JSON in the form",
    { ...SEND, elems: '{"/lcd/txt1": {{payload}}' },
    { payload: "x" },
    "bad-json",
    /Elems is not valid JSON after mustache rendering/,
  ],
  [
    "elems JSON in the form that is not an object",
    { ...SEND, elems: '["{{payload}}"]' },
    { payload: "x" },
    "not-object",
    /Elems must be an object, got an array/,
  ],
  [
    "an empty device after mustache for a command",
    { ...SEND, device: "{{deviceId}}" },
    { payload: { a: 1 } },
    "device-empty",
    /No device/,
  ],
  [
    "an empty stream after mustache for a command",
    { ...SEND, target: "stream", stream: "{{topic}}" },
    { payload: { a: 1 }, topic: "" },
    "stream-empty",
    /No stream: set the node's Stream property or msg\.streamId/,
  ],
  [
    "a device name with a / in a command's stream path",
    { ...SEND, device: "" },
    { deviceId: "../other/devices/x", payload: { a: 1 } },
    "bad-device",
    /The device "\.\.\/other\/devices\/x" cannot be part of a stream path/,
  ],
  [
    "a negative ttl",
    SEND,
    { payload: { a: 1 }, ttl: -5 },
    "integer",
    /ttl must be a whole number from 0 to 2147483647, got -5/,
  ],
  [
    "a NaN ttl",
    SEND,
    { payload: { a: 1 }, ttl: NaN },
    "integer",
    /ttl must be a whole number .* got NaN/,
  ],
  [
    "a huge ttl",
    SEND,
    { payload: { a: 1 }, ttl: 2 ** 31 },
    "integer",
    /ttl must be a whole number .* got 2147483648/,
  ],
  [
    "a payload over the account's size limit",
    SEND,
    { payload: { "/lcd/txt1": "x".repeat(500) } },
    "payload-too-large",
    /The request body is \d+ bytes, over the account's limit of 200 bytes/,
    { maxPayload: "200" },
  ],
  // Paging
  [
    "a NaN limit",
    LIST,
    { limit: NaN },
    "integer",
    /limit must be a whole number from 1 to 10000, got NaN/,
  ],
  [
    "a negative limit",
    LIST,
    { limit: -1 },
    "integer",
    /limit must be a whole number from 1 to 10000, got -1/,
  ],
  ["a zero limit", LIST, { limit: 0 }, "integer", /limit .* got 0/],
  ["a huge limit", LIST, { limit: 1e9 }, "integer", /limit .* got 1000000000/],
  ["an infinite limit", LIST, { limit: Infinity }, "integer", /limit .* got Infinity/],
  ["a fractional limit", LIST, { limit: 2.5 }, "integer", /limit .* got 2\.5/],
  ["a limit that is not a number", LIST, { limit: "ten" }, "integer", /limit .* got "ten"/],
  [
    "a limit in the form that is not a number",
    { ...LIST, limit: "abc" },
    {},
    "integer",
    /limit .* got "abc"/,
  ],
  [
    "a NaN start",
    LIST,
    { start: NaN },
    "integer",
    /start must be a whole number from 0 to 2147483647, got NaN/,
  ],
  ["a negative start", LIST, { start: -10 }, "integer", /start .* got -10/],
  ["a huge start", LIST, { start: 2 ** 40 }, "integer", /start .* got 1099511627776/],
  ["a start that is an object", LIST, { start: { n: 1 } }, "integer", /start .* got an object/],
  [
    "an empty stream after mustache",
    { ...LIST, stream: "{{topic}}" },
    { topic: "" },
    "stream-empty",
    /No stream/,
  ],
  // Awaiting
  ["a msg without msg.command", AWAIT, { payload: 1 }, "no-command", /msg\.command is missing/],
  [
    "a msg.command without id or date",
    AWAIT,
    { command: { device: "lcd-board" } },
    "no-command",
    /msg\.command is missing or has no id/,
  ],
  [
    "a negative msg.timeout",
    AWAIT,
    { command: { device: "lcd-board", creationDate: NOW }, timeout: -1 },
    "integer",
    /timeout must be a whole number from 1 to 2147483647, got -1/,
  ],
  [
    "a command on a device name with a /",
    AWAIT,
    { command: { device: "a/b", creationDate: NOW } },
    "bad-device",
    /The device "a\/b" cannot be part of a stream path/,
  ],
  // The account
  [
    "an account timeout over 2^31 - 1 ms",
    STATE,
    {},
    "bad-config",
    /the timeout must be a whole number of ms from 1 to 2147483647, got 2147483648/,
    { timeout: "2147483648" },
  ],
  [
    "an account timeout of 10^12 ms for a command",
    SEND,
    { payload: { a: 1 } },
    "bad-config",
    /timeout must be/,
    { timeout: "1000000000000" },
  ],
  // Whatever the error, a msg nesting deeper than Node-RED can copy still reaches the Catch node.
  [
    "a device .. with a msg property nested 10,000 deep",
    BY_MSG,
    { deviceId: "..", extra: nested(10000) },
    "dot-name",
    /made of dots/,
  ],
  ["a state nested 10,000 deep", REPLACE, { payload: nested(10000) }, "bad-value", /got an object/],
  // A failure nobody planned for is still an EdgeError with a code.
  [
    "a state whose getter throws",
    REPLACE,
    {
      payload: {
        get "/lcd/txt1"() {
          throw new Error("getter failed");
        },
      },
    },
    "internal",
    /Unexpected error: Error: getter failed/,
  ],
];

// Inputs that could change the request path if not encoded: [value, the segment expected].
const PATH_INPUTS = [
  ["..x/y", "..x%2Fy"],
  ["a/b", "a%2Fb"],
  ["what?x=1", "what%3Fx%3D1"],
  ["#top", "%23top"],
  ["%2F", "%252F"],
  ["pompe-été", "pompe-%C3%A9t%C3%A9"],
  ["日本", "%E6%97%A5%E6%9C%AC"],
  ["a b", "a%20b"],
];

// [what, node properties, fault, expected error code, expected message]
const MALFORMED = [
  [
    "an HTML page with HTTP 200 for a device",
    STATE,
    { body: "html", status: 200 },
    "malformed",
    /is not a valid API response: not JSON: 502 Bad Gateway/,
  ],
  [
    "an HTML error page with HTTP 500",
    STATE,
    { body: "html", status: 500 },
    "http",
    /failed with HTTP 500: 502 Bad Gateway/,
  ],
  [
    "truncated JSON for a device",
    STATE,
    { body: "truncated" },
    "malformed",
    /not a valid API response: not JSON/,
  ],
  [
    "an envelope without head",
    STATE,
    { body: "no-head" },
    "malformed",
    /not a valid API response: no head/,
  ],
  [
    "body null where a device is expected",
    STATE,
    { body: "null-body" },
    "malformed",
    /no device in the answer/,
  ],
  [
    "body null after a state replacement",
    { ...STATE, mode: "replace" },
    { body: "null-body" },
    "malformed",
    /no device in the answer/,
  ],
  [
    "head.ok false with HTTP 200",
    STATE,
    { body: "ok-false" },
    "api",
    /failed \(head\.status 400\): Injected: head\.ok false/,
  ],
  [
    "body null where a list is expected",
    LIST,
    { body: "null-body" },
    "malformed",
    /no list of events in the answer/,
  ],
  ["truncated JSON for a list", LIST, { body: "truncated" }, "malformed", /not JSON/],
  ["an envelope without head for a command", SEND, { body: "no-head" }, "malformed", /no head/],
  [
    "an HTML page with HTTP 200 for a command",
    SEND,
    { body: "html", status: 200 },
    "malformed",
    /not JSON/,
  ],
];

describe("reliability: bad input and malformed answers", function () {
  const env = withRedAndSimulator();

  describe("bad input is a clear error to a Catch node before any request", function () {
    // Node-RED never awaits an input listener: a rejection of ours would reach no Catch node.
    const rejections = [];
    const onRejection = (reason) => rejections.push(reason);
    before(function () {
      process.on("unhandledRejection", onRejection);
    });
    after(function () {
      process.off("unhandledRejection", onRejection);
    });
    afterEach(async function () {
      // Rejections are reported after the microtask queue drains.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(rejections.splice(0).map(String), [], "an input handler rejected");
    });

    for (const [what, props, msg, code, message, accountProps = {}] of BAD_INPUT) {
      it(`reports ${what} to ${props.type}${props.mode ? ` (${props.mode})` : ""} as ${code}`, async function () {
        const f = await deploy(env.sim, [{ id: "n1", ...props }], {
          account: { rate: 0, ...accountProps },
        });
        const ids = feed(f.n1, [msg]);
        const err = await next(f.caught);
        assert.equal(err.error.code, code, err.error.message);
        assert.equal(err.edgeError.code, code);
        assert.match(err.error.message, message);
        assert.equal(err.error.source.id, "n1");
        assert.equal(env.sim.stats().total, 0, "a request was sent");
        assertEndedOnce(f.ends.n1, ids);
      });
    }

    it("names the msg properties it took out because Node-RED could not copy them", async function () {
      let deep = { v: 1 };
      for (let i = 0; i < 10000; i++) deep = { a: deep };
      const f = await deploy(env.sim, [{ id: "n1", ...BY_MSG }], { account: { rate: 0 } });
      feed(f.n1, [{ deviceId: "..", extra: deep, topic: "kept" }]);
      const err = await next(f.caught);
      assert.deepEqual(err.edgeError.removed, ["extra"]);
      assert.equal(err.extra, undefined);
      assert.equal(err.topic, "kept");
    });

    it("sends a null-prototype object as the state it holds", async function () {
      const state = Object.assign(Object.create(null), { "/lcd/txt1": "plain", "/app/n": 2 });
      const f = await deploy(env.sim, [{ id: "n1", ...REPLACE }], { account: { rate: 0 } });
      feed(f.n1, [{ payload: state }]);
      const msg = await next(f.get("n1.out"));
      assert.deepEqual(msg.payload, { "/lcd/txt1": "plain", "/app/n": 2 });
      const [put] = await requests(env.sim, "PUT");
      assert.deepEqual(JSON.parse(put.body).state, { "/lcd/txt1": "plain", "/app/n": 2 });
    });
  });

  describe("path inputs are sent encoded as one segment", function () {
    for (const [value, segment] of PATH_INPUTS) {
      it(`sends the device ${JSON.stringify(value)} as /device/${segment}`, async function () {
        const f = await deploy(env.sim, [{ id: "n1", ...STATE, device: "" }], {
          account: { rate: 0 },
        });
        feed(f.n1, [{ deviceId: value }]);
        const err = await next(f.caught);
        assert.equal(err.statusCode, 404);
        const [req] = await requests(env.sim, "GET");
        assert.equal(req.url, `/v5.0/demo/device/${segment}`);
      });

      it(`sends the stream ${JSON.stringify(value)} as /event/${segment}, also after mustache`, async function () {
        const f = await deploy(env.sim, [{ id: "n1", ...LIST, stream: "{{{topic}}}" }], {
          account: { rate: 0 },
        });
        feed(f.n1, [{ topic: value }]);
        await next(f.caught);
        const [req] = await requests(env.sim, "GET");
        assert.equal(req.url, `/v5.0/demo/event/${segment}?limit=20&start=0`);
      });
    }

    it("sends a command to a stream id with / and ? as one segment", async function () {
      const f = await deploy(env.sim, [{ id: "n1", ...SEND, target: "stream", stream: "" }], {
        account: { rate: 0 },
      });
      feed(f.n1, [{ streamId: "..x/event?x#y", payload: { a: 1 } }]);
      await next(f.caught);
      const [req] = await requests(env.sim, "POST");
      assert.equal(req.url, "/v5.0/demo/event/..x%2Fevent%3Fx%23y");
    });
  });

  describe("malformed answers are clear errors, not crashes", function () {
    for (const [what, props, spec, code, message] of MALFORMED) {
      it(`reports ${what}`, async function () {
        await fault(env.sim, { ...spec, count: 10 });
        const f = await deploy(env.sim, [{ id: "n1", ...props }], {
          account: { rate: 0, retries: "0" },
        });
        const payload = props.type === STATE.type && props.mode === "replace" ? { "/a": 1 } : {};
        const ids = feed(f.n1, [
          { payload: props.type === SEND.type ? { "/lcd/txt1": 1 } : payload },
        ]);
        const err = await next(f.caught);
        assert.equal(err.error.code, code);
        assert.match(err.error.message, message);
        assertEndedOnce(f.ends.n1, ids);
      });
    }
  });
});
