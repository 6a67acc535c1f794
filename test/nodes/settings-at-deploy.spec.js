// Settings a user typed that can never work are the user's to fix, and are said at deploy: a red
// status that stays (no poll or message replaces it), a line in the log, and every message then
// refused with the same coded error, before any request. Real nodes in a real Node-RED against
// the simulator.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor } = require("../support/simulator");
const { next, helper, withRedAndSimulator, caughtCode } = require("../support/red");
const { startFlow, awaitCommand } = require("../support/flow");
const { SEED } = require("../support/seed");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");

/** What `node` itself passed to one of its methods (the test helper spies on the prototype). */
function callsOf(node, method) {
  return node[method]
    .getCalls()
    .filter((c) => c.thisValue === node)
    .map((c) => c.args[0]);
}

const SEND = { type: "edge-send-command", target: "device", device: "lcd-board", elems: "" };

// [what, node, the message, code, its sentence, the status]
const INVALID = [
  [
    "an Elems template with an unclosed tag",
    { ...SEND, elems: '{"/lcd/txt1": {{payload}' },
    { payload: "hi" },
    "bad-template",
    /^Elems is not a valid mustache template: Unclosed tag at \d+/,
    "invalid template",
  ],
  [
    "a Device template with an unclosed tag",
    { ...SEND, device: "{{{deviceId}}" },
    { payload: { "/lcd/txt1": "hi" } },
    "bad-template",
    /^device is not a valid mustache template/,
    "invalid template",
  ],
  [
    "Elems that are not JSON",
    { ...SEND, elems: '{"/lcd/txt1": hi}' },
    { payload: "x" },
    "bad-json",
    /^Elems is not valid JSON/,
    "invalid JSON",
  ],
  [
    "a ttl that is not a whole number",
    { ...SEND, ttl: "1.5" },
    { payload: { "/lcd/txt1": "hi" } },
    "integer",
    /^ttl must be a whole number from 0 to 2147483647, got "1\.5"/,
    "invalid ttl",
  ],
  [
    "an unknown mode of edge-device-state",
    { type: "edge-device-state", device: SEED.lcd.id, mode: "patch" },
    {},
    "bad-mode",
    /^Unknown mode "patch"/,
    "invalid mode",
  ],
  [
    "a Limit that is not a number",
    { type: "edge-list-events", stream: "/demo/telemetry", limit: "abc", mode: "page" },
    {},
    "integer",
    /^limit must be a whole number from 1 to 10000, got "abc"/,
    "invalid limit",
  ],
  [
    "a Max events out of range",
    { type: "edge-list-events", stream: "/demo/telemetry", maxEvents: "0", mode: "all" },
    {},
    "integer",
    /^maxEvents must be a whole number from 1 to 1000000, got "0"/,
    "invalid maxEvents",
  ],
  [
    "an await Timeout out of range",
    { type: "edge-await-command", inbox: "", timeout: "2147483648", interval: 50, outputs: 3 },
    { command: { id: "cmd-1", creationDate: Date.now(), device: "lcd-board" } },
    "integer",
    /^timeout must be a whole number from 1 to 2147483647, got "2147483648"/,
    "invalid timeout",
  ],
  [
    "an await Interval that is not a number",
    { type: "edge-await-command", inbox: "", timeout: "", interval: "often", outputs: 3 },
    { command: { id: "cmd-1", creationDate: Date.now(), device: "lcd-board" } },
    "integer",
    /^interval must be a whole number from 50 to 3600000, got "often"/,
    "invalid interval",
  ],
];

describe("settings checked at deploy", function () {
  const env = withRedAndSimulator();

  for (const [what, node, msg, code, sentence, short] of INVALID) {
    it(`says at deploy what is wrong with ${what}, and refuses every message with ${code}`, async function () {
      await control(env.sim, "DELETE", "/requests");
      const { get } = await startFlow(env.sim, [
        { id: "n1", wires: node.outputs === 3 ? [["o1"], [], []] : [["o1"]], ...node },
        { id: "o1", type: "helper" },
      ]);
      const n1 = get("n1");
      assert.match(String(callsOf(n1, "error")[0]), sentence);
      assert.deepEqual(callsOf(n1, "status").at(-1), { fill: "red", shape: "ring", text: short });
      for (let i = 0; i < 2; i++) {
        n1.receive({ ...msg });
        const caught = await next(get("caught"));
        assert.equal(caughtCode(caught), code);
        assert.match(caught.error.message, sentence);
      }
      assert.deepEqual(callsOf(n1, "status").at(-1), { fill: "red", shape: "ring", text: short });
      assert.equal(get("o1").received.length, 0);
      assert.equal((await control(env.sim, "GET", "/requests")).json.length, 0, "a request");
    });
  }

  it("keeps an await node's red status through the polls of the account's other waits", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    await control(env.sim, "DELETE", "/requests");
    const [valid, ...outs] = awaitCommand({ id: "a2", timeout: "60000" });
    const { get } = await startFlow(env.sim, [
      valid,
      ...outs,
      ...awaitCommand({ timeout: "abc" }).map((n) =>
        n.type === "helper" ? { ...n, id: `bad-${n.id}` } : { ...n, wires: [["bad-ok"], [], []] },
      ),
    ]);
    const a1 = get("a1");
    const red = { fill: "red", shape: "ring", text: "invalid timeout" };
    assert.deepEqual(callsOf(a1, "status").at(-1), red);
    // A wait on the same inbox keeps the account's poller reading it every 50 ms.
    const command = { id: "cmd-1", creationDate: Date.now(), device: "lcd-board" };
    get("a2").receive({ command });
    a1.receive({ command });
    const caught = await next(get("caught"));
    assert.equal(caughtCode(caught), "integer");
    assert.match(caught.error.message, /^timeout must be a whole number .* got "abc"/);
    const inboxReads = async () =>
      (await control(env.sim, "GET", "/requests?limit=10000")).json.filter((r) =>
        r.url.includes("inbox"),
      ).length;
    await waitFor(async () => (await inboxReads()) >= 5, {
      timeoutMs: 5000,
      what: "five reads of the inbox",
    });
    assert.deepEqual(callsOf(a1, "status").at(-1), red);
    assert.match(String(callsOf(get("a2"), "status").at(-1)?.text), /waiting/);
    assert.equal(helper.getNode("acc").services.poller.size, 1);
  });

  // An example imported as shipped has an account without its token (credentials are never
  // exported): every node that uses it says so at deploy, not only once a message fails.
  it("shows a red ring 'account has no token' under each node of an account without a token at deploy, and keeps it as a message fails with bad-config", async function () {
    const noToken = { fill: "red", shape: "ring", text: "account has no token" };
    const users = [
      { id: "state", type: "edge-device-state", device: "lcd-board", mode: "get" },
      { ...SEND, id: "send", elems: '{"/lcd/txt1": "hi"}' },
      { id: "list", type: "edge-list-events", stream: "/demo/telemetry", mode: "page" },
      { id: "await", type: "edge-await-command", inbox: "", timeout: "", outputs: 3 },
      { id: "fleet", type: "edge-fleet-command", devices: "lcd-board", elems: "", outputs: 2 },
      { id: "watch", type: "edge-watch-events", stream: "/demo/telemetry", start: "new" },
    ];
    await control(env.sim, "DELETE", "/requests");
    const { get } = await startFlow(env.sim, users, {
      credentials: { token: undefined },
      extraTypes: [FLEET],
    });
    for (const { id } of users)
      assert.deepEqual(callsOf(get(id), "status").at(-1), noToken, `the status of ${id}`);
    get("state").receive({});
    const caught = await next(get("caught"));
    assert.equal(caughtCode(caught), "bad-config");
    assert.match(caught.error.message, /the token is empty/);
    assert.deepEqual(callsOf(get("state"), "status").at(-1), noToken);
    assert.equal((await control(env.sim, "GET", "/requests")).json.length, 0, "a request");
  });
});
