// Reads follow the commands (issue 20): once the account has seen a device answer, a wait's inbox
// is read just after the device's usual answer time and then after growing gaps, not only on the
// interval; when the poll lane is busy those early reads give way and the inbox is read once per
// interval, as before. Real Node-RED (test helper) against a server written here, whose device
// answers at a pace of its own, with ids of its own shape. Reads are counted, never timed.
"use strict";
const assert = require("node:assert/strict");
const { helper, next, noMessage, withRed } = require("../support/red");
const { startFlow, awaitCommand } = require("../support/flow");
const { serve } = require("../support/http-server");
const { lib } = require("../support/lib");

const { EdgeClient } = lib("api/client");
const { InboxWatch } = lib("commands/inbox-watch");
const { AnswerTimes } = lib("commands/answer-times");

const INBOX = "/demo/devices/lcd-board/:inbox";

/**
 * An inbox whose device answers each command `pace.ms` after it was created: the COMPLETE marker
 * appears in the listing only from then on, dated then. `reads` holds the time of each inbox GET.
 */
async function pacedServer(pace) {
  const commands = [];
  const reads = [];
  const server = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    res.setHeader("content-type", "application/json");
    if (req.method !== "GET" || url.searchParams.get("path") !== INBOX) {
      res.statusCode = 404;
      res.end(JSON.stringify({ head: { ok: false, status: 404, messages: [], errors: ["no"] } }));
      return;
    }
    const now = Date.now();
    reads.push(now);
    const events = commands
      .filter((c) => c.answerAt <= now)
      .map((c) => ({
        id: `answer:${c.id}`,
        streamId: "inbox-1",
        path: INBOX,
        creationDate: c.answerAt,
        elems: { state: "COMMAND_COMPLETE", job: c.id },
      }))
      .sort((a, b) => b.creationDate - a.creationDate);
    const start = Number(url.searchParams.get("start") ?? 0);
    const limit = Number(url.searchParams.get("limit") ?? 20);
    const body = events.slice(start, start + limit);
    res.end(JSON.stringify({ head: { ok: true, status: 200, messages: [], errors: [] }, body }));
  });
  let serial = 0;
  /** A command created now, answered `pace.ms` later; returns the await's input. */
  const command = () => {
    const creationDate = Date.now();
    const id = `job/${++serial}`;
    commands.push({ id, answerAt: creationDate + pace.ms });
    return { command: { id, creationDate, device: "lcd-board" } };
  };
  return { ...server, reads, command };
}

const account = (server) => ({ url: server.url, company: "demo", user: "u", token: "tok-of-test" });

/** The account's poller: how many early reads gave way. */
const poller = () => helper.getNode("acc").services.poller;

describe("early inbox reads of edge-await-command, against a device of its own pace", function () {
  this.timeout(30_000);
  withRed();

  /**
   * The account's first command: nothing is known of its devices' pace, so the interval alone
   * reads (here the read after the deadline finds the answer) and the answer time is learned.
   */
  async function warmUp(server, get) {
    get("a1").receive({ ...server.command(), timeout: 1000 });
    const first = await next(get("ok"), 10_000);
    assert.equal(first.payload.elems.state, "COMMAND_COMPLETE");
  }

  for (const ms of [300, 700]) {
    it(`finds each result of a device answering after ${ms} ms within a few early reads, with a 10 s interval`, async function () {
      const pace = { ms };
      const server = await pacedServer(pace);
      try {
        const { get } = await startFlow(
          account(server),
          awaitCommand({ interval: 10_000, timeout: "20000" }),
          { account: { rate: "", concurrency: "" } },
        );
        await warmUp(server, get);
        const perCommand = [];
        for (let i = 0; i < 5; i++) {
          const before = server.reads.length;
          const input = server.command();
          get("a1").receive(input);
          // Well inside the interval: only early reads can have found it.
          const msg = await next(get("ok"), 8_000);
          assert.equal(msg.command.id, input.command.id);
          assert.equal(msg.payload.elems.job, input.command.id);
          perCommand.push(server.reads.length - before);
        }
        const total = perCommand.reduce((a, b) => a + b, 0);
        assert.ok(total <= 3 * perCommand.length, `reads per command: ${perCommand.join(", ")}`);
        assert.ok(Math.max(...perCommand) <= 5, `reads per command: ${perCommand.join(", ")}`);
        assert.equal(poller().gaveWay, 0);
        await Promise.all([noMessage(get("late"), 0), noMessage(get("caught"), 0)]);
      } finally {
        await server.close();
      }
    });
  }

  it("gives way when the poll lane is busy, and still reads a pending wait's inbox once per interval", async function () {
    const pace = { ms: 200 };
    const server = await pacedServer(pace);
    try {
      // One poll a second: the interval's reads of this inbox use the whole lane.
      const { get } = await startFlow(
        account(server),
        awaitCommand({ interval: 1000, timeout: "20000" }),
        { account: { rate: "", concurrency: "", pollRate: 1 } },
      );
      await warmUp(server, get);
      // The device now takes far longer than it used to: the early reads planned for 200 ms
      // find the lane used by the interval's reads and give way.
      pace.ms = 60_000;
      const before = server.reads.length;
      get("a1").receive(server.command());
      const windowMs = 4500;
      await noMessage(get("ok"), windowMs);
      const reads = server.reads.length - before;
      // At least one read per interval (4 in 4.5 s), and none of the early ones (at most 5).
      assert.ok(reads >= 4 && reads <= 5, `${reads} reads in ${windowMs} ms`);
      assert.ok(poller().gaveWay >= 1, `${poller().gaveWay} early reads gave way`);
      get("a1").receive({ reset: true });
    } finally {
      await server.close();
    }
  });

  it("reads a new wait's inbox at once when its early read gives way, not an interval later", async function () {
    const pace = { ms: 300 };
    const server = await pacedServer(pace);
    // One poll a second; the account already knows its devices answer in about 200 ms.
    const client = new EdgeClient({
      baseUrl: server.url,
      company: "demo",
      token: "tok-of-test",
      rateLimit: { pollPerSecond: 1 },
    });
    const watch = new InboxWatch(client, { path: INBOX }, () => {}, {
      pace: "fast",
      answers: AnswerTimes.withAccount(200),
    });
    try {
      // Another read of the lane uses this second's budget: the early read will find no room.
      await client.listEventsByPath(INBOX, { limit: 1, start: 0 }, { lane: "poll", retries: 0 });
      const before = server.reads.length;
      const input = server.command();
      const markers = [];
      let found;
      const done = new Promise((resolve) => (found = resolve));
      watch.add({
        commandId: input.command.id,
        since: input.command.creationDate,
        intervalMs: 10_000,
        onMarker(event, name) {
          markers.push(name);
          found();
        },
        onError(err) {
          markers.push(err.code);
          found();
        },
        onFinalRead() {},
      });
      // Within a few seconds, not the 10 s interval: the read that gave way is due at once and
      // waits only for the lane (one read a second).
      const limit = new Promise((resolve) => setTimeout(resolve, 5000).unref());
      await Promise.race([done, limit]);
      assert.ok(watch.gaveWay >= 1, `${watch.gaveWay} early reads gave way`);
      assert.deepEqual(markers, ["COMMAND_COMPLETE"], `${server.reads.length - before} reads`);
    } finally {
      watch.close();
      await client.close();
      await server.close();
    }
  });
});
