// nodes/lib/api/proxy-rules.ts: the proxy an account uses is the one Node-RED's own http request
// node would use for the same URL, environment and proxyOptions. Each case is asked of both, the
// package's rules and core's proxyHelper.js, and they must agree.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { getProxyForUrl } = require("@node-red/nodes/core/network/lib/proxyHelper.js");

const { proxyForUrl } = lib("api/proxy-rules");

const PROXY = "http://proxy.plant:3128";
const URLS = [
  "https://api.example.com",
  "https://api.example.com:8443",
  "http://api.example.com",
  "http://127.0.0.1:8686",
  "https://eu.api.example.com",
  "http://[::1]:8686",
  "http://localhost:8686",
];
const NO_PROXIES = [
  undefined,
  "",
  "*",
  "api.example.com",
  "example.com",
  ".example.com",
  "*.example.com",
  "api.example.com:443",
  "api.example.com:8443",
  "127.0.0.1",
  "127.0.0.1:8686",
  "127.0.0.1:9999",
  "localhost, other.host",
  "other.host api.example.com",
  "[::1]:8686",
  "API.EXAMPLE.COM",
];
const ENVS = [
  (np) => ({ http_proxy: PROXY, https_proxy: PROXY, no_proxy: np }),
  (np) => ({ HTTPS_PROXY: `${PROXY}/`, NO_PROXY: np }),
  (np) => ({ HTTP_PROXY: "proxy.plant:3128", no_proxy: np }),
  (np) => ({ all_proxy: PROXY, NO_PROXY: np }),
  (np) => ({ https_proxy: "http://user:secret@proxy.plant:3128", no_proxy: np }),
];
const OPTIONS = [
  {},
  { lowerCaseOnly: true },
  { favourUpperCase: true },
  { mode: "legacy" },
  { excludeNpm: true },
];

describe("proxy-rules", function () {
  it("should choose the proxy core's http request node chooses, for every URL, no_proxy and option", function () {
    let cases = 0;
    for (const url of URLS)
      for (const np of NO_PROXIES)
        for (const env of ENVS)
          for (const opts of OPTIONS) {
            const options = { ...opts, env: env(np) };
            const theirs = getProxyForUrl(url, { ...options });
            assert.equal(
              proxyForUrl(url, { ...options }),
              theirs,
              JSON.stringify({ url, options }),
            );
            cases++;
          }
    assert.equal(cases, URLS.length * NO_PROXIES.length * ENVS.length * OPTIONS.length);
  });

  it("should bypass the proxy for a host in no_proxy, and use it for the others", function () {
    const env = { https_proxy: PROXY, no_proxy: ".plant.local, 10.1.2.3, api.example.com:8443" };
    assert.equal(proxyForUrl("https://api.example.com", { env }), PROXY);
    assert.equal(proxyForUrl("https://api.example.com:8443", { env }), "");
    assert.equal(proxyForUrl("https://edge.plant.local", { env }), "");
    assert.equal(proxyForUrl("https://10.1.2.3", { env }), "");
    assert.equal(proxyForUrl("https://x", { env: { ...env, no_proxy: "*" } }), "");
  });
});
