// nodes/lib/account/services.ts: what an account shares, built from one client and closed as one.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { useSimulator } = require("../../support/simulator");
const { SEED } = require("../../support/seed");

const { AccountServices } = lib("account/services");

describe("unit: account/services", function () {
  const env = useSimulator();

  it("should share one client among the poller, the names and the watcher", async function () {
    const client = env.client();
    const services = new AccountServices(client);
    assert.equal(services.client, client);
    assert.equal(await services.names.nameOf(SEED.lcd.id, {}), SEED.lcd.name);
    assert.equal(services.poller.size, 0);
    await services.close();
  });

  it("should tell the health of every attempt of the client", async function () {
    const client = env.client({ token: "not-the-token" });
    const services = new AccountServices(client);
    const unwatch = services.health.watch(() => undefined);
    await assert.rejects(client.getDevice(SEED.lcd.id), { code: "auth" });
    assert.ok(services.health.current(), "an authentication failure shows on the account");
    unwatch();
    await services.close();
  });

  it("should close the client with it", async function () {
    const client = env.client();
    const services = new AccountServices(client);
    await services.close();
    await assert.rejects(client.getDevice(SEED.lcd.id), { code: "aborted" });
  });
});
