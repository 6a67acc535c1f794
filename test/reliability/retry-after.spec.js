// A server's Retry-After on the inbox reads of edge-await-command: 999999 s once held the message
// forever, 99999999 s overflowed Node's timer (TimeoutOverflowWarning, fired after 1 ms) into
// about 100 reads a second (issue 19). The wait must still end by its deadline, with a bounded
// number of reads and no timer overflow; a stream watch waits as long as asked (capped), never
// less. Real Node-RED (test helper) against servers written here.
"use strict";
const assert = require("node:assert/strict");
const { next, noMessage, withRed } = require("../support/red");
const { startFlow, awaitCommand } = require("../support/flow");
const { waitFor, sleep } = require("../support/simulator");
const { serve } = require("../support/http-server");

const INBOX = "/demo/devices/lcd-board/:inbox";

/** Answers inbox reads with `answer(n)` for the n-th read (from 1): a 429 or a page. */
async function inboxServer(answer) {
  const reads = [];
  const server = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    res.setHeader("content-type", "application/json");
    if (url.searchParams.get("path") !== INBOX) {
      res.statusCode = 404;
      res.end(JSON.stringify({ head: { ok: false, status: 404, messages: [], errors: ["no"] } }));
      return;
    }
    reads.push(Date.now());
    const a = answer(reads.length);
    if (a.retryAfter !== undefined) {
      res.statusCode = 429;
      res.setHeader("retry-after", a.retryAfter);
      res.end(
        JSON.stringify({ head: { ok: false, status: 429, messages: [], errors: ["slow down"] } }),
      );
      return;
    }
    const start = Number(url.searchParams.get("start") ?? 0);
    const limit = Number(url.searchParams.get("limit") ?? 20);
    const body = a.page.slice(start, start + limit);
    res.end(JSON.stringify({ head: { ok: true, status: 200, messages: [], errors: [] }, body }));
  });
  return { ...server, reads };
}

const account = (server) => ({ url: server.url, company: "demo", user: "u", token: "tok-of-test" });

/** Records the process warnings emitted while it is on. */
function warnings() {
  const got = [];
  const on = (w) => got.push(w.name);
  process.on("warning", on);
  return { got, off: () => process.off("warning", on) };
}

describe("Retry-After on the inbox reads of edge-await-command", function () {
  this.timeout(20_000);
  withRed();

  for (const retryAfter of ["999999", "99999999"]) {
    it(`ends the wait by its deadline, unread, after one read, when every read answers 429 with Retry-After: ${retryAfter}`, async function () {
      const server = await inboxServer(() => ({ retryAfter }));
      const warned = warnings();
      try {
        const { get } = await startFlow(
          account(server),
          awaitCommand({ timeout: "1500", interval: 100 }),
          { account: { rate: 0 } },
        );
        const shown = [];
        get("a1").on("call:status", (call) => shown.push(call.args[0].text));
        get("a1").receive({
          command: { id: "cmd-1", creationDate: Date.now(), device: "lcd-board" },
        });
        const msg = await next(get("late"), 10_000);
        assert.equal(msg.payload, null);
        assert.equal(msg.timedOut.timeout, 1500);
        assert.match(msg.timedOut.inboxError, /429/);
        assert.ok(msg.elapsed >= 1400, `ended after ${msg.elapsed} ms, before its deadline`);
        assert.ok(shown.includes("unread: 429 rate limited"), JSON.stringify(shown));
        // The first poll met the 429; the pause (capped at 10 minutes) outlasts the deadline, so
        // the read after the deadline is not made: the server asked not to be read.
        await Promise.all([noMessage(get("ok"), 300), noMessage(get("caught"), 0)]);
        assert.equal(server.reads.length, 1, `${server.reads.length} reads`);
        assert.deepEqual(
          warned.got.filter((n) => n === "TimeoutOverflowWarning"),
          [],
        );
      } finally {
        warned.off();
        await server.close();
      }
    });
  }

  it("waits out a pause shorter than the interval at the deadline, then reads once more", async function () {
    const now = Date.now();
    const complete = {
      id: "m1",
      streamId: "s-inbox",
      path: INBOX,
      creationDate: now + 1,
      elems: { COMMAND_COMPLETE: { ref: "cmd-1" } },
    };
    const server = await inboxServer((n) => (n === 1 ? { retryAfter: "1" } : { page: [complete] }));
    try {
      const { get } = await startFlow(
        account(server),
        awaitCommand({ timeout: "300", interval: 5000 }),
        { account: { rate: 0 } },
      );
      get("a1").receive({ command: { id: "cmd-1", creationDate: now, device: "lcd-board" } });
      const msg = await next(get("ok"), 10_000);
      assert.equal(msg.payload.id, "m1");
      // The 429, then the read after the deadline: its one page, short and holding the COMPLETE
      // of the only wait, ends that read.
      assert.equal(server.reads.length, 2);
      // The read after the deadline came no sooner than the server's second allowed.
      assert.ok(
        server.reads[1] - server.reads[0] >= 990,
        `${server.reads[1] - server.reads[0]} ms`,
      );
    } finally {
      await server.close();
    }
  });

  it("waits out a pause longer than the interval but within the final tries, and completes", async function () {
    // The final read is tried three times an interval apart: a pause of 2 s at a 1 s interval
    // is within that, and the marker is there when the pause ends. It once ended "timed out".
    const now = Date.now();
    const complete = {
      id: "m1",
      streamId: "s-inbox",
      path: INBOX,
      creationDate: now + 1,
      elems: { COMMAND_COMPLETE: { ref: "cmd-1" } },
    };
    const server = await inboxServer((n) => (n === 1 ? { retryAfter: "2" } : { page: [complete] }));
    try {
      const { get } = await startFlow(
        account(server),
        awaitCommand({ timeout: "300", interval: 1000 }),
        { account: { rate: 0 } },
      );
      get("a1").receive({ command: { id: "cmd-1", creationDate: now, device: "lcd-board" } });
      const msg = await next(get("ok"), 10_000);
      assert.equal(msg.payload.id, "m1");
      await noMessage(get("late"), 0);
    } finally {
      await server.close();
    }
  });

  it("ends a wait that starts after the paused one ended by its own deadline, after reading once itself", async function () {
    const server = await inboxServer(() => ({ retryAfter: "999999" }));
    try {
      const { get } = await startFlow(
        account(server),
        awaitCommand({ timeout: "1000", interval: 100 }),
        { account: { rate: 0 } },
      );
      const command = () => ({
        command: { id: "cmd-1", creationDate: Date.now(), device: "lcd-board" },
      });
      get("a1").receive(command());
      await next(get("late"), 10_000);
      // The pause was for the wait that has ended: the next one reads the inbox (issue 28: one
      // stray 429 once timed out a device's commands for 10 minutes). Its own 429 pauses it, and
      // it still ends by its deadline, without a read past it.
      get("a1").receive(command());
      const msg = await next(get("late"), 10_000);
      assert.match(msg.timedOut.inboxError, /429/);
      assert.ok(msg.elapsed >= 900, `ended after ${msg.elapsed} ms, before its deadline`);
      assert.equal(server.reads.length, 2, `${server.reads.length} reads`);
    } finally {
      await server.close();
    }
  });

  it("ends the wait by its deadline when the 429 answers a read that was running at the deadline", async function () {
    // The first read is answered at once, the second only after the deadline, with the 429: the
    // final read asked for meanwhile must not wait out the pause.
    let release;
    const held = new Promise((resolve) => (release = resolve));
    const server = await inboxServer((n) => (n === 1 ? { page: [] } : { retryAfter: "999999" }));
    const slow = server.server.listeners("request")[0];
    server.server.removeAllListeners("request");
    let reads = 0;
    server.server.on("request", (req, res) => {
      if (++reads === 2) void held.then(() => slow(req, res));
      else slow(req, res);
    });
    try {
      const { get } = await startFlow(
        account(server),
        awaitCommand({ timeout: "1000", interval: 500 }),
        { account: { rate: 0, timeout: 10_000 } },
      );
      get("a1").receive({
        command: { id: "cmd-1", creationDate: Date.now(), device: "lcd-board" },
      });
      while (reads < 2) await new Promise((r) => setTimeout(r, 20));
      // Held until the deadline has passed, so the final read is asked for while it runs.
      await new Promise((r) => setTimeout(r, 1200));
      release();
      const msg = await next(get("late"), 10_000);
      assert.match(msg.timedOut.inboxError, /429/);
      await noMessage(get("ok"), 300);
      assert.equal(server.reads.length, 2, `${server.reads.length} reads`);
    } finally {
      release();
      await server.close();
    }
  });

  it("makes edge-watch-events wait out a Retry-After of 99999999 s (capped), not read again at once", async function () {
    const reads = [];
    const server = await serve((req, res) => {
      reads.push(req.url);
      res.statusCode = 429;
      res.setHeader("content-type", "application/json");
      res.setHeader("retry-after", "99999999");
      res.end(
        JSON.stringify({ head: { ok: false, status: 429, messages: [], errors: ["slow down"] } }),
      );
    });
    const warned = warnings();
    try {
      const { get } = await startFlow(
        account(server),
        [
          {
            id: "w1",
            type: "edge-watch-events",
            stream: "s-telemetry",
            interval: 250,
            start: "new",
            last: 10,
            store: "",
            wires: [["out"]],
          },
          { id: "out", type: "helper" },
        ],
        { account: { rate: 0 } },
      );
      await waitFor(() => reads.length >= 1, { what: "the first read" });
      // Without the pause the watch reads again 250 + 250 ms later, then 250 + 500 ms.
      await sleep(2000);
      assert.equal(reads.length, 1, `${reads.length} reads`);
      await noMessage(get("out"), 0);
      assert.deepEqual(
        warned.got.filter((n) => n === "TimeoutOverflowWarning"),
        [],
      );
    } finally {
      warned.off();
      await server.close();
    }
  });
});
