// nodes/lib/account/health.ts, view(): the numbers the editor's "edge devices" sidebar shows of an
// account: attempts per second, the last 429 wait, the last error's code, a refused token.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { AccountHealth } = lib("account/health");
const { EdgeError } = lib("api/errors");
const { translator } = lib("node-red/i18n");

const t = translator({ _: (key) => key }, "edge-account");

describe("unit: account/health view", function () {
  it("should show nothing amiss for an account that made no request", function () {
    const view = new AccountHealth(() => 0, t).view();
    assert.deepEqual(view, {
      perSecond: 0,
      tokenRefused: false,
      last429: undefined,
      lastError: undefined,
    });
  });

  it("should keep the last 429's wait and the last error's code and status, and a refused token until a success", function () {
    const health = new AccountHealth(() => 0, t);
    const before = Date.now();
    health.report(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 3000 }));
    let view = health.view();
    assert.equal(view.last429.ms, 3000);
    assert.ok(view.last429.at >= before);
    assert.equal(view.lastError.status, 429);
    health.report(new EdgeError("auth", {}, { status: 401 }));
    view = health.view();
    assert.equal(view.tokenRefused, true);
    assert.equal(view.lastError.code, "auth");
    assert.equal(view.last429.ms, 3000, "the 429 stays the last one");
    health.report(undefined);
    view = health.view();
    assert.equal(view.tokenRefused, false);
    assert.equal(view.lastError.code, "auth", "the last error stays shown");
    // Counted per wall-clock second: the attempts of this second or of the one before.
    assert.ok(view.perSecond <= 3);
  });

  it("should carry no message of an error, only its code and status", function () {
    const health = new AccountHealth(() => 0, t);
    health.report(
      new EdgeError("http", { detail: "answer held secret-token-0123" }, { status: 500 }),
    );
    assert.ok(!JSON.stringify(health.view()).includes("secret"));
  });
});
