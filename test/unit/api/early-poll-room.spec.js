// The rate limiter's answer to an early poll (the await node's reads ahead of the interval): room
// only while no poll waits, a slot stays free for the next command, and at most half of the poll
// lane's budget of the last second is used. Counts only, no timing.
"use strict";
const assert = require("node:assert/strict");
const { RateLimiter } = require("../../../dist/nodes/lib/api/rate-limiter");

describe("rate limiter: room for an early poll", function () {
  it("has room on an idle account", function () {
    const l = new RateLimiter({ perSecond: 20, concurrent: 8 });
    assert.equal(l.hasRoomForEarlyPoll(), true);
  });

  it("has none once half of Polls/s started in the last second", function () {
    const l = new RateLimiter({ perSecond: 20, concurrent: 100, pollPerSecond: 10 });
    const releases = [];
    for (let i = 0; i < 4; i++) releases.push(l.tryAcquire("poll"));
    assert.equal(l.hasRoomForEarlyPoll(), true, "4 of 10");
    releases.push(l.tryAcquire("poll"));
    assert.equal(l.hasRoomForEarlyPoll(), false, "5 of 10");
    for (const r of releases) r();
  });

  it("keeps a slot free for commands", function () {
    const l = new RateLimiter({ perSecond: 0, concurrent: 3 });
    const a = l.tryAcquire("normal");
    assert.equal(l.hasRoomForEarlyPoll(), true, "2 free");
    const b = l.tryAcquire("normal");
    assert.equal(l.hasRoomForEarlyPoll(), false, "1 free");
    a();
    b();
  });

  it("has none while a poll waits for a slot", async function () {
    const l = new RateLimiter({ perSecond: 0, concurrent: 1 });
    const held = l.tryAcquire("normal");
    const waiting = l.acquire(undefined, "poll");
    assert.equal(l.hasRoomForEarlyPoll(), false);
    held();
    (await waiting)();
    assert.equal(l.hasRoomForEarlyPoll(), true);
  });

  it("has no budget limit with Polls/s 0, only the slots", function () {
    const l = new RateLimiter({ perSecond: 20, concurrent: 1000, pollPerSecond: 0 });
    const releases = [];
    for (let i = 0; i < 500; i++) releases.push(l.tryAcquire("poll"));
    assert.equal(l.hasRoomForEarlyPoll(), true);
    for (const r of releases) r();
  });
});
