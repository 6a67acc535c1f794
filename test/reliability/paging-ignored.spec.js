// edge-list-events against a server that ignores `start` and answers the same full page to every
// request: `all` and `split` each end with one outcome (the events found, paging.more true and a
// warning) after a bounded number of requests, where `all` once never ended and `split` sent 19 of
// 20 events, about 20 requests a second until a redeploy (issue 19). Real Node-RED (test helper)
// against a server written here.
"use strict";
const assert = require("node:assert/strict");
const { next, collect, noMessage, withRed } = require("../support/red");
const { startNode } = require("../support/flow");
const { serve } = require("../support/http-server");

const PAGE = Array.from({ length: 20 }, (_, i) => ({
  id: `ev-${20 - i}`,
  streamId: "s-ignores-start",
  path: "/demo/devices/lcd-board/:inbox",
  creationDate: 1_700_000_000_000 + (20 - i),
  elems: { n: 20 - i },
}));

async function ignoringStart() {
  const starts = [];
  const server = await serve((req, res) => {
    starts.push(new URL(req.url, "http://x").searchParams.get("start"));
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({ head: { ok: true, status: 200, messages: [], errors: [] }, body: PAGE }),
    );
  });
  return { ...server, starts };
}

const account = (server) => ({ url: server.url, company: "demo", user: "u", token: "tok-of-test" });

describe("edge-list-events against a server that ignores start", function () {
  this.timeout(20_000);
  withRed();

  it("ends all with the 20 events found, more: true and a warning, after three requests", async function () {
    const server = await ignoringStart();
    try {
      const { n1, out, caught } = await startNode(
        account(server),
        { type: "edge-list-events", stream: "s-ignores-start", mode: "all", limit: 20 },
        { account: { rate: 0 } },
      );
      const warned = [];
      n1.on("call:warn", (call) => warned.push(String(call.args[0])));
      n1.receive({});
      const msg = await next(out, 10_000);
      assert.deepEqual(msg.payload, PAGE);
      assert.deepEqual(msg.paging, { start: 0, limit: 20, count: 20, more: true });
      // The first page, then the same page twice: the second with nothing new ends it.
      assert.deepEqual(server.starts, ["0", "20", "40"]);
      // The key alone when this spec runs by itself (the helper's runtime has no catalogs yet).
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.match(warned[0], /warn\.no-progress|the server seems to ignore start/);
      await Promise.all([noMessage(out, 200), noMessage(caught, 0)]);
      assert.equal(server.starts.length, 3, "no request after the end");
    } finally {
      await server.close();
    }
  });

  it("ends split with all 20 events, the last carrying parts.count, after three requests", async function () {
    const server = await ignoringStart();
    try {
      const { n1, out, caught } = await startNode(
        account(server),
        { type: "edge-list-events", stream: "s-ignores-start", mode: "split", limit: 20 },
        { account: { rate: 0 } },
      );
      const warned = [];
      n1.on("call:warn", (call) => warned.push(String(call.args[0])));
      n1.receive({});
      const msgs = await collect(out, 20, 10_000);
      assert.deepEqual(
        msgs.map((m) => m.payload),
        PAGE,
      );
      assert.equal(msgs.at(-1).parts.count, 20);
      assert.deepEqual(msgs.at(-1).paging, { start: 0, limit: 20, count: 20, more: true });
      assert.deepEqual(server.starts, ["0", "20", "40"]);
      // The key alone when this spec runs by itself (the helper's runtime has no catalogs yet).
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.match(warned[0], /warn\.no-progress|the server seems to ignore start/);
      await Promise.all([noMessage(out, 200), noMessage(caught, 0)]);
      assert.equal(server.starts.length, 3, "no request after the end");
    } finally {
      await server.close();
    }
  });
});
