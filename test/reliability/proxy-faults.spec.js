// What goes wrong behind a proxy, each with the code that says which hop failed (issue 31): the
// proxy wants other credentials (407), is down, cannot reach the API, or drops the tunnel in the
// middle of an answer. A real proxy on 127.0.0.1 (test/support/proxy.js); where the simulator
// cannot play the server's part (a gateway's 502, an answer cut off), a small local server does.
"use strict";
const assert = require("node:assert/strict");
const http = require("node:http");
const https = require("node:https");
const { startSim, control } = require("../support/simulator");
const { helper, load, next, CORE, caughtCode, statuses, withRed } = require("../support/red");
const { capture } = require("../support/capture");
const {
  PROXY_ONLY_HOST,
  proxySpecSetup,
  startProxy,
  closedPort,
  proxyOnlyUrl,
  proxyNode,
  proxyCredentials,
  tlsNode,
} = require("../support/proxy");
const { sendCommand } = require("../support/flow");

const HTTP_PROXY_NODE = require("@node-red/nodes/core/network/06-httpproxy.js");
const TLS = require("@node-red/nodes/core/network/05-tls.js");
const TOKEN = "demo-token-0123456789abcdef";
const ELEMS = { "/lcd/txt1": "once" };

/** What the account needs of a server: its URL (the proxy-only name) and credentials. */
const target = (url) => ({ url, company: "demo", user: "demo_user", token: TOKEN });

/**
 * A tab with the account on `server.url` through the http proxy node "px" (with `password`), a
 * device-state node "ds" and a send-command node "sc", each wired to a helper, and a Catch.
 */
async function deploy(server, proxy, { password, account = {}, https, extra = [] } = {}) {
  const z = "t1";
  const flow = [
    { id: z, type: "tab" },
    {
      id: "acc",
      type: "edge-account",
      baseUrl: server.url,
      company: server.company,
      rate: 0,
      proxy: "px",
      ...(https ? { useTls: true, tls: "tls1" } : {}),
      ...account,
    },
    proxyNode(proxy),
    { id: "ds", z, type: "edge-device-state", account: "acc", device: "lcd-board", mode: "get" },
    { ...sendCommand("sc", { stream: "", wires: [["sc.out"]] }), z, account: "acc" },
    { id: "ds.out", z, type: "helper" },
    { id: "sc.out", z, type: "helper" },
    { id: "c1", z, type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
    { id: "caught", z, type: "helper" },
  ];
  flow[3].wires = [["ds.out"]];
  if (https) flow.push(tlsNode(https.ca));
  flow.push(...extra);
  const credentials = {
    acc: { user: server.user, token: server.token },
    ...proxyCredentials(password),
  };
  await load(flow, credentials, [HTTP_PROXY_NODE, TLS, CORE.catch]);
  return (id) => helper.getNode(id);
}

/** The API requests a simulator answered. */
async function apiRequests(sim) {
  const res = await control(sim, "GET", "/requests?limit=10000");
  return res.json.filter((r) => r.url.startsWith("/v5.0/"));
}

/** An envelope as the API answers it. */
const envelope = (body) =>
  JSON.stringify({ head: { status: 200, ok: true, messages: [], errors: [] }, body });

describe("proxy faults", function () {
  this.timeout(30000);
  withRed();
  const setup = proxySpecSetup();
  const open = [];

  afterEach(async function () {
    for (const closing of open.splice(0)) await closing();
  });

  async function proxyWith(options) {
    const proxy = await startProxy(options);
    open.push(() => proxy.close());
    return proxy;
  }

  async function simulator(options = {}) {
    const sim = await startSim(options);
    open.push(() => sim.close());
    return sim;
  }

  for (const tunnel of [false, true]) {
    const scheme = tunnel ? "https API (CONNECT)" : "http API";

    it(`fails with proxy-auth, not retried and nothing sent, when the proxy refuses the password (407), for an ${scheme}`, async function () {
      if (tunnel && !setup.certs) this.skip();
      const sim = await simulator(tunnel ? { tls: setup.certs.signed } : {});
      const proxy = await proxyWith({ auth: true });
      const server = { ...sim, url: proxyOnlyUrl(sim) };
      const get = await deploy(server, proxy, {
        password: "not-the-password",
        account: { retries: "3" },
        https: tunnel && setup.certs,
      });
      const shown = statuses(get("sc"));
      get("sc").receive({ payload: ELEMS });
      const err = await next(get("caught"), 10000);
      assert.equal(caughtCode(err), "proxy-auth");
      assert.equal(
        err.error.message,
        `The proxy ${proxy.host} asked for credentials (HTTP 407): set or correct the user and password of the account's http proxy node, or of the proxy URL`,
      );
      assert.equal(err.edgeError.mayHaveBeenSent, false);
      assert.deepEqual(shown.at(-1), { fill: "red", shape: "ring", text: "407 proxy auth" });
      // Asked once, never again with the same wrong password; the API saw nothing.
      assert.equal(proxy.log.length, 1, proxy.log.join("\n"));
      if (!tunnel) assert.deepEqual(await apiRequests(sim), []);
    });
  }

  it("fails with proxy-refused, after retrying even a command (it was never sent), when the proxy is down", async function () {
    const sim = await simulator();
    const port = await closedPort();
    const get = await deploy(
      { ...sim, url: proxyOnlyUrl(sim) },
      { url: `http://127.0.0.1:${port}` },
      { account: { retries: "2" } },
    );
    const attempts = [];
    get("sc").on("call:status", (c) => attempts.push(c.args[0].text));
    get("sc").receive({ payload: ELEMS });
    const err = await next(get("caught"), 10000);
    assert.equal(caughtCode(err), "proxy-refused");
    assert.match(err.error.message, new RegExp(`^The proxy 127\\.0\\.0\\.1:${port} refused`));
    assert.equal(err.edgeError.mayHaveBeenSent, false);
    assert.ok(attempts.includes("retry 2"), attempts.join(", "));
    assert.deepEqual(await apiRequests(sim), []);
  });

  it("words a refusing proxy alike in every node's status: a send's `proxy refused`, a watch's `proxy refused, retrying`", async function () {
    const sim = await simulator();
    const port = await closedPort();
    const watch = {
      id: "w1",
      z: "t1",
      type: "edge-watch-events",
      account: "acc",
      stream: "s000",
      interval: 250,
      start: "new",
      last: 10,
      store: "",
      wires: [[]],
    };
    const get = await deploy(
      { ...sim, url: proxyOnlyUrl(sim) },
      { url: `http://127.0.0.1:${port}` },
      { account: { retries: "0" }, extra: [watch] },
    );
    const watched = statuses(get("w1"));
    const sent = statuses(get("sc"));
    get("sc").receive({ payload: ELEMS });
    await next(get("caught"), 10000);
    const until = Date.now() + 10000;
    while (!watched.some((s) => s.text === "proxy refused, retrying") && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const texts = (list) => list.map((s) => s.text);
    assert.ok(texts(sent).includes("proxy refused"), texts(sent).join(", "));
    assert.ok(texts(watched).includes("proxy refused, retrying"), texts(watched).join(", "));
  });

  it("answers Test connection with deploy-first when the proxy chosen in the dialog is not deployed yet", async function () {
    const sim = await simulator();
    await load([{ id: "t1", type: "tab" }], {}, [HTTP_PROXY_NODE]);
    const res = await helper
      .request()
      .post("/edge-account/test")
      .send({ baseUrl: sim.url, company: "demo", user: sim.user, token: TOKEN, proxy: "px-new" })
      .expect(200);
    assert.equal(res.body.ok, false);
    assert.equal(res.body.code, "bad-config");
    assert.match(res.body.message, /not deployed yet: deploy it first/);
    assert.doesNotMatch(res.body.message, /missing/);
  });

  it("fails with proxy-upstream when the proxy cannot open a tunnel to the API", async function () {
    if (!setup.certs) this.skip();
    const proxy = await proxyWith({ auth: true });
    const nowhere = `https://${PROXY_ONLY_HOST}:${await closedPort()}`;
    const get = await deploy(target(nowhere), proxy, {
      account: { retries: "0" },
      https: setup.certs,
    });
    get("ds").receive({ payload: "read" });
    const err = await next(get("caught"), 10000);
    assert.equal(caughtCode(err), "proxy-upstream");
    assert.match(
      err.error.message,
      new RegExp(
        `^The proxy ${proxy.host} could not reach ${nowhere} for GET .* \\(it answered HTTP 5\\d\\d\\)`,
      ),
    );
  });

  it("says proxy-upstream for a gateway's 502 to a forwarded request, and does not send a command again", async function () {
    const posts = [];
    const gateway = http.createServer((req, res) => {
      if (req.method === "POST") posts.push(req.url);
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><body>Bad Gateway</body></html>");
    });
    await new Promise((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    open.push(() => new Promise((resolve) => gateway.close(resolve)));
    const proxy = await proxyWith({ auth: true });
    const url = `http://${PROXY_ONLY_HOST}:${gateway.address().port}`;
    const get = await deploy(target(url), proxy, { account: { retries: "3" } });
    get("sc").receive({ payload: ELEMS });
    const err = await next(get("caught"), 10000);
    assert.equal(caughtCode(err), "proxy-upstream");
    assert.equal(err.edgeError.status, 502);
    assert.deepEqual(posts, ["/v5.0/demo/event"]);
  });

  it("reports a command whose tunnel the proxy dropped mid-answer as uncertain, sends it once, and retries a read", async function () {
    if (!setup.certs) this.skip();
    let proxy;
    const posts = [];
    let reads = 0;
    const api = https.createServer(setup.certs.signed, (req, res) => {
      req.resume();
      const cut = () => {
        // Half an answer, then the proxy drops every tunnel it holds.
        res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
        res.write('{"head":{"status":200,');
        setTimeout(() => {
          for (const s of proxy.sockets) s.destroy();
        }, 20);
      };
      if (req.method === "POST") {
        posts.push(req.url);
        cut();
      } else if (++reads === 1) cut();
      else res.end(envelope({ id: "d1", name: "lcd-board", state: { "/lcd/txt1": "x" } }));
    });
    await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
    open.push(
      () =>
        new Promise((resolve) => {
          api.closeAllConnections();
          api.close(resolve);
        }),
    );
    proxy = await proxyWith({ auth: true });
    const url = `https://${PROXY_ONLY_HOST}:${api.address().port}`;
    const get = await deploy(target(url), proxy, { account: { retries: "3" }, https: setup.certs });

    get("sc").receive({ payload: ELEMS });
    const err = await next(get("caught"), 10000);
    assert.equal(caughtCode(err), "reset-uncertain");
    assert.equal(err.edgeError.mayHaveBeenSent, true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(posts, ["/v5.0/demo/event"], "the command reached the server once");

    const tunnels = proxy.log.length;
    get("ds").receive({ payload: "read" });
    const msg = await next(get("ds.out"), 10000);
    assert.equal(msg.device.name, "lcd-board");
    assert.equal(reads, 2);
    assert.ok(proxy.log.length >= tunnels + 2, proxy.log.join("\n"));
  });

  it("answers Test connection with the proxy's error and the proxy's host, never its password", async function () {
    const sim = await simulator();
    const proxy = await proxyWith({ auth: true });
    await deploy({ ...sim, url: proxyOnlyUrl(sim) }, proxy, { password: "wrong-one" });
    const res = await helper
      .request()
      .post("/edge-account/test")
      .send({
        id: "acc",
        baseUrl: proxyOnlyUrl(sim),
        company: "demo",
        user: sim.user,
        token: "__PWRD__",
        proxy: "px",
      })
      .expect(200);
    capture("test-connection answer", res.body);
    assert.equal(res.body.ok, false);
    assert.equal(res.body.code, "proxy-auth");
    assert.equal(res.body.proxy, proxy.host);
    assert.match(res.body.message, new RegExp(`\\(through proxy ${proxy.host}\\)$`));
    // A stored token goes only through the proxy the account was deployed with.
    const other = await helper
      .request()
      .post("/edge-account/test")
      .send({ id: "acc", baseUrl: proxyOnlyUrl(sim), company: "demo", token: "__PWRD__" })
      .expect(200);
    assert.equal(other.body.code, "type-token-proxy");
  });
});
