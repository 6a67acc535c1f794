// Security: the token stays out of everything a user or a flow can see (messages, statuses, logs,
// errors, debug output, the exported flow), a msg cannot redirect a request or change its
// credentials, the admin routes need permission, and certificates are verified unless a core
// tls-config node supplies the private CA.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { start } = require("../../dist/simulator");
const {
  load,
  next,
  collect,
  helper,
  CORE,
  withRedAndSimulator,
  account,
} = require("../support/red");
const { deploy, worker, feed, requests } = require("../support/reliability");
const { capture, count, addSecret } = require("../support/capture");
const {
  startNodeRed,
  deployFlows,
  accountNode,
  adminAuth,
  login,
} = require("../support/node-red-process");
const { serve } = require("../support/http-server");
const { startNode } = require("../support/flow");
const { makeCertificates } = require("../support/certificates");
const { waitFor } = require("../support/simulator");

const DEBUG = require("@node-red/nodes/core/common/21-debug.js");
const TLS = require("@node-red/nodes/core/network/05-tls.js");

/** Every request a msg might try to redirect or re-credential. */
const HOSTILE = {
  baseUrl: "http://127.0.0.1:9/",
  url: "http://127.0.0.1:9/steal",
  origin: "http://127.0.0.1:9",
  host: "127.0.0.1:9",
  company: "other",
  headers: { "x-auth-token": "msg-token", "x-auth-user": "msg-user", "x-extra": "1" },
  token: "msg-token",
  user: "msg-user",
  credentials: { token: "msg-token", user: "msg-user" },
  method: "DELETE",
  account: "not-an-account",
  rejectUnauthorized: false,
  tls: { rejectUnauthorized: false },
};

/** A token of 33 characters, as the issue's, and every piece of 8 of them. */
const CUT_TOKEN = "cut-token-0123456789abcdefghijklmn";
const PIECES = Array.from({ length: CUT_TOKEN.length - 7 }, (_, i) => CUT_TOKEN.slice(i, i + 8));

function assertNoPiece(text, where) {
  const found = PIECES.find((p) => text.includes(p));
  assert.equal(found, undefined, `${where} holds "${found}", a piece of the token: ${text}`);
}

/** A core debug node "dbg" on tab `z` showing the complete msg in the sidebar and the log. */
function debugNode(z) {
  return {
    id: "dbg",
    z,
    type: "debug",
    active: true,
    tosidebar: true,
    console: "true",
    complete: "true",
    statusVal: "",
    statusType: "auto",
  };
}

/**
 * A server that echoes the token it was sent inside its error text, at the offset the device
 * name asks for: /device/h<offset> in an HTML page (HTTP 500), /device/j<offset> in head.errors.
 */
function echoingServer() {
  return serve((req, res) => {
    const m = /\/device\/([hj])(\d+)$/.exec(req.url ?? "");
    const token = String(req.headers["x-auth-token"]);
    const text = m ? `${"a".repeat(Number(m[2]))}${token} and more text after the token` : "";
    if (m?.[1] === "h") {
      res.writeHead(500, { "content-type": "text/html" });
      res.end(`<html><body><h1>${text}</h1></body></html>`);
    } else {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ head: { status: 400, ok: false, errors: [text] }, body: null }));
    }
  });
}

describe("reliability: security", function () {
  describe("in the test runtime", function () {
    const env = withRedAndSimulator();

    it("cannot be redirected or re-credentialed by msg properties, for any node", async function () {
      let decoy = 0;
      const trap = http.createServer((req, res) => {
        decoy++;
        res.end();
      });
      await new Promise((resolve) => trap.listen(9, "127.0.0.1", resolve).on("error", resolve));
      try {
        const f = await deploy(
          env.sim,
          [
            { id: "reader", type: "edge-device-state", device: "" },
            { id: "merger", type: "edge-device-state", device: "", mode: "merge" },
            { id: "sender", type: "edge-send-command", device: "" },
            { id: "lister", type: "edge-list-events", stream: "" },
          ],
          { account: { rate: 0 } },
        );
        feed(f.reader, [{ ...HOSTILE, deviceId: "lcd-board" }]);
        feed(f.merger, [{ ...HOSTILE, deviceId: "lcd-board", payload: { "/lcd/txt2": "m" } }]);
        feed(f.sender, [{ ...HOSTILE, deviceId: "lcd-board", payload: { "/lcd/txt1": "c" } }]);
        feed(f.lister, [{ ...HOSTILE, streamId: "s5f3c1a2b0000000000000011" }]);
        for (const id of ["reader", "merger", "sender", "lister"]) await next(f.get(`${id}.out`));
        const seen = await requests(env.sim);
        assert.equal(seen.length, 5);
        for (const r of seen) {
          assert.match(r.pathname, /^\/v5\.0\/demo\//);
          assert.ok(["GET", "PUT", "POST"].includes(r.method));
          assert.equal(r.headers["x-auth-token"], env.sim.token);
          assert.equal(r.headers["x-auth-user"], env.sim.user);
          assert.equal(r.headers["x-extra"], undefined);
        }
        assert.equal(decoy, 0, "a request went to the msg's URL");
      } finally {
        await new Promise((resolve) => trap.close(resolve));
      }
    });

    it("keeps the token out of messages, statuses, logs, errors and debug output with complete msg", async function () {
      const published = [];
      const onComms = (event) => {
        if (event.topic === "debug") published.push(event.data);
      };
      helper._events.on("comms", onComms);
      try {
        const acc = account(env.sim, { z: "tab", rate: 0, retries: "0" });
        const toDebug = (id, type, props) => ({
          id,
          z: "tab",
          type,
          account: "acc",
          wires: [["dbg", "out"]],
          ...props,
        });
        await load(
          [
            { id: "tab", type: "tab" },
            acc.node,
            toDebug("reader", "edge-device-state", { device: "lcd-board", mode: "get" }),
            toDebug("sender", "edge-send-command", {
              target: "device",
              device: "lcd-board",
              elems: "",
            }),
            toDebug("missing", "edge-device-state", { device: "no-such-device", mode: "get" }),
            debugNode("tab"),
            { id: "out", z: "tab", type: "helper" },
            { id: "c1", z: "tab", type: "catch", scope: null, wires: [["dbg", "caught"]] },
            { id: "caught", z: "tab", type: "helper" },
          ],
          acc.credentials,
          [CORE.catch, DEBUG],
        );
        const before = count();
        helper.getNode("reader").receive({ payload: "go" });
        helper.getNode("sender").receive({ payload: { "/lcd/txt1": "debug me" } });
        helper.getNode("missing").receive({ payload: "go" });
        await collect(helper.getNode("out"), 2);
        const err = await next(helper.getNode("caught"));
        assert.equal(err.statusCode, 404);
        await waitFor(() => published.length >= 3, { what: "3 debug messages" });
        capture("debug sidebar", ...published);
        const text = JSON.stringify(published);
        assert.match(text, /lcd-board/, "the debug output shows the device");
        assert.ok(!text.includes(env.sim.token), "the token is in the debug sidebar");
        assert.ok(count() > before + 6, "the scan saw what the flow produced");
      } finally {
        helper._events.off("comms", onComms);
      }
    });
  });

  describe("a token echoed by the server, at every offset around a cut", function () {
    // Error text from an answer is cut (an HTML page to 120 characters, the API's errors to 400):
    // a token that straddled the cut once survived as 32 of its 33 characters.
    const env = withRedAndSimulator();
    let echo;
    before(async function () {
      addSecret(CUT_TOKEN);
      echo = await echoingServer();
    });
    after(async function () {
      await echo.close();
    });

    for (const [kind, cut] of [
      ["h", 120],
      ["j", 400],
    ]) {
      const what = kind === "h" ? "an HTML error page" : "the API's head.errors";
      it(`keeps every 8-character piece of it out of msg.error, msg.edgeError, the status and the log, in ${what}`, async function () {
        const f = await deploy(
          env.sim,
          [{ id: "n1", type: "edge-device-state", device: "", outputs: 1 }],
          {
            account: { baseUrl: echo.url, rate: 0, retries: "0" },
            creds: { token: CUT_TOKEN },
          },
        );
        const shown = [];
        f.n1.on("call:status", (call) => shown.push(call.args[0]));
        const logged = [];
        f.n1.on("call:error", (call) => logged.push(call.args[0]));
        const offsets = [];
        for (let at = cut - CUT_TOKEN.length - 4; at <= cut + 2; at++) offsets.push(at);
        feed(
          f.n1,
          offsets.map((at) => ({ deviceId: `${kind}${at}` })),
        );
        const errors = await collect(f.caught, offsets.length, 15000);
        for (const err of errors) {
          const text = JSON.stringify({ error: err.error, edgeError: err.edgeError });
          assertNoPiece(text, `the error of ${err.deviceId}`);
          assert.match(err.error.message, kind === "h" ? /HTTP 500: a+/ : /HTTP 400: a+/);
        }
        assertNoPiece(JSON.stringify(shown), "a status");
        assertNoPiece(logged.map(String).join("\n"), "the log");
        // The cut really fell on the token for some offsets: the text was long enough.
        assert.ok(errors.some((e) => e.error.message.includes("[REDACTED]")));
      });
    }
  });

  describe("certificates", function () {
    let certs;
    let sim;
    before(function () {
      try {
        execFileSync("openssl", ["version"], { stdio: "pipe" });
      } catch {
        this.skip();
      }
      certs = makeCertificates();
    });
    after(function () {
      if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
    });
    before(function (done) {
      helper.startServer(done);
    });
    after(function (done) {
      helper.stopServer(done);
    });
    afterEach(async function () {
      await helper.unload();
      await sim?.close();
      sim = undefined;
    });

    async function run(simTls, tlsNode) {
      sim = await start({ port: 0, quiet: true, tls: simTls });
      assert.match(sim.url, /^https:\/\//);
      const tls = {
        id: "tls1",
        type: "tls-config",
        cert: "",
        key: "",
        servername: "",
        verifyservercert: true,
        ...tlsNode,
      };
      const { n1, out, caught } = await startNode(
        sim,
        { type: "edge-device-state", device: "lcd-board", mode: "get" },
        {
          account: { rate: 0, retries: "0", ...(tlsNode ? { useTls: true, tls: "tls1" } : {}) },
          extraNodes: tlsNode ? [tls] : [],
          extraTypes: [TLS],
        },
      );
      n1.receive({ payload: "go" });
      return Promise.race([
        next(out).then((msg) => ({ msg })),
        next(caught).then((err) => ({ err })),
      ]);
    }

    it("refuses a self-signed certificate by default", async function () {
      const { err } = await run(certs.self);
      assert.equal(err.error.code, "tls");
      assert.match(err.error.message, /TLS failure talking to https:\/\/127\.0\.0\.1:\d+: \w+/);
    });

    it("refuses a certificate of a private CA by default", async function () {
      const { err } = await run(certs.signed);
      assert.equal(err.error.code, "tls");
    });

    it("accepts the private CA's certificate with a tls-config node carrying the CA", async function () {
      const { msg, err } = await run(certs.signed, { ca: certs.ca });
      assert.equal(err, undefined, err?.error?.message);
      assert.equal(msg.device.name, "lcd-board");
      assert.equal(sim.stats().total, 1);
    });

    it("still refuses the certificate when the tls-config node carries another CA", async function () {
      const { err } = await run(certs.signed, { ca: certs.otherCa });
      assert.equal(err.error.code, "tls");
    });
  });

  describe("Test connection in a real Node-RED without adminAuth (the default)", function () {
    // Without adminAuth any web page the user opens can POST to the editor's routes: a form or a
    // text/plain body needs no CORS preflight. Such a POST once made Node-RED send the stored
    // token to a URL of the page's choosing.
    let red;
    let sim;
    let trap;
    const stolen = [];
    let htmlSite;

    before(async function () {
      this.timeout(40000);
      sim = await start({ port: 0, quiet: true });
      // An API that knows one token: Test connection's made-up token is refused, as it must be
      // for "Connected" (connection-probe.ts).
      trap = await serve((req, res) => {
        const token = req.headers["x-auth-token"];
        stolen.push(token);
        const status = token === "typed-token" ? 404 : 401;
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ head: { status, ok: false, errors: [] }, body: null }));
      });
      htmlSite = await serve((req, res) => {
        res.writeHead(404, { "content-type": "text/html" });
        res.end("<html><body><h1>Not Found</h1><p>Cannot GET this page</p></body></html>");
      });
      red = await startNodeRed({});
      await deployFlows(red.url, [accountNode(sim)]);
    });

    after(async function () {
      await red?.stop();
      await sim?.close();
      await trap?.close();
      await htmlSite?.close();
    });

    beforeEach(function () {
      stolen.length = 0;
    });

    const post = (contentType, body, headers = {}) =>
      fetch(`${red.url}/edge-account/test`, {
        method: "POST",
        headers: { "content-type": contentType, ...headers },
        body,
      });

    it("refuses a cross-site form POST and sends the stored token nowhere", async function () {
      const form = new URLSearchParams({ id: "acc", baseUrl: trap.url, company: "demo" });
      const res = await post("application/x-www-form-urlencoded", form.toString(), {
        origin: "http://evil.example",
      });
      assert.deepEqual(stolen, [], "the stored token went to the page's URL");
      assert.equal(res.status, 415);
    });

    it("refuses a cross-site text/plain POST and sends the stored token nowhere", async function () {
      const json = JSON.stringify({ id: "acc", baseUrl: trap.url, company: "demo" });
      const res = await post("text/plain", json, { origin: "http://evil.example" });
      assert.deepEqual(stolen, [], "the stored token went to the page's URL");
      assert.equal(res.status, 415);
    });

    it("refuses a JSON POST with a foreign Origin", async function () {
      const json = JSON.stringify({ id: "acc", baseUrl: trap.url, company: "demo" });
      for (const origin of ["http://evil.example", "null", "http://127.0.0.1:1"]) {
        const res = await post("application/json", json, { origin });
        assert.equal(res.status, 403, origin);
      }
      assert.deepEqual(stolen, []);
    });

    it("sends a stored token only to the base URL the account was deployed with", async function () {
      const json = (baseUrl) =>
        JSON.stringify({ id: "acc", baseUrl, company: "demo", token: "__PWRD__" });
      const other = await post("application/json", json(trap.url), { origin: red.url });
      const answer = await other.json();
      capture("Test connection", answer);
      assert.equal(answer.ok, false);
      assert.equal(answer.code, "type-token");
      assert.match(answer.message, /type the token to test another URL/);
      assert.deepEqual(stolen, []);
      // The deployed URL, written another way, still gets it; a typed token goes anywhere.
      const home = await (await post("application/json", json(`${sim.url}/v5.0/demo/`))).json();
      assert.equal(home.ok, true, home.message);
      const typed = JSON.stringify({ baseUrl: trap.url, company: "demo", token: "typed-token" });
      assert.equal((await (await post("application/json", typed)).json()).ok, true);
      // The typed token, then the made-up one of its shape (connection-probe.ts): never the
      // stored one.
      assert.equal(stolen.length, 2, JSON.stringify(stolen));
      assert.equal(stolen[0], "typed-token");
      assert.notEqual(stolen[1], "typed-token");
      assert.equal(stolen[1].length, "typed-token".length);
      assert.ok(!stolen.includes(sim.token));
    });

    it("fails Test connection against a server whose 404 is an HTML page", async function () {
      for (const target of [htmlSite.url, red.url]) {
        const body = JSON.stringify({ baseUrl: target, company: "demo", token: "typed-token" });
        const answer = await (await post("application/json", body)).json();
        capture("Test connection", answer);
        assert.equal(answer.ok, false, `${target}: ${answer.message}`);
        assert.equal(answer.code, "not-api");
        assert.match(answer.message, /without the API's JSON envelope/);
      }
    });
  });

  describe("in a real Node-RED with adminAuth", function () {
    let red;
    let sim;
    let bearer;
    const users = [
      { username: "admin", password: "admin-pass", permissions: "*" },
      { username: "reader", password: "reader-pass", permissions: "read" },
    ];

    before(async function () {
      this.timeout(40000);
      sim = await start({ port: 0, quiet: true, commandDelayMs: 5 });
      red = await startNodeRed({ settings: adminAuth(users) });
      bearer = await login(red, "admin", "admin-pass");
      await deployFlows(
        red.url,
        [
          { id: "t1", type: "tab", label: "export" },
          accountNode(sim),
          {
            id: "go",
            z: "t1",
            type: "inject",
            once: true,
            onceDelay: 0.1,
            repeat: "",
            topic: "",
            payload: "",
            payloadType: "date",
            props: [{ p: "payload" }],
            wires: [["n-read", "n-missing"]],
          },
          worker("edge-device-state", { id: "n-read", z: "t1", wires: [["dbg"]] }),
          worker("edge-device-state", {
            id: "n-missing",
            z: "t1",
            device: "missing",
            wires: [["dbg"]],
          }),
          { id: "c1", z: "t1", type: "catch", scope: null, wires: [["dbg"]] },
          debugNode("t1"),
        ],
        { headers: { authorization: `Bearer ${bearer}` } },
      );
      await waitFor(() => /lcd-board/.test(red.output()) && /404/.test(red.output()), {
        timeoutMs: 10000,
        what: "the debug output of both requests in the log",
      });
    });

    after(async function () {
      await red?.stop();
      await sim?.close();
    });

    it("leaves the token out of the exported flow, the stored flow and the log", async function () {
      const res = await fetch(`${red.url}/flows`, {
        headers: { authorization: `Bearer ${bearer}`, "node-red-api-version": "v2" },
      });
      assert.equal(res.status, 200);
      const exported = await res.text();
      capture("GET /flows", exported);
      assert.match(exported, /"type":"edge-account"/);
      assert.ok(!exported.includes(sim.token), "the token is in GET /flows");
      const creds = await fetch(`${red.url}/credentials/edge-account/acc`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      const shown = await creds.json();
      capture("GET /credentials", shown);
      assert.deepEqual(shown, { user: sim.user, has_token: true });
      const flowsFile = fs.readFileSync(path.join(red.userDir, "flows.json"), "utf8");
      const credsFile = fs.readFileSync(path.join(red.userDir, "flows_cred.json"), "utf8");
      assert.ok(!flowsFile.includes(sim.token), "the token is in flows.json");
      assert.ok(!credsFile.includes(sim.token), "the token is stored unencrypted");
      const log = red.output();
      capture("Node-RED log", log);
      assert.match(log, /lcd-board/, "the debug node logged the message");
      assert.ok(!log.includes(sim.token), "the token is in the Node-RED log");
    });

    it("refuses Test connection without a login and to a read-only user", async function () {
      const body = JSON.stringify({
        id: "acc",
        baseUrl: sim.url,
        company: "demo",
        token: "__PWRD__",
      });
      const headers = { "content-type": "application/json" };
      const anonymous = await fetch(`${red.url}/edge-account/test`, {
        method: "POST",
        headers,
        body,
      });
      assert.equal(anonymous.status, 401);
      const reader = await login(red, "reader", "reader-pass", "read");
      const readOnly = await fetch(`${red.url}/edge-account/test`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${reader}` },
        body,
      });
      // Node-RED answers 401 to a user whose permissions do not cover the route.
      assert.equal(readOnly.status, 401);
      const admin = await fetch(`${red.url}/edge-account/test`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${bearer}` },
        body,
      });
      const answer = await admin.json();
      capture("Test connection", answer);
      assert.equal(answer.ok, true, answer.message);
    });
  });
});
