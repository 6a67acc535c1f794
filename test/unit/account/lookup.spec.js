// nodes/lib/account/lookup.ts: a worker node reaches its account's services, or fails with the
// account's configuration error, or with no-account.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { accountOf, healthOf, intakeOf } = lib("account/lookup");
const { EdgeError } = lib("api/errors");

/** The one part of the runtime a lookup uses: RED.nodes.getNode. */
const runtimeWith = (nodes) => ({ nodes: { getNode: (id) => nodes[id] ?? null } });

describe("unit: account/lookup", function () {
  const services = {
    client: { limiter: { limits: { concurrent: 8, queueMax: 1000 } } },
    health: {},
  };

  it("should give the account's services", function () {
    assert.equal(accountOf(runtimeWith({ acc: { services } }), "acc"), services);
    assert.equal(healthOf(runtimeWith({ acc: { services } }), "acc"), services.health);
    assert.deepEqual(intakeOf(runtimeWith({ acc: { services } }), "acc")(), {
      running: 8,
      waiting: 1000,
    });
  });

  it("should fail with no-account when none is set or it does not exist", function () {
    assert.throws(() => accountOf(runtimeWith({}), undefined), { code: "no-account" });
    assert.throws(() => accountOf(runtimeWith({}), "gone"), { code: "no-account" });
    assert.equal(healthOf(runtimeWith({}), "gone"), undefined);
    assert.equal(intakeOf(runtimeWith({}), "gone")(), undefined);
  });

  it("should fail with the account's configuration error when it has no services", function () {
    const configError = new EdgeError("bad-config", { detail: "the token is empty" });
    const broken = { services: undefined, configError };
    assert.throws(
      () => accountOf(runtimeWith({ acc: broken }), "acc"),
      (err) => err === configError,
    );
    assert.equal(healthOf(runtimeWith({ acc: broken }), "acc"), undefined);
  });
});
