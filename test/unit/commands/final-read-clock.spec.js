// A command wait's read after its deadline, on virtual time (issue 36): the wait, the account's
// inbox poller and its read schedule, and the API client, all real, with an inbox answered in
// process (test/support/virtual-api.js). The device completes the command after the last early
// read before the deadline and before the deadline itself; only the read after the deadline can
// see it. On a real clock (test/reliability/await-command.spec.js) a loaded machine pushed an early
// read past the moment the device answered, and that read found the result ("answered after
// 2055 ms"): which read found it depended on the load. Here every read's time is the code's own.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { useVirtualApi } = require("../../support/virtual-api");

const { CommandWait } = lib("commands/command-wait");
const { InboxPoller } = lib("commands/inbox-poller");
const { AnswerTimes } = lib("commands/answer-times");

const INBOX = "/demo/devices/lcd-board/:inbox";
const ID = "e0000000000000000000000a1";

class RecordingWait extends CommandWait {
  outcomes = [];
  ended(outcome) {
    this.outcomes.push(outcome);
  }
}

describe("unit: a command wait's read after the deadline, on virtual time", function () {
  const v = useVirtualApi();

  /**
   * A command created now whose device completes it `doneAfter` ms later, a wait of `timeoutMs`
   * at an interval of an hour, and an account that knows `answers` of its devices.
   */
  async function run({ doneAfter, timeoutMs, answers }) {
    const created = Date.now();
    const complete = {
      id: "m1",
      streamId: "s-inbox",
      path: INBOX,
      creationDate: created + doneAfter,
      elems: { cmd: { status: "COMMAND_COMPLETE", ref: ID } },
    };
    const { client, requests } = v.client((req) => {
      assert.equal(req.url.searchParams.get("path"), INBOX);
      const events = Date.now() >= complete.creationDate ? [complete] : [];
      const start = Number(req.url.searchParams.get("start") ?? 0);
      return { body: events.slice(start) };
    });
    const poller = new InboxPoller(client, answers);
    const wait = new RecordingWait({
      commandId: ID,
      since: created,
      intervalMs: 3_600_000,
      timeoutMs,
      startedAt: created,
    });
    try {
      wait.start(poller, { path: INBOX }, timeoutMs);
      await v.until(() => wait.outcomes.length > 0);
    } finally {
      poller.close();
    }
    return { outcome: wait.outcomes[0], reads: requests.map((r) => r.at - created) };
  }

  it("finds a result that came after the early reads of a new account only by its read after the deadline", async function () {
    // A new account reads 125, 250, 500, 1,000 and 2,000 ms after the command, then 4,000.
    const { outcome, reads } = await run({ doneAfter: 2500, timeoutMs: 3000 });
    assert.deepEqual(reads, [125, 250, 500, 1000, 2000, 3000]);
    assert.equal(outcome.kind, "complete");
    assert.equal(outcome.marker.id, "m1");
    assert.equal(outcome.elapsed, 3000);
  });

  it("finds a result that came after the early reads of an account that knows its device only by its read after the deadline", async function () {
    const answers = new AnswerTimes();
    answers.learn(`path:${INBOX}`, 100);
    // Just after its 100 ms, then after gaps of 50, 100, 200 ... ms: the last before the deadline
    // 1,665 ms after the command, the next 3,265 ms after it.
    const { outcome, reads } = await run({ doneAfter: 2500, timeoutMs: 3000, answers });
    assert.deepEqual(reads, [115, 165, 265, 465, 865, 1665, 3000]);
    assert.equal(outcome.kind, "complete");
    assert.equal(outcome.elapsed, 3000);
  });

  it("ends timed out, after its read after the deadline, when the device answers later still", async function () {
    const { outcome, reads } = await run({ doneAfter: 3500, timeoutMs: 3000 });
    assert.equal(reads.at(-1), 3000);
    assert.equal(outcome.kind, "timed-out");
    assert.equal(outcome.elapsed, 3000);
  });
});
