// A gateway in front of the API (issue 35, items 4 and 13), seen from a real Node-RED runtime (the
// test helper) and the simulator's own log: the gateway forwards the command, the API makes it,
// and the gateway answers 503 with its own page (as Envoy does after an upstream reset) or 429
// with Retry-After: 0 and no body. Such an answer is no API's envelope and proves nothing: the
// command is sent once and ends gateway-uncertain with mayHaveBeenSent, with Retries 2, with or
// without a forwarding proxy configured. A 404 the API answered says the command was not sent.
"use strict";
const assert = require("node:assert/strict");
const http = require("node:http");
const {
  helper,
  account,
  load,
  CORE,
  caughtCode,
  next,
  withRedAndSimulator,
} = require("../support/red");
const { requests, commandEvents } = require("../support/reliability");
const { serve } = require("../support/http-server");
const { startProxy, proxyOnlyUrl, proxyNode, proxyCredentials } = require("../support/proxy");
const { addDevices, commandsOf, fleetNode } = require("../support/fleet");

const HTTP_PROXY_NODE = require("@node-red/nodes/core/network/06-httpproxy.js");
const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const ENVOY_PAGE =
  "<html><body><h1>503 Service Unavailable</h1>upstream connect error or disconnect/reset " +
  "before headers. reset reason: connection termination</body></html>";

/**
 * A gateway on a free port that forwards every request to `sim` and, for the next POSTs (one per
 * entry of `gateway.answers`, "503" or "429"), answers its own status once the API has answered.
 */
async function startGateway(sim) {
  const answers = [];
  const target = new URL(sim.url);
  const server = await serve((req, res) => {
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (upRes) => {
        const own = req.method === "POST" ? answers.shift() : undefined;
        if (own === undefined) {
          res.writeHead(upRes.statusCode, upRes.headers);
          upRes.pipe(res);
          return;
        }
        // The API made the command; its answer never reaches the client.
        upRes.resume();
        if (own === "503") {
          res.writeHead(503, { "content-type": "text/html" });
          res.end(ENVOY_PAGE);
        } else {
          res.writeHead(429, { "retry-after": "0", "content-length": "0" });
          res.end();
        }
      },
    );
    req.pipe(up);
  });
  return { ...server, answers };
}

describe("reliability: a gateway in front of the API", function () {
  this.timeout(20000);
  const env = withRedAndSimulator({ commandDelayMs: 5 });
  const open = [];

  afterEach(async function () {
    for (const closing of open.splice(0)) await closing();
  });

  async function gateway() {
    const g = await startGateway(env.sim);
    open.push(() => g.close());
    return g;
  }

  /**
   * A tab with the account (`accountProps` over the simulator's), a send-command node "n1" for
   * msg.deviceId wired to "n1.out", a fleet node "f1" (`fleet` props) wired to "report" and
   * "each", `extra` nodes and a Catch feeding "caught"; resolves with get(id).
   */
  async function deploy({ accountProps = {}, fleet = {}, extra = [], creds = {} } = {}) {
    const z = "tab";
    const acc = account(env.sim, { z, ...accountProps }, {});
    const nodes = [
      { id: z, type: "tab" },
      acc.node,
      {
        id: "n1",
        z,
        type: "edge-send-command",
        account: "acc",
        target: "device",
        device: "",
        elems: "",
        ttl: "",
        wires: [["n1.out"]],
      },
      { id: "n1.out", z, type: "helper" },
      { ...fleetNode(fleet), z, account: "acc" },
      { id: "report", z, type: "helper" },
      { id: "each", z, type: "helper" },
      { id: "c1", z, type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
      { id: "caught", z, type: "helper" },
      ...extra.map((n) => ({ z, ...n })),
    ];
    await load(nodes, { ...acc.credentials, ...creds }, [CORE.catch, FLEET, HTTP_PROXY_NODE]);
    return (id) => helper.getNode(id);
  }

  for (const [status, proxied] of [
    ["503", false],
    ["429", false],
    ["503", true],
    ["429", true],
  ]) {
    const how = proxied ? "through a forwarding proxy" : "with no proxy configured";
    it(`sends a command once when the gateway answers ${status} after the API made it, ${how}, and says it may have been delivered`, async function () {
      const g = await gateway();
      g.answers.push(status);
      const text = `gateway-${status}-${proxied}`;
      let accountProps = { baseUrl: g.url, rate: 0, retries: "2" };
      const extra = [];
      let creds = {};
      let proxy;
      if (proxied) {
        proxy = await startProxy();
        open.push(() => proxy.close());
        accountProps = { ...accountProps, baseUrl: proxyOnlyUrl(g), proxy: "px" };
        extra.push(proxyNode(proxy));
        creds = proxyCredentials();
      }
      const get = await deploy({ accountProps, extra, creds });
      get("n1").receive({ payload: { "/lcd/txt1": text }, deviceId: "lcd-board" });
      const err = await next(get("caught"), 10000);
      assert.equal(caughtCode(err), "gateway-uncertain");
      assert.equal(err.edgeError.status, Number(status));
      assert.equal(err.edgeError.mayHaveBeenSent, true);
      assert.match(err.error.message, /may or may not have been delivered/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await requests(env.sim, "POST", "/event")).length, 1, "one POST");
      const made = (await commandEvents(env.sim, "lcd-board")).filter(
        (e) => e.elems["/lcd/txt1"] === text,
      );
      assert.equal(made.length, 1, "one command made");
      // The proxy forwarded it (the proxy-only name resolves nowhere else).
      if (proxied) assert.equal(proxy.log.filter((l) => l.startsWith("POST ")).length, 1);
    });
  }

  it("ends a fleet device gateway-uncertain with mayHaveBeenSent and sends it once", async function () {
    await addDevices(env.sim, ["g1", "g2"]);
    const g = await gateway();
    g.answers.push("503");
    const get = await deploy({
      accountProps: { baseUrl: g.url, rate: 0, retries: "2" },
      fleet: { devices: "g1, g2", concurrency: 1 },
    });
    get("f1").receive({ payload: { "/lcd/txt1": "fleet" } });
    const report = (await next(get("report"), 15000)).payload;
    const g1 = report.devices.find((d) => d.device === "g1");
    assert.deepEqual(
      [g1.outcome, g1.error, g1.mayHaveBeenSent],
      ["failed", "gateway-uncertain", true],
    );
    assert.equal(await commandsOf(env.sim, "g1"), 1, "g1 got its command once");
    assert.equal(await commandsOf(env.sim, "g2"), 1);
  });

  it("says a command refused with 404 was not sent, for the send node and a fleet device", async function () {
    const get = await deploy({
      accountProps: { rate: 0 },
      fleet: { devices: "no-such-device" },
    });
    get("n1").receive({ payload: { "/lcd/txt1": "x" }, deviceId: "no-such-device" });
    const err = await next(get("caught"), 10000);
    assert.equal(caughtCode(err), "not-found");
    assert.equal(err.edgeError.mayHaveBeenSent, false);
    get("f1").receive({ payload: { "/lcd/txt1": "x" } });
    const report = (await next(get("report"), 15000)).payload;
    assert.equal(report.devices[0].error, "not-found");
    assert.equal(report.devices[0].mayHaveBeenSent, undefined);
    const each = await next(get("each"), 5000);
    assert.equal(each.mayHaveBeenSent, undefined);
  });
});
