// edge-account: the client it owns and its "Test connection" admin route.
"use strict";
const assert = require("node:assert/strict");
const { load, account, helper, withRedAndSimulator } = require("../support/red");
const { startNodeRed, adminAuth, login } = require("../support/node-red-process");
const { capture } = require("../support/capture");
const { serve } = require("../support/http-server");

describe("edge-account", function () {
  const env = withRedAndSimulator();

  async function deploy(creds = {}) {
    const acc = account(env.sim, {}, creds);
    await load([acc.node], acc.credentials);
    return helper.getNode("acc");
  }

  async function test(body) {
    const res = await helper.request().post("/edge-account/test").send(body).expect(200);
    capture("test-connection answer", res.body);
    return res.body;
  }

  it("owns one client for the account, built from its properties and credentials", async function () {
    const acc = await deploy();
    assert.equal(acc.services.client.company, "demo");
    assert.equal(acc.services.client.origin, env.sim.url);
    assert.ok(acc.services.poller);
  });

  it("takes Max answer from its settings, 8 MiB by default, and refuses a timeout over 2^31 - 1 ms", async function () {
    const acc = await deploy();
    assert.equal(acc.services.client.maxAnswerBytes, 8 * 1024 * 1024);
    await helper.unload();
    const small = account(env.sim, { maxAnswer: "4096" });
    await load([small.node], small.credentials);
    assert.equal(helper.getNode("acc").services.client.maxAnswerBytes, 4096);
    await helper.unload();
    const slow = account(env.sim, { timeout: "2147483648" });
    await load([slow.node], slow.credentials);
    const refused = helper.getNode("acc");
    assert.equal(refused.client, undefined);
    assert.equal(refused.configError.code, "bad-config");
    assert.match(refused.configError.message, /from 1 to 2147483647, got 2147483648/);
  });

  it("reports an invalid base URL when deployed, and the nodes using it fail with that reason", async function () {
    await load([{ id: "acc", type: "edge-account", baseUrl: "not a url", company: "demo" }], {
      acc: { token: "t" },
    });
    const acc = helper.getNode("acc");
    assert.equal(acc.services, undefined);
    assert.match(acc.configError.message, /base URL "not a url" is not a URL/);
  });

  it("answers Test connection for good typed credentials", async function () {
    await deploy();
    const answer = await test({
      baseUrl: env.sim.url,
      company: "demo",
      user: env.sim.user,
      token: env.sim.token,
    });
    assert.equal(answer.ok, true);
    assert.match(answer.message, /^Connected: the company demo answered/);
  });

  it("answers Test connection with the API's own error text for a bad token", async function () {
    await deploy();
    const answer = await test({
      baseUrl: env.sim.url,
      company: "demo",
      user: env.sim.user,
      token: "bad-token",
    });
    assert.equal(answer.ok, false);
    assert.equal(answer.status, 401);
    assert.match(answer.message, /^Failed: The server refused the credentials \(HTTP 401\): .+/);
  });

  it("answers Test connection for another company with 403", async function () {
    await deploy();
    const answer = await test({ baseUrl: env.sim.url, company: "other", token: env.sim.token });
    assert.equal(answer.ok, false);
    assert.equal(answer.status, 403);
  });

  it("uses the deployed node's stored token when the dialog's token is unchanged", async function () {
    await deploy();
    const answer = await test({
      id: "acc",
      baseUrl: env.sim.url,
      company: "demo",
      token: "__PWRD__",
    });
    assert.equal(answer.ok, true);
    const bad = await test({
      id: "missing",
      baseUrl: env.sim.url,
      company: "demo",
      token: "__PWRD__",
    });
    assert.equal(bad.ok, false);
    assert.match(bad.message, /the token is empty/);
  });

  it("answers Test connection for a base URL and company given as ${ENV_VAR}, with the stored token", async function () {
    process.env.EDGE_TEST_BASE_URL = env.sim.url;
    process.env.EDGE_TEST_COMPANY = "demo";
    try {
      const acc = account(env.sim, {
        baseUrl: "${EDGE_TEST_BASE_URL}",
        company: "${EDGE_TEST_COMPANY}",
      });
      await load([acc.node], acc.credentials);
      const answer = await test({
        id: "acc",
        baseUrl: "${EDGE_TEST_BASE_URL}",
        company: "${EDGE_TEST_COMPANY}",
        token: "__PWRD__",
      });
      assert.equal(answer.ok, true, answer.message);
    } finally {
      delete process.env.EDGE_TEST_BASE_URL;
      delete process.env.EDGE_TEST_COMPANY;
    }
  });

  it("does not say Connected for any token on a server that refuses only tokens shaped like the made-up one", async function () {
    // The made-up token was `edgewire-probe-` and 24 hex digits: a server that refused only that
    // shape (and took every other token) made Test connection say "Connected" for any token.
    const seen = [];
    const server = await serve((req, res) => {
      const token = String(req.headers["x-auth-token"]);
      seen.push(token);
      const refused = /^edgewire-probe-[0-9a-f]{24}$/.test(token) || token.length !== 19;
      const status = refused ? 401 : 404;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ head: { status, ok: false, messages: [], errors: ["no"] } }));
    });
    try {
      await deploy();
      const answer = await test({
        baseUrl: server.url,
        company: "demo",
        token: "any-token-123456789",
      });
      assert.equal(answer.ok, false, answer.message);
      assert.equal(answer.code, "unverified");
      // The made-up token has the shape of the one tried, and is not it.
      assert.equal(seen.length, 2);
      assert.equal(seen[1].length, 19);
      assert.notEqual(seen[1], seen[0]);
    } finally {
      await server.close();
    }
  });

  it("never shows the value of an environment variable named as the base URL or the company", async function () {
    const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    process.env.EDGE_TEST_SECRET = secret;
    process.env.EDGE_TEST_BASE_URL = env.sim.url;
    try {
      await deploy();
      const answers = [
        await test({ baseUrl: "${EDGE_TEST_SECRET}", company: "demo", token: "x" }),
        await test({ baseUrl: `http://${"${EDGE_TEST_SECRET}"}`, company: "demo", token: "x" }),
        await test({
          baseUrl: "${EDGE_TEST_BASE_URL}",
          company: "${EDGE_TEST_SECRET}",
          token: "x",
        }),
        await test({ baseUrl: env.sim.url, company: "${EDGE_TEST_SECRET}", token: env.sim.token }),
      ];
      for (const answer of answers) {
        const text = JSON.stringify(answer);
        for (let i = 0; i + 8 <= secret.length; i++)
          assert.ok(!text.includes(secret.slice(i, i + 8)), `a piece of the value in ${text}`);
        assert.equal(answer.ok, false, text);
      }
      // The value is still what is tried, as the deployed node would: a URL from the environment
      // connects.
      const ok = await test({
        baseUrl: "${EDGE_TEST_BASE_URL}",
        company: "demo",
        token: env.sim.token,
      });
      assert.equal(ok.ok, true, ok.message);
    } finally {
      delete process.env.EDGE_TEST_SECRET;
      delete process.env.EDGE_TEST_BASE_URL;
    }
  });

  it("answers Test connection when nothing listens at the URL", async function () {
    await deploy();
    const answer = await test({ baseUrl: "http://127.0.0.1:1", company: "demo", token: "x" });
    assert.equal(answer.ok, false);
    // Where and what to check, not the probe's own request (its path stays in the error's log).
    assert.equal(
      answer.message,
      "Failed: Connection refused by http://127.0.0.1:1: is the server running, and are the Base URL's host and port right?",
    );
    assert.equal(answer.code, "refused");
    assert.deepEqual(answer.params, { origin: "http://127.0.0.1:1", context: "probe" });
  });

  it("answers Test connection to an https:// URL of a plain-http server: try an http:// Base URL", async function () {
    await deploy();
    const baseUrl = env.sim.url.replace(/^http:/, "https:");
    const answer = await test({ baseUrl, company: "demo", token: env.sim.token });
    assert.equal(answer.ok, false);
    assert.equal(answer.code, "tls");
    assert.match(
      answer.message,
      /^Failed: TLS failure talking to https:\/\/127\.0\.0\.1:\d+ \(ERR_SSL_\w+\): the server may speak http: try an http:\/\/ Base URL$/,
    );
  });

  describe("with adminAuth on, in a real Node-RED", function () {
    let red;
    before(async function () {
      this.timeout(40000);
      red = await startNodeRed({
        settings: adminAuth([{ username: "admin", password: "password", permissions: "*" }]),
      });
    });
    after(async function () {
      await red?.stop();
    });

    it("refuses Test connection to a caller without permission", async function () {
      const res = await fetch(`${red.url}/edge-account/test`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ baseUrl: env.sim.url, company: "demo", token: env.sim.token }),
      });
      assert.equal(res.status, 401);
    });

    it("answers Test connection to a logged-in caller", async function () {
      const bearer = await login(red, "admin", "password");
      const res = await fetch(`${red.url}/edge-account/test`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
        body: JSON.stringify({ baseUrl: env.sim.url, company: "demo", token: env.sim.token }),
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).ok, true);
    });
  });
});
