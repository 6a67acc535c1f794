// nodes/lib/account/health.ts: what every node of an account shows about the account: an
// authentication failure until a request succeeds, a 429 wait while it lasts, the queue length.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { AccountHealth } = lib("account/health");
const { EdgeError } = lib("api/errors");
const { translator } = lib("node-red/i18n");

const t = translator({ _: (key) => key }, "edge-account");

function watched(health) {
  const seen = [];
  const unwatch = health.watch((s) => seen.push(s));
  return { seen, unwatch };
}

describe("unit: account/health", function () {
  let health;
  afterEach(function () {
    health?.close();
  });

  it("should turn every watcher red on a failed authentication until a request succeeds", function () {
    health = new AccountHealth(() => 0, t);
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
    health = new AccountHealth(() => 0, t);
    const a = watched(health);
    health.report(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 5000 }));
    assert.deepEqual(a.seen, [{ fill: "yellow", shape: "ring", text: "429: wait 5 s" }]);
  });

  it("should show the length of the account's queue", function () {
    let queued = 0;
    health = new AccountHealth(() => queued, t);
    const a = watched(health);
    queued = 12;
    health.report(undefined);
    assert.deepEqual(a.seen, [{ fill: "yellow", shape: "dot", text: "queued 12" }]);
    queued = 0;
    health.report(undefined);
    assert.deepEqual(a.seen.at(-1), undefined);
    a.unwatch();
  });
});
