// Bad input and malformed answers, table-driven: each bad input is a clear error to a Catch node
// before any request; path inputs go out encoded as one segment; answers that are not what the
// API promises are clear errors, never crashes.
"use strict";
const assert = require("node:assert/strict");
const { next, withRedAndSimulator } = require("./support/red");
const { deploy, feed, fault, requests, assertEndedOnce } = require("./support/reliability");

const SEND = { type: "edge-send-command" };
const STATE = { type: "edge-device-state" };
const LIST = { type: "edge-list-events" };
const AWAIT = { type: "edge-await-command" };
const NOW = Date.now();

// [what, node properties, msg, account properties, expected error message]
const BAD_INPUT = [
  // States (replace and merge)
  [
    "a state that is a string",
    { ...STATE, mode: "replace" },
    { payload: "on" },
    {},
    /msg\.payload must be an object, got a string/,
  ],
  [
    "a state that is null",
    { ...STATE, mode: "replace" },
    { payload: null },
    {},
    /msg\.payload must be an object, got null/,
  ],
  [
    "a state that is an array",
    { ...STATE, mode: "replace" },
    { payload: [{ "/a": 1 }] },
    {},
    /msg\.payload must be an object, got an array/,
  ],
  [
    "a nested value in a state",
    { ...STATE, mode: "replace" },
    { payload: { "/lcd": { txt1: "x" } } },
    {},
    /the value of "\/lcd" must be a string, number or boolean, got an object/,
  ],
  [
    "an array value in a state",
    { ...STATE, mode: "replace" },
    { payload: { "/a": [1, 2] } },
    {},
    /the value of "\/a" .* got an array/,
  ],
  [
    "a NaN value in a state",
    { ...STATE, mode: "replace" },
    { payload: { "/a": NaN } },
    {},
    /the value of "\/a" .* got NaN/,
  ],
  [
    "a null value when replacing",
    { ...STATE, mode: "replace" },
    { payload: { "/a": null } },
    {},
    /the value of "\/a" is null; null removes a key and is allowed in merge mode only/,
  ],
  [
    "a merge patch that is an array",
    { ...STATE, mode: "merge" },
    { payload: [] },
    {},
    /msg\.payload must be an object, got an array/,
  ],
  [
    "a nested value in a merge patch",
    { ...STATE, mode: "merge" },
    { payload: { "/a": { b: 1 } } },
    {},
    /the value of "\/a" .* got an object/,
  ],
  ["an unknown mode", { ...STATE, mode: "patch" }, {}, {}, /Unknown mode "patch"/],
  [
    "an empty device after mustache",
    { ...STATE, device: "{{topic}}" },
    { topic: "" },
    {},
    /No device: set the node's Device property or msg\.deviceId/,
  ],
  [
    "a missing mustache value for the device",
    { ...STATE, device: "{{nothing}}" },
    {},
    {},
    /No device/,
  ],
  ["a blank msg.deviceId", { ...STATE, device: "" }, { deviceId: "   " }, {}, /No device/],
  // Command elems
  [
    "elems that are an array",
    SEND,
    { payload: [1] },
    {},
    /msg\.payload must be an object, got an array/,
  ],
  [
    "elems that are a number without an Elems property",
    SEND,
    { payload: 3 },
    {},
    /msg\.payload must be an object, got a number/,
  ],
  ["empty elems", SEND, { payload: {} }, {}, /msg\.payload is empty/],
  [
    "an empty nested object in elems",
    SEND,
    { payload: { lcd: {} } },
    {},
    /msg\.payload at "lcd" is empty/,
  ],
  [
    "an array value in elems",
    SEND,
    { payload: { lcd: { txt: ["a"] } } },
    {},
    /the value of "lcd\/txt" .* got an array/,
  ],
  [
    "a null value in elems",
    SEND,
    { payload: { "/lcd/txt1": null } },
    {},
    /the value of "\/lcd\/txt1" .* got null/,
  ],
  [
    "invalid elems JSON in the form",
    { ...SEND, elems: '{"/lcd/txt1": {{payload}}' },
    { payload: "x" },
    {},
    /Elems is not valid JSON after mustache rendering/,
  ],
  [
    "elems JSON in the form that is not an object",
    { ...SEND, elems: '["{{payload}}"]' },
    { payload: "x" },
    {},
    /Elems must be an object, got an array/,
  ],
  [
    "an empty device after mustache for a command",
    { ...SEND, device: "{{deviceId}}" },
    { payload: { a: 1 } },
    {},
    /No device/,
  ],
  [
    "an empty stream after mustache for a command",
    { ...SEND, target: "stream", stream: "{{topic}}" },
    { payload: { a: 1 }, topic: "" },
    {},
    /No stream: set the node's Stream property or msg\.streamId/,
  ],
  [
    "a device name with a / in a command's stream path",
    { ...SEND, device: "" },
    { deviceId: "../other/devices/x", payload: { a: 1 } },
    {},
    /The device "\.\.\/other\/devices\/x" cannot be part of a stream path/,
  ],
  [
    "a negative ttl",
    SEND,
    { payload: { a: 1 }, ttl: -5 },
    {},
    /ttl must be a whole number from 0 to 2147483647, got -5/,
  ],
  ["a NaN ttl", SEND, { payload: { a: 1 }, ttl: NaN }, {}, /ttl must be a whole number .* got NaN/],
  [
    "a huge ttl",
    SEND,
    { payload: { a: 1 }, ttl: 2 ** 31 },
    {},
    /ttl must be a whole number .* got 2147483648/,
  ],
  [
    "a payload over the account's size limit",
    SEND,
    { payload: { "/lcd/txt1": "x".repeat(500) } },
    { maxPayload: "200" },
    /The request body is \d+ bytes, over the account's limit of 200 bytes/,
  ],
  [
    "a state over the account's size limit",
    { ...STATE, mode: "replace" },
    { payload: { "/lcd/txt1": "x".repeat(500) } },
    { maxPayload: "200" },
    /over the account's limit of 200 bytes/,
  ],
  // Paging
  [
    "a NaN limit",
    LIST,
    { limit: NaN },
    {},
    /limit must be a whole number from 1 to 10000, got NaN/,
  ],
  [
    "a negative limit",
    LIST,
    { limit: -1 },
    {},
    /limit must be a whole number from 1 to 10000, got -1/,
  ],
  ["a zero limit", LIST, { limit: 0 }, {}, /limit .* got 0/],
  ["a huge limit", LIST, { limit: 1e9 }, {}, /limit .* got 1000000000/],
  ["an infinite limit", LIST, { limit: Infinity }, {}, /limit .* got Infinity/],
  ["a fractional limit", LIST, { limit: 2.5 }, {}, /limit .* got 2\.5/],
  ["a limit that is not a number", LIST, { limit: "ten" }, {}, /limit .* got "ten"/],
  [
    "a limit in the form that is not a number",
    { ...LIST, limit: "abc" },
    {},
    {},
    /limit .* got "abc"/,
  ],
  [
    "a NaN start",
    LIST,
    { start: NaN },
    {},
    /start must be a whole number from 0 to 2147483647, got NaN/,
  ],
  ["a negative start", LIST, { start: -10 }, {}, /start .* got -10/],
  ["a huge start", LIST, { start: 2 ** 40 }, {}, /start .* got 1099511627776/],
  ["a start that is an object", LIST, { start: { n: 1 } }, {}, /start .* got an object/],
  [
    "an empty stream after mustache",
    { ...LIST, stream: "{{topic}}" },
    { topic: "" },
    {},
    /No stream/,
  ],
  // Awaiting
  ["a msg without msg.command", AWAIT, { payload: 1 }, {}, /msg\.command is missing/],
  [
    "a msg.command without id or date",
    AWAIT,
    { command: { device: "lcd-board" } },
    {},
    /msg\.command is missing or has no id/,
  ],
  [
    "a negative msg.timeout",
    AWAIT,
    { command: { device: "lcd-board", creationDate: NOW }, timeout: -1 },
    {},
    /timeout must be a whole number from 1 to 2147483647, got -1/,
  ],
  [
    "a command on a device name with a /",
    AWAIT,
    { command: { device: "a/b", creationDate: NOW } },
    {},
    /The device "a\/b" cannot be part of a stream path/,
  ],
];

// Inputs that could change the request path if not encoded: [value, the segment expected].
const PATH_INPUTS = [
  ["../x", "..%2Fx"],
  ["..", "%2E%2E"],
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

  describe("bad input is a clear error before any request", function () {
    for (const [what, props, msg, accountProps, message] of BAD_INPUT) {
      it(`reports ${what}`, async function () {
        const f = await deploy(env.sim, [{ id: "n1", ...props }], {
          account: { rate: 0, ...accountProps },
        });
        const ids = feed(f.n1, [msg]);
        const err = await next(f.caught);
        assert.match(err.error.message, message);
        assert.equal(err.error.source.id, "n1");
        assert.equal(env.sim.stats().total, 0, "a request was sent");
        assertEndedOnce(f.ends.n1, ids);
      });
    }
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
      feed(f.n1, [{ streamId: "../event?x#y", payload: { a: 1 } }]);
      await next(f.caught);
      const [req] = await requests(env.sim, "POST");
      assert.equal(req.url, "/v5.0/demo/event/..%2Fevent%3Fx%23y");
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
