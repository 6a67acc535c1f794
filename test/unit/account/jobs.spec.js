// lib/account/jobs.ts alone: the sidebar's list of fleet jobs, from what each registered
// edge-fleet-command node says of its job; running ones oldest first, then the ones ended lately
// with how they ended, bounded; the job's name redacted; a cancel reaching the node of the row.
"use strict";
const assert = require("node:assert/strict");
const {
  registerJob,
  jobsOf,
  cancelJob,
  forgetEndedJobs,
  MAX_JOBS,
  MAX_ENDED,
  ENDED_MS,
} = require("../../../dist/nodes/lib/account/jobs");

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
    named: true,
    ...props,
  };
}

/** A node's registration whose job is `job()` (a view with its run), logging into `logged`. */
function source(nodeId, accountId, job, cancelled = []) {
  const logged = [];
  const listing = registerJob({
    nodeId,
    accountId,
    job,
    cancel: (run) => {
      cancelled.push(run);
      return true;
    },
    log: (text) => logged.push(text),
  });
  return { listing, logged, cancelled };
}

describe("lib/account/jobs", function () {
  const unregister = [];
  // A mocha worker runs other spec files first in this process: their fleet jobs may have ended
  // under an account of the same id.
  beforeEach(function () {
    forgetEndedJobs();
  });
  afterEach(function () {
    for (const u of unregister.splice(0)) u.unlist();
    forgetEndedJobs();
  });

  it("lists the running job of each registered node of the account, with its counts, node and id", function () {
    let running = { ...view({}), run: "r1" };
    unregister.push(
      source("f1", "acc", () => running).listing,
      source("f2", "acc", () => undefined).listing,
      source("f3", "other", () => ({ ...view({ job: "elsewhere" }), run: "r3" })).listing,
    );
    assert.deepEqual(jobsOf("acc", redact), {
      total: 1,
      rows: [{ ...view({}), id: "f1:r1", node: "f1" }],
    });
    // Asked again at every snapshot: the progress as it stands.
    running = { ...view({ sent: 10, notSent: 0, complete: 8, state: "stopping" }), run: "r1" };
    const [row] = jobsOf("acc", redact).rows;
    assert.equal(row.sent, 10);
    assert.equal(row.state, "stopping");
    running = undefined;
    assert.deepEqual(jobsOf("acc", redact), { total: 0, rows: [] });
    assert.equal(jobsOf("other", redact).rows[0].job, "elsewhere");
  });

  it("stops listing a node once it unregisters", function () {
    const { listing } = source("f1", "acc", () => ({ ...view({}), run: "r" }));
    assert.equal(jobsOf("acc", redact).total, 1);
    listing.unlist();
    assert.equal(jobsOf("acc", redact).total, 0);
  });

  it("lists the oldest MAX_JOBS jobs and counts the others", function () {
    for (let i = 0; i < MAX_JOBS + 5; i++) {
      const started = 10_000 - i;
      unregister.push(
        source(`f${i}`, "acc", () => ({ ...view({ job: `j${i}`, startedAt: started }), run: "r" }))
          .listing,
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
      source("f1", "acc", () => ({
        ...view({ job: `update ${TOKEN}` }),
        run: "r",
        msg: { token: TOKEN },
      })).listing,
    );
    const [row] = jobsOf("acc", redact).rows;
    assert.equal(row.job, "update [redacted]");
    assert.equal(row.msg, undefined);
    assert.equal(row.run, undefined);
    assert.ok(!JSON.stringify(row).includes(TOKEN.slice(0, 8)));
  });

  it("keeps an ended job listed with how it ended, in place of its running row, newest first after the running ones", function () {
    let running = { ...view({ startedAt: 500 }), run: "r1" };
    const { listing } = source("f1", "acc", () => running);
    unregister.push(listing, source("f2", "acc", () => ({ ...view({}), run: "r2" })).listing);
    const now = Date.now();
    listing.ended("r1", view({ startedAt: 500, inFlight: 0, complete: 9 }), "cancelled", now);
    // Its node still says it runs (it is told a moment later): the ended row stands for it.
    let rows = jobsOf("acc", redact).rows;
    assert.deepEqual(
      rows.map((r) => [r.id, r.state]),
      [
        ["f2:r2", "running"],
        ["f1:r1", "cancelled"],
      ],
    );
    assert.equal(rows[1].endedAt, now);
    assert.equal(rows[1].complete, 9);
    running = { ...view({ startedAt: 2000, job: "next" }), run: "r4" };
    listing.ended("r0", view({ job: "older" }), "aborted", now - 1000);
    listing.ended("r3", view({ job: "newer" }), "done", now + 1);
    rows = jobsOf("acc", redact).rows;
    assert.deepEqual(
      rows.map((r) => `${r.job} ${r.state}`),
      ["firmware running", "next running", "newer done", "firmware cancelled", "older aborted"],
    );
  });

  it("keeps at most MAX_ENDED ended jobs per account, each at most ENDED_MS", function () {
    const { listing } = source("f1", "acc", () => undefined);
    unregister.push(listing);
    const now = Date.now();
    listing.ended("old", view({ job: "too old" }), "done", now - ENDED_MS - 1);
    for (let i = 0; i < MAX_ENDED + 3; i++)
      listing.ended(`r${i}`, view({ job: `j${i}` }), "done", now);
    const { rows } = jobsOf("acc", redact);
    assert.equal(rows.length, MAX_ENDED);
    assert.equal(rows[0].job, `j${MAX_ENDED + 2}`);
    assert.ok(!rows.some((r) => r.job === "too old" || r.job === "j0"));
  });

  it("cancels the running job a row names at its node, and logs it; nothing for another id", function () {
    const s = source("f1", "acc", () => ({ ...view({ job: "rollout" }), run: "r1" }));
    unregister.push(s.listing);
    assert.equal(
      cancelJob("acc", "f1:r0", () => "no"),
      0,
    );
    assert.equal(
      cancelJob("other", "f1:r1", () => "no"),
      0,
    );
    assert.equal(
      cancelJob("acc", "f1:r1", (job) => `cancelled ${job}`),
      1,
    );
    assert.deepEqual(s.cancelled, ["r1"]);
    assert.deepEqual(s.logged, ["cancelled rollout"]);
  });
});
