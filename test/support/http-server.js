// Small HTTP servers of the specs, in this process on a free loopback port: one for a handler (an
// odd or hostile server, a trap for a token) and a collector of what a flow in a real Node-RED
// posts to it, as a user's flow would forward what it got.
"use strict";
const http = require("node:http");

/** Serves `handler` on a free loopback port; resolves with {url, server, close}. */
async function serve(handler) {
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    server,
    // Node-RED keeps its connections alive: close them, or close() waits for their timeout.
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Records the JSON bodies posted to it, by path: `got["/out"]` lists what came to /out, oldest
 * first (a list for each of `paths` from the start, others when first posted to).
 */
async function collector(...paths) {
  const got = Object.fromEntries(paths.map((p) => [p, []]));
  const server = await serve((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      (got[req.url] ??= []).push(JSON.parse(body));
      res.end("ok");
    });
  });
  return { ...server, got };
}

module.exports = { serve, collector };
