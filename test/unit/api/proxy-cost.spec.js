// No cost without a proxy (issue 31): an account that connects directly loads only undici's pool,
// as before proxies existed (transport.ts); undici's index, which ProxyAgent needs, is loaded only
// by an account that goes through a proxy. Each case runs in a fresh Node.js process, so that no
// other spec's require() is counted.
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const CLIENT = path.join(__dirname, "..", "..", "..", "dist", "nodes", "lib", "api", "client.js");

/** Reads one page through a direct or proxied client in a new process; answers what it loaded. */
function run(throughProxy) {
  const script = `
    const http = require("node:http");
    const { EdgeClient } = require(${JSON.stringify(CLIENT)});
    const answer = JSON.stringify({ head: { status: 200, ok: true, messages: [], errors: [] }, body: [] });
    const api = http.createServer((req, res) => res.end(answer));
    // A forward proxy of one line: it answers for the API, which is all this case needs to see.
    const proxy = http.createServer((req, res) => res.end(answer));
    api.listen(0, "127.0.0.1", () => proxy.listen(0, "127.0.0.1", async () => {
      const client = new EdgeClient({
        baseUrl: "http://127.0.0.1:" + api.address().port,
        company: "demo",
        token: "t0123456789",
        ${throughProxy ? 'proxy: { url: "http://127.0.0.1:" + proxy.address().port },' : ""}
      });
      await client.listEvents("s000000000000000000000000", { limit: 1 });
      await client.close();
      const loaded = Object.keys(require.cache).filter((k) => k.includes("node_modules/undici/"));
      console.log(JSON.stringify({ index: loaded.some((k) => k.endsWith("undici/index.js")) }));
      api.close();
      proxy.close();
    }));`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

describe("proxy cost", function () {
  it("should not load undici's index for an account without a proxy", function () {
    assert.deepEqual(run(false), { index: false });
  });

  it("should load it for an account whose requests go through a proxy", function () {
    assert.deepEqual(run(true), { index: true });
  });
});
