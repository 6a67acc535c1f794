// A captive portal as the account's proxy (issue 35, item 12): it answers CONNECT with 200 and
// then its login page in what should be the tunnel. The TLS handshake reads HTML; the error must
// say it is the proxy, not the API's certificate, and that nothing was sent.
"use strict";
const assert = require("node:assert/strict");
const http = require("node:http");
const { EdgeClient } = require("../../../dist/nodes/lib/api/client");

const PAGE = "<html><body>Please log in to the guest network</body></html>";

describe("unit: api/client through a captive portal", function () {
  let portal;
  let connects;
  const clients = [];
  // CONNECT sockets leave the server's own list once upgraded: closed here.
  const tunnels = new Set();

  beforeEach(async function () {
    connects = 0;
    portal = http.createServer((req, res) => res.end(PAGE));
    portal.on("connect", (req, socket) => {
      connects++;
      tunnels.add(socket);
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${PAGE.length}\r\n\r\n${PAGE}`,
      );
    });
    await new Promise((resolve) => portal.listen(0, "127.0.0.1", resolve));
  });

  afterEach(async function () {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    for (const socket of tunnels) socket.destroy();
    tunnels.clear();
    portal.closeAllConnections();
    await new Promise((resolve) => portal.close(resolve));
  });

  function client(retries) {
    const c = new EdgeClient({
      baseUrl: "https://edge-api.test",
      company: "demo",
      token: "portal-token-0123456789abcdef",
      timeoutMs: 2000,
      rateLimit: { perSecond: 0 },
      retry: { retries, baseDelayMs: 1, maxDelayMs: 5 },
      proxy: { url: `http://127.0.0.1:${portal.address().port}` },
    });
    clients.push(c);
    return c;
  }

  it("says the proxy answered the tunnel itself (proxy-tls), not a TLS failure of the API", async function () {
    const err = await client(0)
      .getDevice("d1")
      .then(
        () => assert.fail("expected the read to fail"),
        (e) => e,
      );
    assert.equal(err.code, "proxy-tls");
    assert.equal(err.params.proxy, `127.0.0.1:${portal.address().port}`);
    assert.equal(err.params.origin, "https://edge-api.test");
    assert.equal(err.mayHaveBeenSent, false);
  });

  it("does not retry it: a portal's page does not go away in a second", async function () {
    const err = await client(2)
      .createEventByPath("/demo/devices/pump-3/:command", { "/pump/on": true })
      .then(
        () => assert.fail("expected the command to fail"),
        (e) => e,
      );
    assert.equal(err.code, "proxy-tls");
    assert.equal(err.mayHaveBeenSent, false);
    assert.equal(connects, 1);
  });
});
