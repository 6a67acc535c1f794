// A real HTTP proxy for the proxy specs: the registry's `proxy` package (TooTallNate's, Basic auth
// and CONNECT) on 127.0.0.1, with a log of every request it is asked to forward and every tunnel
// it is asked to open, as its own access log would show them.
//
// The API is reachable only through it: the specs point accounts at PROXY_ONLY_HOST, a name under
// the reserved `.test` domain (RFC 2606) that no resolver answers, and the proxy alone knows it
// stands for 127.0.0.1, as a plant's proxy alone resolves the cloud's names. It rewrites that one
// name before the package forwards the request or opens the tunnel; nothing else is changed. A
// direct request to that URL fails with `dns`, so an answer proves the proxy carried it.
"use strict";
const fs = require("node:fs");
const http = require("node:http");
const { makeCertificates, hasOpenssl } = require("./certificates");

const PROXY_ONLY_HOST = "edge-api.test";
const PROXY_USER = "plant-user";
/** Scanned for in everything a user could see, like the token (capture.js). */
const PROXY_PASSWORD = "proxy-pass-6f1e2d3c4b5a";

/** The URL of `server` (a simulator or any local server) under the proxy-only name. */
function proxyOnlyUrl(server) {
  const url = new URL(server.url);
  url.hostname = PROXY_ONLY_HOST;
  return url.origin;
}

/**
 * Starts a proxy on 127.0.0.1. `auth: true` asks for PROXY_USER / PROXY_PASSWORD (Basic). Answers
 * `{ url, host, port, log, sockets, close() }`: `log` holds "GET http://..." and "CONNECT host:port"
 * lines in the order asked, `sockets` the client connections still open.
 */
async function startProxy({ auth = false } = {}) {
  const { createProxy } = await import("proxy");
  const server = http.createServer();
  const log = [];
  const sockets = new Set();
  const rewrite = (req, line) => {
    log.push(line);
    req.url = req.url.replace(PROXY_ONLY_HOST, "127.0.0.1");
  };
  // Registered before the package's own listeners, so they run first.
  server.on("request", (req) => rewrite(req, `${req.method} ${req.url}`));
  server.on("connect", (req) => rewrite(req, `CONNECT ${req.url}`));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  createProxy(server);
  if (auth) {
    const expected = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64")}`;
    server.authenticate = (req) => req.headers["proxy-authorization"] === expected;
  }
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    port,
    log,
    sockets,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens: a proxy that is down. */
async function closedPort() {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Sets the environment variables (names to values, undefined to remove) for the test and answers
 * a function that puts back what was there.
 */
function setEnv(values) {
  const before = {};
  for (const [name, value] of Object.entries(values)) {
    before[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Every proxy variable, upper and lower case, removed: the specs set only the ones they mean. */
const NO_PROXY_ENV = Object.fromEntries(
  ["http_proxy", "https_proxy", "no_proxy", "all_proxy"].flatMap((n) => [
    [n, undefined],
    [n.toUpperCase(), undefined],
    [`npm_config_${n}`, undefined],
  ]),
);
NO_PROXY_ENV.npm_config_proxy = undefined;

/** Node-RED's http proxy node "px" for `proxy` (startProxy's), bypassing no host. */
const proxyNode = (proxy) => ({ id: "px", type: "http proxy", url: proxy.url, noproxy: [] });

/** The credentials of proxyNode: PROXY_USER with `password` (the right one unless given). */
const proxyCredentials = (password = PROXY_PASSWORD) => ({
  px: { username: PROXY_USER, password },
});

/** A tls-config node "tls1" for an https API: trusts the CA file `ca` (makeCertificates's). */
const tlsNode = (ca) => ({
  id: "tls1",
  type: "tls-config",
  cert: "",
  key: "",
  ca,
  servername: "",
  verifyservercert: true,
});

/**
 * The hooks both proxy specs register in their describe, after withRed() so that the flow stops
 * before the environment is put back: a test CA whose server certificate names PROXY_ONLY_HOST
 * (when openssl can be run), and an environment where a test sees only the proxy variables it
 * sets, whatever the machine has. Answers `{ certs, setEnv(values) }`: `certs` is filled in by
 * the describe's before hook (undefined without openssl); `setEnv` sets variables for the one
 * test, put back after it.
 */
function proxySpecSetup() {
  const restores = [];
  const setup = {
    certs: undefined,
    setEnv: (values) => restores.push(setEnv(values)),
  };
  before(function () {
    if (hasOpenssl()) setup.certs = makeCertificates({ names: [PROXY_ONLY_HOST] });
  });
  after(function () {
    if (setup.certs) fs.rmSync(setup.certs.dir, { recursive: true, force: true });
  });
  beforeEach(function () {
    setup.setEnv(NO_PROXY_ENV);
  });
  afterEach(function () {
    // The last set first, so each variable ends as it was before the test.
    for (const restore of restores.splice(0).reverse()) restore();
  });
  return setup;
}

module.exports = {
  PROXY_ONLY_HOST,
  PROXY_USER,
  PROXY_PASSWORD,
  proxyOnlyUrl,
  startProxy,
  closedPort,
  proxyNode,
  proxyCredentials,
  tlsNode,
  proxySpecSetup,
};
