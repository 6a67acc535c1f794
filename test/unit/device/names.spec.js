// nodes/lib/device/names.ts: a device id becomes the name a stream path needs, with one
// GET /device/<id> per account, remembered; a name is used as it is.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { useSimulator } = require("../../support/simulator");
const { SEED } = require("../../support/seed");

const { DeviceNames } = lib("device/names");

describe("unit: device/names", function () {
  const env = useSimulator();

  it("should turn an id into the device's name once and remember it", async function () {
    const names = new DeviceNames(env.client());
    assert.equal(await names.nameOf(SEED.lcd.id, {}), SEED.lcd.name);
    assert.equal(await names.nameOf(SEED.lcd.id, {}), SEED.lcd.name);
    assert.equal(env.sim.stats().total, 1);
  });

  it("should use a name as it is, with no request", async function () {
    const names = new DeviceNames(env.client());
    assert.equal(await names.nameOf("pump-3", {}), "pump-3");
    assert.equal(await names.nameOf("D5F3C1A2B0000000000000001", {}), "D5F3C1A2B0000000000000001");
    assert.equal(env.sim.stats().total, 0);
  });

  it("should pass on the error of an unknown id", async function () {
    const names = new DeviceNames(env.client());
    await assert.rejects(names.nameOf("d000000000000000000000bad", {}), { code: "not-found" });
  });
});
