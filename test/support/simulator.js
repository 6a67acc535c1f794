// The one simulator hook of the specs: `const env = useSimulator()` in a describe starts a fresh
// simulator on a free loopback port before each test (env.sim) and closes it after, with any
// API client made through env.client() for it.
"use strict";
const { start } = require("../../dist/simulator");
const { EdgeClient } = require("../../dist/nodes/lib/api/client");

/** A quiet simulator on a free port, with short command delays unless told otherwise. */
function startSim(options = {}) {
  return start({ port: 0, quiet: true, commandDelayMs: 5, ...options });
}

function useSimulator(options = {}) {
  const env = { sim: undefined, clients: [] };
  /** An API client of the seed's demo account, no rate limit and no retries unless told. */
  env.client = (settings = {}) => {
    const client = new EdgeClient({
      baseUrl: env.sim.url,
      company: env.sim.company,
      user: env.sim.user,
      token: env.sim.token,
      timeoutMs: 5000,
      rateLimit: { perSecond: 0 },
      retry: { retries: 0 },
      ...settings,
    });
    env.clients.push(client);
    return client;
  };
  beforeEach(async function () {
    env.sim = await startSim(options);
  });
  afterEach(async function () {
    await Promise.all(env.clients.splice(0).map((c) => c.close()));
    await env.sim?.close();
    env.sim = undefined;
  });
  return env;
}

module.exports = { startSim, useSimulator };
