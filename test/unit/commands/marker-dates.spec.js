// Issue 35, item 3: a marker that names its command's id is its result whatever its date; dates
// only choose among markers that name no command, and not when the command's date and our clock
// are a day or more apart (then the wait ends with `clock-apart`, never "timed out"). Against an
// inbox listed newest first by date, as the service lists, where an answer dated before its
// command lies below it.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { waitFor } = require("../../support/simulator");

const { CommandWait } = lib("commands/command-wait");
const { InboxPoller } = lib("commands/inbox-poller");

const PATH = "/demo/devices/press-1/:inbox";
const HOUR = 60 * 60 * 1000;

class RecordingWait extends CommandWait {
  outcomes = [];
  ended(outcome) {
    this.outcomes.push(outcome);
  }
}

/** A client whose one inbox lists its events newest first by creationDate, pages by start. */
function fakeClient() {
  const events = [];
  let seq = 0;
  return {
    events,
    add(elems, creationDate) {
      const e = { id: `ev${++seq}`, path: PATH, creationDate, elems };
      events.push(e);
      events.sort((a, b) => b.creationDate - a.creationDate);
      return e;
    },
    limiter: { hasRoomForEarlyPoll: () => true, queuedIn: () => 0 },
    budgetMs: () => 1000,
    async listEventsByPath(_path, { limit, start }) {
      return events.slice(start, start + limit);
    },
  };
}

describe("unit: lib/commands, markers dated before their command or by a clock a day off", function () {
  let client;
  let poller;
  beforeEach(function () {
    client = fakeClient();
    poller = new InboxPoller(client);
    poller.pace = "fixed";
  });
  afterEach(function () {
    poller.close();
  });

  const waitFor1 = (w) => waitFor(() => w.outcomes.length > 0, { what: "the outcome" });
  const start = (commandId, since, timeoutMs = 2000) => {
    const w = new RecordingWait({
      commandId,
      since,
      intervalMs: 30,
      timeoutMs,
      startedAt: Date.now(),
    });
    w.start(poller, { path: PATH }, timeoutMs);
    return w;
  };
  const complete = (ref) => ({ cmd: { status: "COMMAND_COMPLETE", ...(ref ? { ref } : {}) } });

  for (const early of [1, 100, 3000]) {
    it(`should end complete with the command's own COMPLETE dated ${early} ms before the command`, async function () {
      const since = Date.now();
      // An older event of the inbox, above which a read that stopped at the command's date ended.
      client.add({ other: 1 }, since - 60_000);
      const w = start("c-7", since);
      const own = client.add(complete("c-7"), since - early);
      await waitFor1(w);
      assert.equal(w.outcomes[0].kind, "complete");
      assert.equal(w.outcomes[0].marker.id, own.id);
    });
  }

  it("should end complete with a COMPLETE naming the command on a server clock 25 h behind ours", async function () {
    const since = Date.now() - 25 * HOUR;
    const w = start("c-8", since);
    client.add(complete("c-8"), since + 20);
    await waitFor1(w);
    assert.equal(w.outcomes[0].kind, "complete");
  });

  it("should end with clock-apart, not timed out, when a COMPLETE naming no command comes on a server clock 25 h behind", async function () {
    const since = Date.now() - 25 * HOUR;
    const w = start("c-9", since, 300);
    client.add(complete(), since + 20);
    await waitFor1(w);
    const [outcome] = w.outcomes;
    assert.equal(outcome.kind, "error");
    assert.equal(outcome.error.code, "clock-apart");
    assert.equal(outcome.error.mayHaveBeenSent, true);
    assert.equal(outcome.error.params.hours, 25);
  });

  it("should give a COMPLETE naming no command to a wait whose date fits, not to one dated 1970", async function () {
    // A hand-built msg.command with an id and a date of 0: no old marker is its result by date.
    const far = start("c-10", 0, 300);
    const near = start("c-11", Date.now() - 1000);
    client.add(complete(), Date.now());
    await waitFor1(near);
    assert.equal(near.outcomes[0].kind, "complete");
    await waitFor1(far);
    assert.equal(far.outcomes[0].kind, "error");
    assert.equal(far.outcomes[0].error.code, "clock-apart");
  });

  it("should still end timed out when nothing came, whatever the clocks", async function () {
    const w = start("c-12", Date.now() - 25 * HOUR, 200);
    client.add(complete("c-99"), Date.now() - 25 * HOUR + 10);
    await waitFor1(w);
    assert.equal(w.outcomes[0].kind, "timed-out");
  });

  it("should find an answer dated before events read already, when the server's clock stepped back", async function () {
    const since = Date.now();
    client.add({ other: 1 }, since + 2000);
    const w = start("c-13", since);
    // One read sees the inbox as it was: the next event lands below the one read.
    await waitFor(() => poller.size === 1, { what: "the watch" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.add(complete("c-13"), since + 1000);
    await waitFor1(w);
    assert.equal(w.outcomes[0].kind, "complete");
  });
});
