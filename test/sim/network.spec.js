// The simulated network against the package's own client (issue 36): each transport outcome the
// network plays reaches EdgeClient through the handler calls undici makes, and the client's error
// map (transport.ts) and retry rules (retry.ts) read it as they read the real one: nothing written
// is never "uncertain", anything after the write of a command is, and only what surely did not
// reach the server is sent again. On virtual time, in a world of its own per test.
"use strict";
const assert = require("node:assert/strict");
const { createFuzzApi, COMPANY, TOKEN } = require("../fuzz/server");
const { SimNetwork } = require("./network");
const { runInWorld } = require("./world");

const lib = (p) => require(`../../dist/nodes/lib/${p}`);
const { EdgeClient } = lib("api/client");
const transport = lib("api/transport");

/**
 * A command to dev0 through a client with `retries`, the server meeting `fault` first; through a
 * proxy at proxy.sim:3128 when `origin` is given (http: forwarded; https: a CONNECT tunnel).
 */
async function commandUnder(fault, retries = 1, origin = undefined) {
  return runInWorld(36, async () => {
    const api = createFuzzApi({ url: "http://fuzz.sim" });
    api.reset({}, { deviceCount: 1 });
    const net = new SimNetwork(api, { random: () => Math.random() });
    transport.setPoolFactoryForTests(net.factory());
    const client = new EdgeClient({
      baseUrl: origin ?? "http://fuzz.sim",
      ...(origin ? { proxy: { url: "http://proxy.sim:3128" } } : {}),
      company: COMPANY,
      token: TOKEN,
      timeoutMs: 300,
      retry: { retries, baseDelayMs: 10, maxDelayMs: 20 },
    });
    try {
      if (fault) api.fault({ match: "POST", delayMs: 1000, retryAfter: "zero", ...fault });
      const path = client.streamPath("dev0", ":command");
      const outcome = await client.createEventByPath(path, { "/lcd/txt1": "x" }).then(
        (event) => ({ id: event?.id }),
        (err) => ({ code: err.code, mayHaveBeenSent: err.mayHaveBeenSent }),
      );
      return { ...outcome, executed: api.log.executed.length, network: net.log };
    } finally {
      await client.close();
      transport.setPoolFactoryForTests(undefined);
    }
  });
}

describe("the simulated network, read by the package's client", function () {
  it("answers a command once when nothing goes wrong", async function () {
    const r = await commandUnder(undefined);
    assert.equal(typeof r.id, "string");
    assert.equal(r.executed, 1);
  });

  for (const [kind, code] of [
    ["refused", "refused"],
    ["dns", "dns"],
  ]) {
    it(`retries a command whose connection failed before the write (${kind}) and runs it once`, async function () {
      const r = await commandUnder({ kind });
      assert.equal(typeof r.id, "string", JSON.stringify(r));
      assert.equal(r.executed, 1);
      assert.match(r.network.join("\n"), new RegExp(` ${kind}\\n`));
      const first = await commandUnder({ kind }, 0);
      assert.deepEqual([first.code, first.mayHaveBeenSent, first.executed], [code, false, 0]);
    });
  }

  it("says reset, not reset-uncertain, for a connection reset before the request was written", async function () {
    const r = await commandUnder({ kind: "early" }, 0);
    assert.deepEqual([r.code, r.mayHaveBeenSent, r.executed], ["reset", false, 0]);
  });

  for (const [kind, code] of [
    ["lost", "reset-uncertain"],
    ["cut", "reset-uncertain"],
    ["hang", "timeout-uncertain"],
    ["late", "timeout-uncertain"],
  ]) {
    it(`never sends again a command the server ran and then ${kind === "cut" ? "cut off mid-body" : kind === "hang" ? "never answered" : kind === "late" ? "answered after the timeout" : "dropped the connection"} (${code})`, async function () {
      const r = await commandUnder({ kind }, 2);
      assert.deepEqual([r.code, r.mayHaveBeenSent, r.executed], [code, true, 1]);
    });
  }

  for (const [origin, kind, code, executed] of [
    ["http://fuzz.sim", "proxy-refused", "proxy-refused", 0],
    ["http://fuzz.sim", "proxy-407", "proxy-auth", 0],
    ["http://fuzz.sim", "proxy-502", "proxy-upstream", 0],
    ["http://fuzz.sim", "proxy-504", "proxy-upstream", 1],
    ["https://fuzz.sim", "tunnel-403", "proxy-upstream", 0],
  ]) {
    it(`says ${code} for a proxy's ${kind} (${origin.split(":")[0]}), and runs the command ${executed} time(s)`, async function () {
      const r = await commandUnder({ kind }, 0, origin);
      assert.deepEqual([r.code, r.executed], [code, executed], JSON.stringify(r));
      // The proxy's answer after it forwarded the command: it may have been made.
      if (kind === "proxy-504") assert.equal(r.mayHaveBeenSent, true);
    });
  }

  it("runs a command through a proxy that forwards it", async function () {
    for (const origin of ["http://fuzz.sim", "https://fuzz.sim"]) {
      const r = await commandUnder(undefined, 0, origin);
      assert.equal(typeof r.id, "string", JSON.stringify(r));
      assert.equal(r.executed, 1);
    }
  });

  it("sends a command again after the API's own 503 and runs it once", async function () {
    const r = await commandUnder({ kind: "503" }, 1);
    assert.equal(typeof r.id, "string", JSON.stringify(r));
    assert.equal(r.executed, 1);
  });
});
