// nodes/lib/commands/inbox-poller.ts, the account's inboxes: an inbox forgotten 10 minutes after
// its last wait is read anew, from a full first page; the early reads that gave way are counted
// over every inbox; a closed poller reads no inbox and counts none, and watches an inbox anew.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const { InboxPoller } = lib("commands/inbox-poller");
const { AnswerTimes } = lib("commands/answer-times");

/** Empty inboxes; each request recorded as [inbox, start, limit] (an inbox by path as its path). */
const fakes = inboxFakes({
  idBase: 0xd00000,
  request: (streamId, page) => [streamId.replace(/^path:/, ""), page.start, page.limit],
});
const { newId, fakeClient } = fakes;

/** A wait on a new command that records nothing. */
const recorder = (over = {}) => fakes.recorder(newId(), over);

describe("unit: commands/inbox-poller, inboxes", function () {
  const world = watchWorld(fakes, { client: false, watch: false });

  it("should read an inbox forgotten after its last wait anew, from a full first page", async function () {
    const client = fakeClient();
    const poller = new InboxPoller(client);
    poller.pace = "fixed";
    const h = poller.watch({ path: "/p" }, recorder());
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [
      ["/p", 0, 100],
      ["/p", 0, 10],
    ]);
    h.stop();
    await world.clock.tickAsync(10 * 60_000);
    client.requests.length = 0;
    poller.watch({ path: "/p" }, recorder());
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [["/p", 0, 100]], "nothing of it is known any more");
    poller.close();
  });

  it("should keep an inbox read less than 10 minutes ago, and read on from what it read", async function () {
    const client = fakeClient();
    const poller = new InboxPoller(client);
    poller.pace = "fixed";
    const h = poller.watch({ path: "/p" }, recorder());
    await world.clock.tickAsync(1000);
    h.stop();
    await world.clock.tickAsync(10 * 60_000 - 1001);
    client.requests.length = 0;
    poller.watch({ path: "/p" }, recorder());
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [["/p", 0, 10]]);
    poller.close();
  });

  it("should count the early reads that gave way over every inbox", async function () {
    const client = fakeClient();
    client.room = false;
    client.queued = 1;
    const poller = new InboxPoller(client, AnswerTimes.withAccount(100));
    poller.watch({ streamId: "a" }, recorder({ intervalMs: 5000 }));
    await world.clock.tickAsync(120);
    const one = poller.gaveWay;
    assert.ok(one >= 1, `gave way ${one} times`);
    poller.watch({ streamId: "b" }, recorder({ intervalMs: 5000 }));
    await world.clock.tickAsync(116);
    assert.ok(poller.gaveWay >= one + 2, `gave way ${poller.gaveWay} times`);
    poller.close();
  });

  it("should read no inbox after close, count none, and watch an inbox anew", async function () {
    const client = fakeClient();
    const poller = new InboxPoller(client);
    poller.pace = "fixed";
    poller.watch({ streamId: "a" }, recorder());
    poller.watch({ streamId: "b" }, recorder());
    await world.clock.tickAsync(0);
    poller.close();
    assert.equal(poller.size, 0);
    client.requests.length = 0;
    await world.clock.tickAsync(5000);
    assert.deepEqual(client.requests, []);
    poller.watch({ streamId: "a" }, recorder());
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [["a", 0, 100]]);
    poller.close();
  });
});
