// edge-fleet-command against a server written here, not the simulator: devices whose answers the
// simulator does not make, such as a COMMAND_COMPLETE marker nested deeper than Node-RED can copy
// (issue 28). Each device has a `:command` stream that takes the command and an `:inbox` that
// holds its marker from then on.
"use strict";
const assert = require("node:assert/strict");
const { next, collect, noMessage, withRed } = require("../support/red");
const { startFlow } = require("../support/flow");
const { serve } = require("../support/http-server");
const { envelope, account } = require("../support/inbox-server");
const { fleetNode } = require("../support/fleet");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const ELEMS = { "/lcd/txt1": "deep" };

/** `levels` objects nested in each other, built without recursion. */
function nested(levels) {
  let value = { leaf: true };
  for (let i = 1; i < levels; i++) value = { down: value };
  return value;
}

/**
 * A server that creates each command it is sent (ids c1, c2, ...) and answers it at once in the
 * device's inbox with COMMAND_COMPLETE; `detail(device)` is put into that marker.
 */
async function fleetServer(detail) {
  const inboxes = new Map();
  let serial = 0;
  const server = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      if (req.method === "POST" && url.pathname === "/v5.0/demo/event") {
        const { path } = JSON.parse(body);
        const device = /^\/demo\/devices\/([^/]+)\/:command$/.exec(path)?.[1];
        const now = Date.now();
        const id = `c${++serial}`;
        const inbox = `/demo/devices/${device}/:inbox`;
        const marker = {
          id: `m${serial}`,
          streamId: `s-${device}-inbox`,
          path: inbox,
          creationDate: now + 1,
          elems: { status: "COMMAND_COMPLETE", ref: id, detail: detail(device) },
        };
        inboxes.set(inbox, [marker, ...(inboxes.get(inbox) ?? [])]);
        envelope(res, { id, streamId: `s-${device}-cmd`, path, creationDate: now, elems: {} });
        return;
      }
      if (req.method === "GET" && url.pathname === "/v5.0/demo/event") {
        const start = Number(url.searchParams.get("start") ?? 0);
        const limit = Number(url.searchParams.get("limit") ?? 20);
        const events = inboxes.get(url.searchParams.get("path")) ?? [];
        envelope(res, events.slice(start, start + limit));
        return;
      }
      res.statusCode = 404;
      envelope(res, null);
    });
  });
  return server;
}

describe("edge-fleet-command and answers the simulator does not make", function () {
  this.timeout(20_000);
  withRed();

  for (const wiring of ["one node", "two nodes"]) {
    it(`ends a device whose COMPLETE marker is 1,200 levels deep with too-deep-msg, without its marker, and still reports (output 2 wired to ${wiring})`, async function () {
      const server = await fleetServer((device) => (device === "deep-1" ? nested(1200) : "ok"));
      try {
        const each = wiring === "two nodes" ? ["each", "each2"] : ["each"];
        const { get } = await startFlow(
          account(server),
          [
            fleetNode({ concurrency: 1, wires: [["report"], each] }),
            { id: "report", type: "helper" },
            { id: "each", type: "helper" },
            { id: "each2", type: "helper" },
          ],
          { account: { rate: 0 }, extraTypes: [FLEET] },
        );
        get("f1").receive({ payload: ELEMS, devices: ["deep-1", "ok-1"], job: "first" });
        const r = (await next(get("report"), 10_000)).payload;
        assert.equal(r.job, "first");
        assert.deepEqual(
          r.devices.map((d) => [d.device, d.outcome, d.error]),
          [
            ["deep-1", "complete", "too-deep-msg"],
            ["ok-1", "complete", null],
          ],
        );
        assert.match(r.devices[0].message, /deeper than Node-RED can copy|too-deep-msg/);
        for (const helper of each) {
          const msgs = await collect(get(helper), 2, 5000);
          const deep = msgs.find((m) => m.device === "deep-1");
          assert.equal(deep.edgeError.code, "too-deep-msg");
          assert.equal(deep.payload, null);
          assert.deepEqual(deep.markers, []);
          assert.equal(deep.command.id, "c1");
          const ok = msgs.find((m) => m.device === "ok-1");
          assert.equal(ok.payload.elems.ref, "c2");
        }
        // The node takes the next job: nothing is left queued behind the deep answer.
        get("f1").receive({ payload: ELEMS, devices: ["ok-2"], job: "second" });
        const second = (await next(get("report"), 10_000)).payload;
        assert.equal(second.job, "second");
        assert.equal(second.complete, 1);
        await noMessage(get("caught"), 100);
      } finally {
        await server.close();
      }
    });
  }
});
