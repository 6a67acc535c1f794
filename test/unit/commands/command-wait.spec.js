// nodes/lib/commands/command-wait.ts: the round trip's wait without Node-RED, on a real inbox
// poller against the simulator. It ends once, with an outcome: complete or fault with the
// command's markers, timed out only after a read of the inbox made after the deadline, an error
// when the inbox is refused for good, or cancelled.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { useSimulator, control, waitFor } = require("../../support/simulator");

const { CommandWait } = lib("commands/command-wait");
const { InboxPoller } = lib("commands/inbox-poller");

/** Records its outcomes (there must be one) and the COMMAND_START markers it was shown. */
class RecordingWait extends CommandWait {
  outcomes = [];
  starts = [];
  ended(outcome) {
    this.outcomes.push(outcome);
  }
  onStartMarker(marker) {
    this.starts.push(marker);
  }
}

let serial = 0;
/** A command id in the service's shape, new for each call. */
const newId = () => `e${(++serial).toString(16).padStart(24, "0")}`;

describe("lib/commands/command-wait", function () {
  const env = useSimulator();
  let poller;
  let inbox;

  beforeEach(function () {
    poller = new InboxPoller(env.client());
    inbox = { path: `/${env.sim.company}/devices/lcd-board/:inbox` };
  });
  afterEach(function () {
    poller.close();
  });

  const wait = (commandId, timeoutMs = 10_000) =>
    new RecordingWait({
      commandId,
      since: Date.now() - 1000,
      intervalMs: 100,
      timeoutMs,
      startedAt: Date.now(),
    });
  const marker = (status, ref) =>
    control(env.sim, "POST", "/events", { path: inbox.path, elems: { cmd: { status, ref } } });
  const ended = (w) => waitFor(() => w.outcomes.length > 0, { what: "the outcome" });

  it("ends complete with its marker and every marker of the command, in order", async function () {
    const id = newId();
    const w = wait(id);
    w.start(poller, inbox, w.timeoutMs);
    await marker("COMMAND_START", id);
    await waitFor(() => w.starts.length === 1, { what: "the start marker" });
    await marker("COMMAND_COMPLETE", id);
    await ended(w);
    const [outcome] = w.outcomes;
    assert.equal(outcome.kind, "complete");
    assert.deepEqual(
      outcome.markers.map((m) => m.elems.cmd.status),
      ["COMMAND_START", "COMMAND_COMPLETE"],
    );
    assert.equal(outcome.marker, outcome.markers[1]);
    assert.ok(outcome.elapsed >= 0);
    assert.equal(poller.size, 0, "the inbox is no longer read");
  });

  it("ends fault on the command's fault marker, not on another command's", async function () {
    const id = newId();
    const w = wait(id);
    w.start(poller, inbox, w.timeoutMs);
    await marker("COMMAND_FAULT", newId());
    await marker("COMMAND_FAULT", id);
    await ended(w);
    assert.equal(w.outcomes[0].kind, "fault");
    assert.equal(w.outcomes[0].marker.elems.cmd.ref, id);
    assert.equal(w.outcomes[0].markers.length, 1);
  });

  it("ends timed out only after a read of the inbox that started after the deadline", async function () {
    const w = wait(newId(), 300);
    const deadline = w.startedAt + w.timeoutMs;
    w.start(poller, inbox, w.timeoutMs);
    await ended(w);
    const endedAt = Date.now();
    assert.equal(w.outcomes[0].kind, "timed-out");
    assert.deepEqual(w.outcomes[0].markers, []);
    assert.equal(w.outcomes[0].readError, undefined);
    const log = (await control(env.sim, "GET", "/requests?limit=1000")).json;
    const late = log.filter(
      (r) => r.method === "GET" && r.url.includes("inbox") && r.time >= deadline,
    );
    assert.ok(late.length >= 1, "no read of the inbox after the deadline");
    assert.ok(late[0].time <= endedAt);
  });

  it("ends with the error when the inbox is refused for good", async function () {
    const w = wait(newId());
    w.start(poller, { path: `/${env.sim.company}/devices/no-such-device/:inbox` }, w.timeoutMs);
    await ended(w);
    assert.equal(w.outcomes[0].kind, "error");
    assert.equal(w.outcomes[0].error.name, "EdgeError");
  });

  it("ends cancelled once, however often it is cancelled, and never with a marker after", async function () {
    const id = newId();
    const w = wait(id);
    w.start(poller, inbox, w.timeoutMs);
    w.cancel();
    w.cancel();
    await marker("COMMAND_COMPLETE", id);
    assert.deepEqual(w.outcomes, [{ kind: "cancelled" }]);
    assert.equal(poller.size, 0);
  });

  it("ends at start on a marker read before it started, and leaves the inbox unread", async function () {
    // A first wait keeps the inbox read; the second command's marker lands before its wait starts.
    const first = wait(newId());
    first.start(poller, inbox, first.timeoutMs);
    const id = newId();
    const added = (await marker("COMMAND_COMPLETE", id)).json;
    // Reads of one inbox follow one another: once a second read after the marker has started,
    // the first has been handled and the marker waits, unclaimed, in the watch.
    await waitFor(
      async () => {
        const log = (await control(env.sim, "GET", "/requests?limit=1000")).json;
        const reads = log.filter(
          (r) => r.method === "GET" && r.url.includes("inbox") && r.time > added.creationDate,
        );
        return reads.length >= 2;
      },
      { what: "two reads after the marker" },
    );
    const second = wait(id);
    second.start(poller, inbox, second.timeoutMs);
    assert.equal(second.outcomes[0]?.kind, "complete");
    first.cancel();
    assert.equal(poller.size, 0, "an ended wait still holds the inbox");
  });

  it("resumed with its id, takes the result another wait read while it stood cancelled", async function () {
    // Issue 35 (seed 35.5): a deploy disables the node of a wait (its wait is cancelled, to be
    // resumed); another node's wait on the same inbox, through the same account, reads the
    // command's COMPLETE meanwhile. The resumed wait must take it, not end timed out at its last
    // read, which finds the marker already read.
    const id = newId();
    const stopped = wait(id);
    stopped.start(poller, inbox, stopped.timeoutMs);
    stopped.cancel();
    const other = newId();
    const reader = wait(other);
    reader.start(poller, inbox, reader.timeoutMs);
    await marker("COMMAND_COMPLETE", id);
    await marker("COMMAND_COMPLETE", other);
    await ended(reader);
    assert.equal(reader.outcomes[0].kind, "complete");
    // A wait without a command id takes markers by date, but never one naming an ended wait's id.
    const noId = wait(undefined, 150);
    noId.start(poller, inbox, noId.timeoutMs);
    await ended(noId);
    assert.equal(noId.outcomes[0].kind, "timed-out");
    // Resumed past its deadline: its one last read alone would find nothing new.
    const resumed = new RecordingWait({
      commandId: id,
      since: stopped.since,
      intervalMs: 100,
      timeoutMs: 200,
      startedAt: Date.now() - 1000,
    });
    resumed.start(poller, inbox, resumed.startedAt + resumed.timeoutMs - Date.now());
    await ended(resumed);
    assert.equal(resumed.outcomes[0].kind, "complete");
    assert.equal(resumed.outcomes[0].marker.elems.cmd.ref, id);
  });
});
