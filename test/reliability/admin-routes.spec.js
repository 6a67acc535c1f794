// The account's admin routes in a real Node-RED, as an attacker meets them: the device picker
// (POST /edge-account/directory) and Test connection (POST /edge-account/test) under adminAuth
// with a read-only user, a full user and no login, and without adminAuth (Node-RED's default),
// where any web page the user visits can post to them.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const { start } = require("../../dist/simulator");
const {
  startNodeRed,
  deployFlows,
  accountNode,
  adminAuth,
  login,
} = require("../support/node-red-process");
const { serve } = require("../support/http-server");
const { capture, addSecret } = require("../support/capture");
const { makeCertificates, hasOpenssl } = require("../support/certificates");
const { waitFor } = require("../support/simulator");

/** Node-RED answers a deploy before the new flows have started: wait for its log to say so. */
function flowsStarted(red, times = 2) {
  return waitFor(() => (red.output().match(/\] Started flows/g) ?? []).length >= times, {
    timeoutMs: 10000,
    what: "Node-RED to start the deployed flows",
  });
}

/** A token of 33 characters, and every piece of 8 of them (redact.ts replaces those). */
const ECHOED = "echo-token-0123456789abcdefghijkl";
const PIECES = Array.from({ length: ECHOED.length - 7 }, (_, i) => ECHOED.slice(i, i + 8));

function assertNoPiece(text, where) {
  const found = PIECES.find((p) => text.includes(p));
  assert.equal(found, undefined, `${where} holds "${found}", a piece of the token: ${text}`);
}

const envelope = (status, body, errors = []) =>
  JSON.stringify({ head: { status, ok: status < 300, messages: [], errors }, body });

/**
 * A server that lists devices named after the token it was sent: the whole token after 0 to 25
 * characters ("full-"), what is left of it from each offset ("tail-") and its first 8 to 33
 * characters ("head-"), with ids that hold it too.
 */
function echoingServer() {
  return serve((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const token = String(req.headers["x-auth-token"]);
    res.writeHead(200, { "content-type": "application/json" });
    if (
      !/\/v5\.0\/demo\/(device|stream)$/.test(url.pathname) ||
      url.searchParams.get("start") !== "0"
    ) {
      res.end(envelope(200, []));
      return;
    }
    const devices = [];
    for (let i = 0; i + 8 <= token.length; i++) {
      devices.push({ id: `d${token}`, name: `full-${"a".repeat(i)}${token}` });
      devices.push({ id: `d${token.slice(i)}`, name: `tail-${i}-${token.slice(i)}` });
      devices.push({ id: `d${i}`, name: `head-${i}-${token.slice(0, i + 8)}` });
    }
    const streams = devices.map((d) => ({ id: d.id, path: `/demo/${d.name}` }));
    res.end(envelope(200, url.pathname.endsWith("/device") ? devices : streams));
  });
}

/**
 * A server that counts its connections (all, open now, the most open at once) and holds every
 * device list it is asked for until `release()`, so that the test sees what is in flight at once.
 */
async function holdingServer() {
  const counts = { total: 0, open: 0, peak: 0, requests: 0 };
  const held = [];
  let holding = true;
  const answer = (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(envelope(200, [{ id: "d5f3c1a2b0000000000000001", name: "counted-board" }]));
  };
  const server = await serve((req, res) => {
    counts.requests++;
    if (holding) held.push(res);
    else answer(res);
  });
  server.server.on("connection", (socket) => {
    counts.total++;
    counts.open++;
    counts.peak = Math.max(counts.peak, counts.open);
    socket.on("close", () => counts.open--);
  });
  const release = () => {
    holding = false;
    for (const res of held.splice(0)) answer(res);
  };
  return { ...server, counts, held, release };
}

/** Posts `body` to an admin route; resolves with {status, json}. */
async function post(red, route, body, { bearer, contentType = "application/json", origin } = {}) {
  const headers = { "content-type": contentType };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (origin) headers.origin = origin;
  const res = await fetch(`${red.url}/edge-account/${route}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  capture(`POST /edge-account/${route}`, text);
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

describe("reliability: the account's admin routes", function () {
  this.timeout(60000);

  describe("in a real Node-RED with adminAuth, a read-only user and a full one", function () {
    let red;
    let sim;
    let tlsSim;
    let echo;
    let certs;
    let admin;
    let reader;

    before(async function () {
      if (!hasOpenssl()) this.skip();
      addSecret(ECHOED);
      certs = makeCertificates();
      sim = await start({ port: 0, quiet: true });
      tlsSim = await start({ port: 0, quiet: true, tls: certs.signed });
      echo = await echoingServer();
      red = await startNodeRed({
        settings: adminAuth([
          { username: "admin", password: "admin-pass", permissions: "*" },
          { username: "reader", password: "reader-pass", permissions: "read" },
        ]),
      });
      admin = await login(red, "admin", "admin-pass");
      reader = await login(red, "reader", "reader-pass", "read");
      const tlsNode = (id, ca) => ({
        id,
        type: "tls-config",
        ca,
        cert: "",
        key: "",
        servername: "",
        verifyservercert: true,
      });
      await deployFlows(
        red.url,
        [
          accountNode(sim),
          accountNode(sim, {
            id: "acc-echo",
            baseUrl: echo.url,
            credentials: { user: "", token: ECHOED },
          }),
          tlsNode("tls-ca", certs.ca),
          tlsNode("tls-other", certs.otherCa),
        ],
        { headers: { authorization: `Bearer ${admin}` } },
      );
      await flowsStarted(red);
    });

    after(async function () {
      await red?.stop();
      await sim?.close();
      await tlsSim?.close();
      await echo?.close();
      if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
    });

    const typed = (target, more = {}) => ({
      baseUrl: target.url,
      company: "demo",
      user: target.user,
      token: target.token,
      ...more,
    });

    it("lets a read-only user list a deployed account's devices with its stored credentials", async function () {
      const answer = await post(
        red,
        "directory",
        { account: "acc", kind: "devices" },
        { bearer: reader },
      );
      assert.equal(answer.status, 200);
      assert.ok(
        answer.json.items.some((i) => i.value === "lcd-board"),
        JSON.stringify(answer.json),
      );
    });

    it("refuses typed values and a TLS node to a read-only user and to no login, and sends nothing", async function () {
      const before = { sim: sim.stats().total, tls: tlsSim.stats().total };
      const bodies = [
        { account: "new", kind: "devices", typed: typed(sim) },
        // Even for a deployed account's id: typed values are read with the typed token.
        { account: "acc", kind: "devices", typed: typed(sim) },
        {
          account: "new",
          kind: "devices",
          typed: typed(tlsSim, { useTls: true, tls: "tls-ca" }),
        },
      ];
      for (const body of bodies) {
        assert.equal((await post(red, "directory", body, { bearer: reader })).status, 401);
        assert.equal((await post(red, "directory", body)).status, 401);
      }
      assert.deepEqual(
        { sim: sim.stats().total, tls: tlsSim.stats().total },
        before,
        "a refused call reached a server",
      );
      // The full user may, with the TLS node's CA.
      const full = await post(red, "directory", bodies[2], { bearer: admin });
      assert.ok(
        full.json.items?.some((i) => i.value === "lcd-board"),
        JSON.stringify(full.json),
      );
      assert.equal(tlsSim.stats().total, before.tls + 1);
    });

    it("keys the cache of typed values on the TLS settings: another TLS node, or none, reads again", async function () {
      // Fresh typed values: a user that differs from the previous test's.
      const values = typed(tlsSim, { user: "" });
      const ask = (more) =>
        post(
          red,
          "directory",
          { account: "new", kind: "devices", typed: { ...values, ...more } },
          { bearer: admin },
        );
      const good = await ask({ useTls: true, tls: "tls-ca" });
      assert.ok(
        good.json.items?.some((i) => i.value === "lcd-board"),
        JSON.stringify(good.json),
      );
      // The same URL and token with another CA, or with no TLS node: the certificate is checked
      // again and refused, instead of the answer read with the right CA.
      for (const more of [
        { useTls: true, tls: "tls-other" },
        { useTls: false, tls: "" },
      ]) {
        const other = await ask(more);
        assert.equal(other.json.items, undefined, JSON.stringify(other.json));
        assert.match(other.json.error, /TLS failure/);
      }
      // The right CA again is served from the cache: no new request.
      const read = tlsSim.stats().total;
      assert.ok((await ask({ useTls: true, tls: "tls-ca" })).json.items.length > 0);
      assert.equal(tlsSim.stats().total, read);
    });

    it("keeps every 8-character piece of a token the server echoes in device names and ids out of the answer, and out of what a search tells", async function () {
      let redacted = 0;
      for (const search of ["full", "tail", "head"]) {
        const answer = await post(
          red,
          "directory",
          { account: "acc-echo", kind: "devices", search },
          { bearer: reader },
        );
        assert.equal(answer.status, 200);
        const text = JSON.stringify(answer.json);
        assert.equal(answer.json.items.length, 26, text);
        assertNoPiece(text, `the answer to "${search}"`);
        redacted += answer.json.items.filter((i) => i.value.includes("[REDACTED]")).length;
      }
      assert.equal(redacted, 78, "every name held a piece of the token");
      const streams = await post(
        red,
        "directory",
        { account: "acc-echo", kind: "streams", search: "tail" },
        { bearer: reader },
      );
      assert.ok(streams.json.items.length > 0);
      assertNoPiece(JSON.stringify(streams.json), "the stream answer");
      // A search for a piece of the token finds nothing: it would tell the token piece by piece.
      for (const piece of [ECHOED.slice(0, 8), ECHOED.slice(5, 20), ECHOED]) {
        const found = await post(
          red,
          "directory",
          { account: "acc-echo", kind: "devices", search: piece },
          { bearer: reader },
        );
        assert.deepEqual(found.json.items, [], piece);
      }
    });

    it("opens at most two connections at once however many typed directory calls come together", async function () {
      const server = await holdingServer();
      try {
        const answers = [];
        const calls = Array.from({ length: 40 }, (_, i) =>
          post(
            red,
            "directory",
            // A token each: forty cache keys, forty reads if nothing bounded them.
            {
              account: "new",
              kind: "devices",
              typed: { baseUrl: server.url, company: "demo", token: `token-${i}` },
            },
            { bearer: admin },
          ).then((answer) => answers.push(answer.json)),
        );
        // Two reads are held by the server, eight wait for them, thirty are turned away at once;
        // without a bound every call's read would arrive here.
        await waitFor(
          () => server.held.length > 2 || (answers.length === 30 && server.held.length === 2),
          {
            timeoutMs: 15000,
            what: "the calls past the gate to be answered",
          },
        );
        assert.equal(server.held.length, 2, `${server.held.length} reads in flight at once`);
        assert.equal(server.counts.open, 2, `${server.counts.open} connections open at once`);
        for (const answer of answers) assert.match(answer.error, /^Too many device lists/);
        server.release();
        await Promise.all(calls);
        const listed = answers.filter((a) => a.items?.[0]?.value === "counted-board");
        assert.equal(listed.length, 10, JSON.stringify(answers));
        assert.equal(server.counts.requests, 10);
        // Two at once throughout; a connection closed by the runtime may still be open on the
        // server for a moment when the next one comes.
        assert.ok(server.counts.peak <= 4, `${server.counts.peak} connections at once`);
      } finally {
        await server.close();
      }
    });

    it("says Connected for the simulator with the right credentials only, never for a URL that checks none", async function () {
      const test = (body) => post(red, "test", body, { bearer: admin });
      const right = { baseUrl: sim.url, company: "demo", user: sim.user, token: sim.token };
      const ok = await test(right);
      assert.equal(ok.json.ok, true, ok.json.message);
      assert.match(ok.json.message, /^Connected: the company demo answered/);
      const wrong = await test({ ...right, token: "not-the-token" });
      assert.equal(wrong.json.ok, false);
      assert.equal(wrong.json.status, 401);
      // The simulator answers a path it does not know in its envelope, before any credentials.
      for (const [baseUrl, company, token] of [
        [`${sim.url}/nothing`, "nosuchco", "any-token"],
        [`${sim.url}/nothing`, "demo", sim.token],
      ]) {
        const answer = await test({ baseUrl, company, token });
        assert.equal(answer.json.ok, false, `${baseUrl} ${company}: ${answer.json.message}`);
        assert.equal(answer.json.code, "unverified");
        assert.match(
          answer.json.message,
          /^Not verified: the server did not refuse a made-up token either \(it answered HTTP 404\)/,
        );
      }
      // The API's URL pasted whole: the base URL names the API's path, another company or more.
      for (const [baseUrl, company, token] of [
        [`${sim.url}/v5.0/demo`, "nosuchco", "any-token"],
        [`${sim.url}/v5.0/demo/device`, "demo", sim.token],
        [`${sim.url}/v5.0/demo/`, "other", sim.token],
      ]) {
        const answer = await test({ baseUrl, company, token });
        assert.equal(answer.json.ok, false, `${baseUrl} ${company}: ${answer.json.message}`);
        assert.equal(answer.json.code, "api-path");
        assert.match(
          answer.json.message,
          /The base URL holds the API's path \(\/v5\.0\/demo[^)]*\): enter the server's address only/,
        );
      }
      // Its own company's API URL is the host written another way.
      const pasted = await test({ ...right, baseUrl: `${sim.url}/v5.0/demo/` });
      assert.equal(pasted.json.ok, true, pasted.json.message);
    });
  });

  describe("in a real Node-RED without adminAuth (the default)", function () {
    let red;
    let sim;
    let trap;
    const sent = [];

    before(async function () {
      sim = await start({ port: 0, quiet: true });
      trap = await serve((req, res) => {
        sent.push(req.url);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(envelope(200, [{ id: "d5f3c1a2b0000000000000001", name: "internal-host" }]));
      });
      red = await startNodeRed({});
      await deployFlows(red.url, [accountNode(sim)]);
      await flowsStarted(red);
    });

    after(async function () {
      await red?.stop();
      await sim?.close();
      await trap?.close();
    });

    beforeEach(function () {
      sent.length = 0;
    });

    it("refuses cross-site form and text/plain posts to the picker, and JSON from a foreign Origin, and sends nothing", async function () {
      const before = sim.stats().total;
      const fields = { account: "acc", kind: "devices" };
      const form = new URLSearchParams({
        ...fields,
        "typed[baseUrl]": trap.url,
        "typed[company]": "demo",
        "typed[token]": "page-token",
      }).toString();
      const json = JSON.stringify({
        ...fields,
        typed: { baseUrl: trap.url, company: "demo", token: "page-token" },
      });
      const origin = "http://evil.example";
      for (const [contentType, body] of [
        ["application/x-www-form-urlencoded", form],
        ["application/x-www-form-urlencoded", new URLSearchParams(fields).toString()],
        ["text/plain", json],
        [
          "multipart/form-data; boundary=x",
          `--x\r\nContent-Disposition: form-data; name="account"\r\n\r\nacc\r\n--x--\r\n`,
        ],
      ]) {
        const answer = await post(red, "directory", body, { contentType, origin });
        assert.equal(answer.status, 415, contentType);
        assert.equal(answer.json.code, "json-only");
      }
      for (const from of [origin, "null", "http://127.0.0.1:1"]) {
        const answer = await post(red, "directory", json, { origin: from });
        assert.equal(answer.status, 403, from);
        assert.equal(answer.json.code, "foreign-origin");
      }
      assert.deepEqual(sent, [], "a cross-site post made the runtime send a request");
      assert.equal(sim.stats().total, before, "a cross-site post made the deployed account read");
      // The editor's own page, which sends JSON from its own origin, is served.
      const own = await post(red, "directory", json, { origin: red.url });
      assert.equal(own.status, 200);
      assert.deepEqual(own.json.items, [
        { value: "internal-host", detail: "d5f3c1a2b0000000000000001" },
      ]);
    });
  });
});
