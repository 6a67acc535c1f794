// The fleet node's saved jobs: the await node's saved records (lib/records/saved-records.ts) with
// the job's own check. What the records do is tested with the await node's waits
// (test/unit/records/saved-waits.spec.js); here, that the fleet's jobs do the same, chiefly that a
// deploy changing the node's Store moves its jobs to the new store.
"use strict";
const assert = require("node:assert/strict");
const { twoStores } = require("../../support/context-stores");
const { lib } = require("../../support/lib");
const { savedJob } = require("../../support/saved-jobs");
const { JOBS } = lib("records/saved-jobs");
const { KeptRecords } = lib("records/kept-records");
const { SavedRecords } = lib("records/saved-records");

/** A node's jobs, in memory (`kept`) and in its context store, as the fleet node keeps them. */
const jobStore = (node, store, kept, onError) => new SavedRecords(node, store, kept, JOBS, onError);

function job(name, startedAt = Date.now()) {
  return savedJob(name, {
    startedAt,
    devices: [{ device: "d1", state: "sent", sentAt: startedAt, commandId: "c1" }],
    msg: { _msgid: "m", topic: name },
  });
}

const noBad = (key, field) => assert.fail(`bad ${key}: ${field}`);

describe("unit: records/saved-jobs", function () {
  it("should move a running job to the new store when a deploy changes the Store, and leave none in the old one", async function () {
    const { node, stores } = twoStores();
    const kept = new KeptRecords();
    const inA = jobStore(node, "a", kept.of("n1"), assert.fail);
    await inA.restorable(noBad);
    const key = inA.newKey();
    inA.save(key, job("hall 2"));
    assert.ok(stores.a.has(key));
    // Redeployed with Store b: the job resumes, is written to b and goes from a, so that a
    // restart that finds Store a chosen again does not resume a job that has long ended.
    const inB = jobStore(node, "b", kept.of("n1"), assert.fail);
    const list = await inB.restorable(noBad);
    assert.deepEqual(
      list.map((r) => [r.key, r.job.job, r.msg.topic]),
      [[key, "hall 2", "hall 2"]],
    );
    assert.ok(stores.b.has(key));
    assert.equal(stores.a.has(key), false);
  });

  it("should resume after a restart from the store alone, and drop a record whose message is not one", async function () {
    const { node, stores } = twoStores();
    const first = jobStore(node, "a", new KeptRecords().of("n1"), assert.fail);
    const key = first.newKey();
    first.save(key, job("kept"));
    const broken = first.newKey();
    first.save(broken, { ...job("broken"), msg: "[1]" });
    const bad = [];
    const list = await jobStore(node, "a", new KeptRecords().of("n1"), assert.fail).restorable(
      (k, field) => bad.push([k, field]),
    );
    assert.deepEqual(
      list.map((r) => r.key),
      [key],
    );
    assert.deepEqual(bad, [[broken, "msg"]]);
    assert.equal(stores.a.has(broken), false);
  });

  it("should not resume a job found only in the store once this process has read the store", async function () {
    const { node, stores } = twoStores();
    const kept = new KeptRecords();
    const s = jobStore(node, "a", kept.of("n1"), assert.fail);
    await s.restorable(noBad);
    // A job that ended here, whose removal did not reach the store: resumed, it would report twice.
    stores.a.set("edgewire-fleet-stale", job("stale"));
    assert.deepEqual(await jobStore(node, "a", kept.of("n1"), assert.fail).restorable(noBad), []);
    assert.equal(stores.a.has("edgewire-fleet-stale"), false);
  });
});
