// nodes/lib/device/merge.ts: a merge reads the whole state, changes it and writes all of it back
// (docs/api-notes.md, Update rules); writes of one device go one after another. Against the
// simulator, through the real client.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { useSimulator } = require("../../support/simulator");
const { SEED } = require("../../support/seed");

const { applyPatch, merge, replace } = lib("device/merge");
const { KeyedQueue } = lib("device/keyed-queue");

describe("unit: device/merge", function () {
  const env = useSimulator();

  it("should set, change and remove keys, leaving the others", function () {
    const state = { a: "1", b: 2, c: true };
    assert.deepEqual(applyPatch(state, { b: 3, c: null, d: "new" }), { a: "1", b: 3, d: "new" });
    assert.deepEqual(state, { a: "1", b: 2, c: true }, "the state given is not changed");
    assert.deepEqual(applyPatch(state, {}), state);
  });

  it("should merge into the device's whole state with one read and one write", async function () {
    const client = env.client();
    const device = await merge(client, new KeyedQueue(), SEED.lcd.id, { "/lcd/txt2": "two" }, {});
    assert.deepEqual(device.state, { ...SEED.lcd.state, "/lcd/txt2": "two" });
    assert.deepEqual(env.sim.stats().byRoute, {
      [`GET /v5.0/demo/device/${SEED.lcd.id}`]: 1,
      [`PUT /v5.0/demo/device/${SEED.lcd.id}`]: 1,
    });
  });

  it("should run merges of one device one after another, so none is lost", async function () {
    const client = env.client();
    const queue = new KeyedQueue();
    const keys = Array.from({ length: 8 }, (_, i) => `/lcd/k${i}`);
    await Promise.all(keys.map((k) => merge(client, queue, SEED.lcd.id, { [k]: k }, {})));
    const { state } = await client.getDevice(SEED.lcd.id);
    for (const k of keys) assert.equal(state[k], k, `${k} was lost`);
  });

  it("should make a replace wait for a merge of the same device", async function () {
    const client = env.client();
    const queue = new KeyedQueue();
    const merging = merge(client, queue, SEED.lcd.id, { "/lcd/txt1": "merged" }, {});
    const replacing = replace(client, queue, SEED.lcd.id, { "/lcd/txt1": "replaced" }, {});
    await Promise.all([merging, replacing]);
    const { state } = await client.getDevice(SEED.lcd.id);
    assert.deepEqual(state, { "/lcd/txt1": "replaced" });
  });

  it("should refuse a patch over the payload limit before reading anything", async function () {
    const client = env.client({ maxPayloadBytes: 100 });
    await assert.rejects(
      merge(client, new KeyedQueue(), SEED.lcd.id, { "/lcd/txt1": "x".repeat(200) }, {}),
      { code: "payload-too-large" },
    );
    assert.equal(env.sim.stats().total, 0);
  });
});
