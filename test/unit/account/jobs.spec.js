// lib/account/jobs.ts alone: the sidebar's list of running fleet jobs, from what each registered
// edge-fleet-command node says of its job; oldest first, bounded, the job's name redacted.
"use strict";
const assert = require("node:assert/strict");
const { registerJob, jobsOf, MAX_JOBS } = require("../../../dist/nodes/lib/account/jobs");

const TOKEN = "secret-token-0123456789";
const redact = (text) => text.split(TOKEN).join("[redacted]");

/** A fleet job's progress as the node would describe it. */
function view(props) {
  return {
    job: "firmware",
    total: 10,
    sent: 4,
    complete: 2,
    fault: 1,
    timedOut: 0,
    failed: 0,
    notSent: 6,
    inFlight: 1,
    startedAt: 1000,
    restored: false,
    state: "running",
    ...props,
  };
}

describe("lib/account/jobs", function () {
  const unregister = [];
  afterEach(function () {
    for (const u of unregister.splice(0)) u();
  });

  it("lists the running job of each registered node of the account, with its counts and node", function () {
    let running = view({});
    unregister.push(
      registerJob({ nodeId: "f1", accountId: "acc", job: () => running }),
      registerJob({ nodeId: "f2", accountId: "acc", job: () => undefined }),
      registerJob({ nodeId: "f3", accountId: "other", job: () => view({ job: "elsewhere" }) }),
    );
    assert.deepEqual(jobsOf("acc", redact), {
      total: 1,
      rows: [{ ...view({}), node: "f1" }],
    });
    // Asked again at every snapshot: the progress as it stands.
    running = view({ sent: 10, notSent: 0, complete: 8, state: "stopping" });
    const [row] = jobsOf("acc", redact).rows;
    assert.equal(row.sent, 10);
    assert.equal(row.state, "stopping");
    running = undefined;
    assert.deepEqual(jobsOf("acc", redact), { total: 0, rows: [] });
    assert.equal(jobsOf("other", redact).rows[0].job, "elsewhere");
  });

  it("stops listing a node once it unregisters", function () {
    const stop = registerJob({ nodeId: "f1", accountId: "acc", job: () => view({}) });
    assert.equal(jobsOf("acc", redact).total, 1);
    stop();
    assert.equal(jobsOf("acc", redact).total, 0);
  });

  it("lists the oldest MAX_JOBS jobs and counts the others", function () {
    for (let i = 0; i < MAX_JOBS + 5; i++) {
      const started = 10_000 - i;
      unregister.push(
        registerJob({
          nodeId: `f${i}`,
          accountId: "acc",
          job: () => view({ job: `j${i}`, startedAt: started }),
        }),
      );
    }
    const list = jobsOf("acc", redact);
    assert.equal(list.total, MAX_JOBS + 5);
    assert.equal(list.rows.length, MAX_JOBS);
    assert.equal(list.rows[0].job, `j${MAX_JOBS + 4}`);
    for (let k = 1; k < list.rows.length; k++)
      assert.ok(list.rows[k - 1].startedAt <= list.rows[k].startedAt);
  });

  it("takes the token out of a job's name and passes on nothing but the view's fields", function () {
    unregister.push(
      registerJob({
        nodeId: "f1",
        accountId: "acc",
        job: () => ({ ...view({ job: `update ${TOKEN}` }), msg: { token: TOKEN } }),
      }),
    );
    const [row] = jobsOf("acc", redact).rows;
    assert.equal(row.job, "update [redacted]");
    assert.equal(row.msg, undefined);
    assert.ok(!JSON.stringify(row).includes(TOKEN.slice(0, 8)));
  });
});
