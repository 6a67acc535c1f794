// nodes/lib/account/health.ts: what every node of an account shows about the account: an
// authentication failure until a request succeeds, a 429 wait while it lasts, the queue length;
// as the nodes show it, through accountStatus (lib/node-red/status.ts).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { AccountHealth } = lib("account/health");
const { EdgeError } = lib("api/errors");
const { translator } = lib("node-red/i18n");
const { accountStatus } = lib("node-red/status");

const t = translator({ _: (key) => key }, "edge-account");

/** What a node of the account is shown, change by change. */
function watched(health) {
  const seen = [];
  const unwatch = health.watch((s) => seen.push(accountStatus(t, s)));
  return { seen, unwatch };
}

describe("unit: account/health", function () {
  let health;
  afterEach(function () {
    health?.close();
  });

  it("should turn every watcher red on a failed authentication until a request succeeds", function () {
    health = new AccountHealth(() => 0);
    const a = watched(health);
    const b = watched(health);
    health.report(new EdgeError("auth", { status: 403, detail: "x" }, { status: 403 }));
    const red = { fill: "red", shape: "ring", text: "403 unauthorized" };
    assert.deepEqual(a.seen, [red]);
    assert.deepEqual(b.seen, [red]);
    // Other failures leave it red; a success clears it.
    health.report(new EdgeError("not-found", {}, { status: 404 }));
    assert.equal(a.seen.length, 1);
    health.report(undefined);
    assert.deepEqual(a.seen, [red, undefined]);
    // A node added later sees nothing while all is well.
    assert.deepEqual(watched(health).seen, []);
  });

  it("should show a 429 wait for as long as the server asked", function () {
    health = new AccountHealth(() => 0);
    const a = watched(health);
    health.report(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 5000 }));
    assert.deepEqual(a.seen, [{ fill: "yellow", shape: "ring", text: "429: wait 5 s" }]);
  });

  it("should show the length of the account's queue", function () {
    let queued = 0;
    health = new AccountHealth(() => queued);
    const a = watched(health);
    queued = 12;
    health.report(undefined);
    assert.deepEqual(a.seen, [{ fill: "yellow", shape: "dot", text: "queued 12" }]);
    queued = 0;
    health.report(undefined);
    assert.deepEqual(a.seen.at(-1), undefined);
    a.unwatch();
  });

  it("should tell every watcher the same state, so that it is made a status once", function () {
    health = new AccountHealth(() => 0);
    const states = [];
    health.watch((s) => states.push(s));
    health.watch((s) => states.push(s));
    health.report(new EdgeError("auth", { status: 401, detail: "x" }, { status: 401 }));
    assert.equal(states.length, 2);
    assert.equal(states[0], states[1]);
    assert.equal(states[0].kind, "auth");
    // The same refusal again is no change; another answer is.
    health.report(new EdgeError("auth", { status: 401, detail: "x" }, { status: 401 }));
    assert.equal(states.length, 2);
    health.report(new EdgeError("auth", { status: 403, detail: "x" }, { status: 403 }));
    assert.equal(states.length, 4);
    assert.equal(accountStatus(t, states[3]).text, "403 unauthorized");
  });
});
