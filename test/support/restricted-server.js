// A server that speaks the API but knows less of it than the simulator, as another implementation
// may: it passes every request to a simulator, except that with `idsOnly` a device path holding a
// name (`GET|PUT /device/<name>`, the undocumented fall-back) is answered 404, and with
// `noList: 404|405` the hosted service's lists (`GET /device`, `GET /stream`) are unknown.
"use strict";
const http = require("node:http");

const DEVICE_ID = /^d[0-9a-f]{24}$/;

function envelope(status, error) {
  return JSON.stringify({
    head: { status, ok: false, messages: [], errors: [error], references: {} },
    body: null,
  });
}

/** Starts the restricted server in front of `sim`; resolves with {url, user, token, company, close}. */
async function startRestricted(sim, { idsOnly = false, noList } = {}) {
  const target = new URL(sim.url);
  const seen = [];
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, "http://x");
    const parts = pathname.split("/"); // ["", "v5.0", company, resource, id?]
    const resource = parts[3];
    const id = parts[4] === undefined ? "" : decodeURIComponent(parts[4]);
    seen.push(`${req.method} ${pathname}`);
    const refuse = (status, error) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(envelope(status, error));
    };
    if (noList && (resource === "device" || resource === "stream") && id === "")
      return refuse(noList, noList === 405 ? "Method not allowed" : `Not found: ${pathname}`);
    if (idsOnly && resource === "device" && id !== "" && !DEVICE_ID.test(id))
      return refuse(404, `Device not found: ${id}`);
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(forward);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    company: sim.company,
    user: sim.user,
    token: sim.token,
    /** "METHOD /path" of every request received, in order. */
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

module.exports = { startRestricted };
