// A server of the specs' own for the await node: one device's `:inbox`, listed newest first with
// `start` and `limit` as the spec shows, whose markers a test writes (ids of any shape, as
// strings or JSON numbers), which the simulator cannot. `state.reads` counts the inbox GETs.
"use strict";
const { serve } = require("./http-server");

const INBOX = "/demo/devices/lcd-board/:inbox";

function envelope(res, body) {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ head: { ok: true, status: 200, messages: [], errors: [] }, body }));
}

/** Serves the inbox holding `events`; resolves with {url, close, state}. */
async function inboxServer(events = []) {
  const state = { events, reads: 0 };
  const server = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    if (req.method !== "GET" || url.searchParams.get("path") !== INBOX) {
      res.statusCode = 404;
      envelope(res, null);
      return;
    }
    state.reads++;
    const start = Number(url.searchParams.get("start") ?? 0);
    const limit = Number(url.searchParams.get("limit") ?? 20);
    const newestFirst = [...state.events].sort((a, b) => b.creationDate - a.creationDate);
    envelope(res, newestFirst.slice(start, start + limit));
  });
  return { ...server, state };
}

/** The account of a flow on such a server. */
const account = (server) => ({ url: server.url, company: "demo", user: "u", token: "tok-of-test" });

let serial = 0;
/** An inbox event with `elems`, created at `creationDate`. */
const marker = (creationDate, elems) => ({
  id: `m${++serial}`,
  streamId: "s-inbox",
  path: INBOX,
  creationDate,
  elems,
});

module.exports = { INBOX, envelope, inboxServer, account, marker };
