// How often the account reads each of 100 inboxes with pending waits, on virtual time (issue 36):
// the waits, the account's inbox poller and the API client with the default rate limit (20
// requests a second, 8 at once, and the poll lane's own budget), all real, with the inboxes
// answered in process (test/support/virtual-api.js). In a real Node-RED against the simulator
// (test/reliability/await-command.spec.js) the count of reads in a 6 s window measured the
// machine's speed as well: beside a loaded parallel pass the reads queued ("queued 86") and fewer
// came. Here the count is the schedule's and the limiter's alone.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { useVirtualApi } = require("../../support/virtual-api");

const { CommandWait } = lib("commands/command-wait");
const { InboxPoller } = lib("commands/inbox-poller");

class RecordingWait extends CommandWait {
  outcomes = [];
  ended(outcome) {
    this.outcomes.push(outcome);
  }
}

const inboxOf = (i) => `/demo/devices/dev-${i}/:inbox`;

describe("unit: the reads of 100 inboxes with pending waits, on virtual time", function () {
  const v = useVirtualApi();

  it("reads each of 100 devices with pending waits about once per interval under the default rate limit", async function () {
    const { client, requests } = v.client(() => ({ body: [] }), { rateLimit: {} });
    const poller = new InboxPoller(client);
    const waits = [];
    try {
      for (let i = 0; i < 100; i++) {
        const now = Date.now();
        const wait = new RecordingWait({
          commandId: `e${String(i).padStart(24, "0")}`,
          since: now,
          intervalMs: 1000,
          timeoutMs: 120_000,
          startedAt: now,
        });
        wait.start(poller, { path: inboxOf(i) }, 120_000);
        waits.push(wait);
        // The commands went out at the account's 20 a second.
        await v.clock.tickAsync(50);
      }
      assert.equal(poller.size, 100);
      // Past the early reads of the last commands, then a window of 6 s.
      await v.clock.tickAsync(5000);
      const from = Date.now();
      await v.clock.tickAsync(6000);
      const perDevice = new Map(Array.from({ length: 100 }, (_, i) => [inboxOf(i), 0]));
      for (const r of requests) {
        if (r.at < from) continue;
        const path = r.url.searchParams.get("path");
        perDevice.set(path, perDevice.get(path) + 1);
      }
      const counts = [...perDevice.values()].sort((a, b) => a - b);
      // At 1 s, 6 reads each; the old shared queue at 20 a second gave each device one per 5 s.
      // Not more than the interval asks for either: 7 when the window's ends catch two reads.
      assert.ok(
        counts[0] >= 4 && counts.at(-1) <= 7,
        `reads per device in 6000 ms: min ${counts[0]}, max ${counts.at(-1)}`,
      );
      assert.ok(waits.every((w) => w.outcomes.length === 0));
    } finally {
      poller.close();
    }
  });
});
