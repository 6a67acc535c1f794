// Behind a proxy (issue 31): every node, Test connection and the device picker reach an API that
// only a real proxy on 127.0.0.1 can reach (test/support/proxy.js), once with the account set to
// Node-RED's `http proxy` node and once with only HTTP_PROXY / HTTPS_PROXY in the environment, for
// an http and an https (CONNECT, the test CA in a tls-config node) API; no_proxy bypasses it.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const { Agent, request } = require("undici");
const { control, startSim } = require("../support/simulator");
const { helper, load, next, CORE, caughtCode, withRed } = require("../support/red");
const { capture } = require("../support/capture");
const { SEED } = require("../support/seed");
const { fleetNode } = require("../support/fleet");
const {
  PROXY_USER,
  PROXY_PASSWORD,
  proxyOnlyUrl,
  startProxy,
  proxyNode,
  proxyCredentials,
  tlsNode,
  proxySpecSetup,
} = require("../support/proxy");
const { sendCommand } = require("../support/flow");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const HTTP_PROXY_NODE = require("@node-red/nodes/core/network/06-httpproxy.js");
const TLS = require("@node-red/nodes/core/network/05-tls.js");
const ELEMS = { "/lcd/txt1": "through the proxy" };
const WATCHED = "/demo/proxied";

/**
 * The simulator's control interface, called directly by the test (not through the proxy); an
 * https simulator is trusted with the test CA.
 */
async function ctl(sim, method, path, body) {
  if (!sim.url.startsWith("https:")) return control(sim, method, path, body);
  const dispatcher = new Agent({ connect: { ca: fs.readFileSync(sim.caFile) } });
  try {
    const res = await request(`${sim.url}/_sim${path}`, {
      method,
      dispatcher,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, text, json: JSON.parse(text) };
  } finally {
    await dispatcher.close();
  }
}

/**
 * A tab with the account "acc" on `baseUrl` and one node of each kind, each wired to helpers;
 * `accountProps` over the account, `extra` nodes (the http proxy node, the tls-config node).
 */
function everyNodeFlow(sim, baseUrl, accountProps = {}, extra = []) {
  const z = "t1";
  return [
    { id: z, type: "tab" },
    {
      id: "acc",
      type: "edge-account",
      baseUrl,
      company: sim.company,
      rate: 0,
      retries: "0",
      ...accountProps,
    },
    ...extra,
    { id: "ds", z, type: "edge-device-state", account: "acc", device: "lcd-board", mode: "get" },
    { id: "ds.out", z, type: "helper" },
    { ...sendCommand("sc", { stream: "", wires: [["aw"]] }), z, account: "acc" },
    {
      id: "aw",
      z,
      type: "edge-await-command",
      account: "acc",
      inbox: "",
      timeout: "",
      interval: 50,
      wires: [["aw.ok"], ["aw.fault"], ["aw.timeout"]],
    },
    { id: "aw.ok", z, type: "helper" },
    { id: "aw.fault", z, type: "helper" },
    { id: "aw.timeout", z, type: "helper" },
    {
      id: "le",
      z,
      type: "edge-list-events",
      account: "acc",
      stream: SEED.telemetry.id,
      limit: "5",
      start: "",
      mode: "page",
      maxEvents: "",
      wires: [["le.out"]],
    },
    { id: "le.out", z, type: "helper" },
    {
      id: "we",
      z,
      type: "edge-watch-events",
      account: "acc",
      stream: WATCHED,
      interval: 250,
      start: "last",
      last: 1,
      store: "",
      wires: [["we.out"]],
    },
    { id: "we.out", z, type: "helper" },
    { ...fleetNode({ devices: "lcd-board" }), z, account: "acc" },
    { id: "report", z, type: "helper" },
    { id: "each", z, type: "helper" },
    { id: "c1", z, type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
    { id: "caught", z, type: "helper" },
  ].map((n) => (n.id === "ds" ? { ...n, wires: [["ds.out"]] } : n));
}

const CREDENTIALS = (sim) => ({ acc: { user: sim.user, token: sim.token } });

/** Fails with what the Catch node got, if it got anything. */
function noError(get) {
  const caught = get("caught").received;
  assert.equal(caught.length, 0, caught.map((m) => m.error?.message).join("\n"));
}

/** Runs each node once and checks what it gave. */
async function runEveryNode() {
  const get = (id) => helper.getNode(id);
  get("ds").receive({ payload: "read" });
  const state = await next(get("ds.out"), 10000).catch((e) => {
    throw new Error(`${e.message}: ${JSON.stringify(get("caught").received.map((m) => m.error))}`);
  });
  assert.equal(state.device.name, "lcd-board");

  get("sc").receive({ payload: ELEMS });
  const done = await next(get("aw.ok"), 10000);
  assert.ok(done.command, "the await node's output carries the command");

  get("le").receive({ payload: "list" });
  const listed = await next(get("le.out"), 10000);
  assert.ok(Array.isArray(listed.payload));

  // The watch sends the stream's last event, read through the proxy.
  const watched = await next(get("we.out"), 10000);
  assert.deepEqual(watched.payload.elems, { "/sensors/t": 21.5 });

  get("f1").receive({ payload: ELEMS });
  const report = await next(get("report"), 15000);
  assert.equal(report.payload.complete, 1, JSON.stringify(report.payload));
  noError(get);
}

/** The API requests the simulator answered: `METHOD /v5.0/...` lines. */
async function apiRequests(sim) {
  const res = await ctl(sim, "GET", "/requests?limit=10000");
  return res.json.filter((r) => r.url.startsWith("/v5.0/")).map((r) => `${r.method} ${r.url}`);
}

async function testConnection(body) {
  const res = await helper.request().post("/edge-account/test").send(body).expect(200);
  capture("test-connection answer", res.body);
  return res.body;
}

async function pick(body) {
  const res = await helper.request().post("/edge-account/directory").send(body).expect(200);
  capture("picker answer", res.body);
  return res.body;
}

/** Test connection and the picker on the deployed account "acc": both say which proxy. */
async function editorThroughProxy(sim, baseUrl, proxy, fields) {
  const tested = await testConnection({
    id: "acc",
    baseUrl,
    company: sim.company,
    user: sim.user,
    token: "__PWRD__",
    ...fields,
  });
  assert.equal(tested.ok, true, tested.message);
  assert.equal(tested.proxy, proxy.host);
  assert.ok(tested.message.startsWith(`Connected through proxy ${proxy.host}:`), tested.message);
  const listed = await pick({ account: "acc", kind: "devices", search: "lcd" });
  assert.equal(listed.error, undefined, listed.error);
  assert.ok(
    listed.items.some((i) => i.value === "lcd-board"),
    JSON.stringify(listed),
  );
  assert.equal(listed.proxy, proxy.host);
}

describe("behind a proxy", function () {
  this.timeout(40000);
  withRed();
  const setup = proxySpecSetup();
  let sim;
  let proxy;

  afterEach(async function () {
    await proxy?.close();
    await sim?.close();
    proxy = undefined;
    sim = undefined;
  });

  /** A simulator (https with the test CA's certificate when `https`) and a proxy with auth. */
  async function servers(https) {
    sim = await startSim(https ? { tls: setup.certs.signed } : {});
    sim.caFile = setup.certs?.ca;
    proxy = await startProxy({ auth: true });
    const made = await ctl(sim, "POST", "/streams", { path: WATCHED, capacity: 100 });
    assert.equal(made.status, 201, made.text);
    const streamId = made.json.id;
    const added = await ctl(sim, "POST", "/events", { streamId, elems: { "/sensors/t": 21.5 } });
    assert.equal(added.status, 201, added.text);
    return { baseUrl: proxyOnlyUrl(sim) };
  }

  for (const https of [false, true]) {
    const scheme = https ? "https (CONNECT tunnel, the test CA)" : "http";
    const tls = () => (https ? { useTls: true, tls: "tls1" } : {});
    const tlsNodes = () => (https ? [tlsNode(setup.certs.ca)] : []);

    it(`runs every node against a ${scheme} API only the proxy reaches, through an http proxy node`, async function () {
      if (https && !setup.certs) this.skip();
      const { baseUrl } = await servers(https);
      const flow = everyNodeFlow(sim, baseUrl, { proxy: "px", ...tls() }, [
        proxyNode(proxy),
        ...tlsNodes(),
      ]);
      await load(flow, { ...CREDENTIALS(sim), ...proxyCredentials() }, [
        FLEET,
        HTTP_PROXY_NODE,
        TLS,
        CORE.catch,
      ]);
      await runEveryNode();
      await editorThroughProxy(sim, baseUrl, proxy, { proxy: "px", ...tls() });
      await checkProxyLog(https);
    });

    it(`runs every node against a ${scheme} API only the proxy reaches, with only ${https ? "HTTPS_PROXY" : "HTTP_PROXY"} set`, async function () {
      if (https && !setup.certs) this.skip();
      const { baseUrl } = await servers(https);
      const withUser = `http://${PROXY_USER}:${PROXY_PASSWORD}@${proxy.host}`;
      setup.setEnv({ [https ? "HTTPS_PROXY" : "HTTP_PROXY"]: withUser });
      const flow = everyNodeFlow(sim, baseUrl, tls(), tlsNodes());
      await load(flow, CREDENTIALS(sim), [FLEET, TLS, CORE.catch]);
      await runEveryNode();
      await editorThroughProxy(sim, baseUrl, proxy, tls());
      await checkProxyLog(https);
    });
  }

  /**
   * The proxy's own log: for an http API, every request the simulator answered, as the absolute
   * URL the proxy was asked for; for https, the tunnels it opened to the proxy-only name (what a
   * proxy can see of TLS).
   */
  async function checkProxyLog(https) {
    const answered = await apiRequests(sim);
    assert.ok(answered.length >= 6, answered.join("\n"));
    const origin = proxyOnlyUrl(sim);
    if (https) {
      assert.ok(proxy.log.length > 0);
      for (const line of proxy.log) assert.equal(line, `CONNECT ${new URL(origin).host}`);
      return;
    }
    const asked = proxy.log.map((line) => line.replace(origin, ""));
    for (const request of answered) assert.ok(asked.includes(request), `${request} not in the log`);
  }

  describe("no_proxy", function () {
    it("connects directly to a host listed in NO_PROXY, and the proxy sees nothing", async function () {
      sim = await startSim();
      proxy = await startProxy();
      setup.setEnv({ HTTP_PROXY: proxy.url, NO_PROXY: "localhost, 127.0.0.1" });
      await load(everyNodeFlow(sim, sim.url), CREDENTIALS(sim), [FLEET, CORE.catch]);
      const get = (id) => helper.getNode(id);
      get("ds").receive({ payload: "read" });
      assert.equal((await next(get("ds.out"), 10000)).device.name, "lcd-board");
      assert.equal(get("acc").services.client.proxyHost, undefined);
      assert.deepEqual(proxy.log, []);
    });

    it("goes through the proxy when NO_PROXY names the host on another port only", async function () {
      sim = await startSim();
      proxy = await startProxy();
      setup.setEnv({
        HTTP_PROXY: proxy.url,
        NO_PROXY: `127.0.0.1:${Number(new URL(sim.url).port) + 1}`,
      });
      const flow = everyNodeFlow(sim, sim.url);
      await load(flow, CREDENTIALS(sim), [FLEET, CORE.catch]);
      const get = (id) => helper.getNode(id);
      get("ds").receive({ payload: "read" });
      await next(get("ds.out"), 10000);
      assert.equal(get("acc").services.client.proxyHost, proxy.host);
      assert.ok(proxy.log.some((l) => l.startsWith(`GET ${sim.url}/v5.0/`)));
    });

    it("follows settings.js proxyOptions as core does: with lowerCaseOnly, HTTP_PROXY is not read", async function () {
      sim = await startSim();
      proxy = await startProxy();
      setup.setEnv({ HTTP_PROXY: proxy.url });
      helper.settings({ proxyOptions: { lowerCaseOnly: true } });
      try {
        await load(everyNodeFlow(sim, sim.url), CREDENTIALS(sim), [FLEET, CORE.catch]);
      } finally {
        helper.settings({});
      }
      const get = (id) => helper.getNode(id);
      get("ds").receive({ payload: "read" });
      await next(get("ds.out"), 10000);
      assert.equal(get("acc").services.client.proxyHost, undefined);
      assert.deepEqual(proxy.log, []);
    });

    it("connects directly to a host the http proxy node lists to bypass", async function () {
      sim = await startSim();
      proxy = await startProxy();
      const flow = everyNodeFlow(sim, sim.url, { proxy: "px" }, [
        { ...proxyNode(proxy), noproxy: ["127.0.0.1"] },
      ]);
      await load(flow, CREDENTIALS(sim), [FLEET, HTTP_PROXY_NODE, CORE.catch]);
      const get = (id) => helper.getNode(id);
      get("ds").receive({ payload: "read" });
      await next(get("ds.out"), 10000);
      assert.equal(get("acc").services.client.proxyHost, undefined);
      assert.deepEqual(proxy.log, []);
    });
  });

  describe("the proxy password", function () {
    // capture.js scans everything recorded during every test for the password (and its Basic
    // credentials); this test makes the nodes and the editor routes say as much as they can.
    it("appears in no message, status, log, error, export or editor answer, whatever fails", async function () {
      const { baseUrl } = await servers(false);
      // One retry: the read after the proxy is gone may meet its closed keep-alive first.
      const flow = everyNodeFlow(sim, baseUrl, { proxy: "px", retries: "1" }, [proxyNode(proxy)]);
      await load(flow, { ...CREDENTIALS(sim), ...proxyCredentials() }, [
        FLEET,
        HTTP_PROXY_NODE,
        CORE.catch,
      ]);
      await runEveryNode();
      await editorThroughProxy(sim, baseUrl, proxy, { proxy: "px" });
      // The proxy goes away: the nodes fail and say which proxy, without its credentials.
      const gone = proxy.host;
      await proxy.close();
      proxy = undefined;
      const get = (id) => helper.getNode(id);
      get("ds").receive({ payload: "read" });
      const err = await next(get("caught"), 10000);
      assert.equal(caughtCode(err), "proxy-refused");
      assert.ok(err.error.message.includes(gone), err.error.message);
      // The account exports the proxy node's id only: the password stays in the http proxy
      // node's credentials, which Node-RED never exports.
      assert.equal(flow.find((n) => n.id === "acc").proxy, "px");
      assert.ok(!JSON.stringify(flow).includes(PROXY_PASSWORD));
    });
  });
});
