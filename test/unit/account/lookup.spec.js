// nodes/lib/account/lookup.ts: a worker node reaches its account's client, or fails with the
// account's configuration error, or with no-account.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { clientOf } = lib("account/lookup");
const { EdgeError } = lib("api/errors");

/** The one part of the runtime a lookup uses: RED.nodes.getNode. */
const runtimeWith = (nodes) => ({ nodes: { getNode: (id) => nodes[id] ?? null } });

describe("unit: account/lookup", function () {
  const services = { client: {}, poller: {}, names: {}, serial: {}, configError: undefined };

  it("should give the account's services", function () {
    const found = clientOf(runtimeWith({ acc: services }), "acc");
    assert.equal(found.client, services.client);
    assert.equal(found.poller, services.poller);
    assert.equal(found.names, services.names);
    assert.equal(found.account, services);
  });

  it("should fail with no-account when none is set or it does not exist", function () {
    assert.throws(() => clientOf(runtimeWith({}), undefined), { code: "no-account" });
    assert.throws(() => clientOf(runtimeWith({}), "gone"), { code: "no-account" });
  });

  it("should fail with the account's configuration error when it has no client", function () {
    const configError = new EdgeError("bad-config", { detail: "the token is empty" });
    const broken = { ...services, client: undefined, configError };
    assert.throws(
      () => clientOf(runtimeWith({ acc: broken }), "acc"),
      (err) => err === configError,
    );
    const silent = { ...services, names: undefined };
    assert.throws(() => clientOf(runtimeWith({ acc: silent }), "acc"), { code: "no-account" });
  });
});
