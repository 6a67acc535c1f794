// The simulator for the specs: `const env = useSimulator()` in a describe starts a fresh simulator
// on a free loopback port before each test (env.sim) and closes it after, with any API client made
// through env.client() for it; api() and control() call its API and its control interface, and
// waitFor() polls with a deadline.
"use strict";
const { start } = require("../../dist/simulator");
const { EdgeClient } = require("../../dist/nodes/lib/api/client");
const { Agent, fetch: undiciFetch } = require("undici");

/** A quiet simulator on a free port, with short command delays unless told otherwise. */
function startSim(options = {}) {
  return start({ port: 0, quiet: true, commandDelayMs: 5, ...options });
}

async function readResponse(res) {
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * Calls /v5.0/<company><path> with the seed's user and token; a header given as null is left out.
 * `raw` sends a body as is, `body` sends it as JSON with the spec's text/plain content type.
 */
async function api(sim, method, path, { body, raw, headers = {}, company = sim.company } = {}) {
  const all = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    "content-type": "text/plain; charset=utf-8",
    ...headers,
  };
  for (const key of Object.keys(all)) if (all[key] === null) delete all[key];
  const res = await fetch(`${sim.url}/v5.0/${company}${path}`, {
    method,
    headers: all,
    body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body),
  });
  return readResponse(res);
}

/**
 * The control interface's connections are not kept alive. A kept one was reset under load: the
 * simulator runs in the spec's process, and when a long synchronous step (10,000 messages handed
 * to a node) outlasted its keep-alive timeout, the next call wrote to the connection in the same
 * turn as the server closed it ("fetch failed: read ECONNRESET", issue 36).
 */
const controlAgent = new Agent({ pipelining: 0 });

async function control(sim, method, path, body) {
  const res = await undiciFetch(`${sim.url}/_sim${path}`, {
    dispatcher: controlAgent,
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return readResponse(res);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls fn until it returns a truthy value; fails after timeoutMs. */
async function waitFor(fn, { timeoutMs = 3000, intervalMs = 10, what = "condition" } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** The events of a device's inbox, oldest first. */
async function inbox(sim, device) {
  const path = `/${sim.company}/devices/${device}/:inbox`;
  const res = await api(sim, "GET", `/event?path=${encodeURIComponent(path)}&limit=1000`);
  if (res.status !== 200) throw new Error(`inbox: ${res.status} ${res.text}`);
  return res.json.body.reverse();
}

/** Waits until the inbox of device holds n events and returns them, oldest first. */
function inboxOf(sim, device, n, timeoutMs = 3000) {
  return waitFor(
    async () => {
      const events = await inbox(sim, device);
      return events.length >= n ? events : undefined;
    },
    { timeoutMs, what: `${n} events in the inbox of ${device}` },
  );
}

async function deviceInfo(sim, name) {
  const res = await control(sim, "GET", `/devices/${name}`);
  if (res.status !== 200) throw new Error(`device ${name}: ${res.status} ${res.text}`);
  return res.json;
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

module.exports = {
  startSim,
  useSimulator,
  api,
  control,
  waitFor,
  sleep,
  inbox,
  inboxOf,
  deviceInfo,
};
