// One HTTP attempt (transport.ts) against the simulator: the caller's abort signal reaches every
// request in flight through a single listener, however many share it; and what of undici an
// account loads.
"use strict";
const assert = require("node:assert/strict");
const { execFile } = require("node:child_process");
const { promisify } = require("node:util");
const { getEventListeners } = require("node:events");
const path = require("node:path");
const { createPool, send } = require("../../dist/nodes/lib/api/transport");
const { startSim, control, waitFor } = require("../support/simulator");

describe("transport", function () {
  let sim;
  let pool;

  beforeEach(async function () {
    sim = await startSim();
    pool = createPool({ origin: sim.url, connections: 8, maxResponseBytes: 1 << 20 });
  });

  afterEach(async function () {
    await pool.destroy();
    await sim.close();
  });

  it("should abort every request in flight with one listener on their shared signal", async function () {
    // Answers held back long enough that all eight are in flight when the signal aborts.
    const res = await control(sim, "POST", "/faults", {
      path: "/device",
      delayMs: 60000,
      count: 8,
    });
    assert.equal(res.status, 201);
    const controller = new AbortController();
    const headers = { "x-auth-token": sim.token, "x-auth-user": sim.user };
    const attempts = Array.from({ length: 8 }, () =>
      send(pool, sim.url, {
        method: "GET",
        path: `/v5.0/${sim.company}/device/lcd-board`,
        headers,
        timeoutMs: 60000,
        signal: controller.signal,
      }),
    );
    assert.equal(getEventListeners(controller.signal, "abort").length, 1);
    // Written, not only dispatched: an attempt aborted before undici writes it was never sent.
    await waitFor(() => pool.stats.running === 8, { timeoutMs: 10000, what: "8 requests sent" });
    controller.abort();
    for (const a of attempts) {
      await assert.rejects(a, (err) => err.code === "aborted" && err.mayHaveBeenSent === true);
    }
  });

  it("should load undici's pool and request() for an account, not its whole index", async function () {
    // A fresh process: this one may have loaded anything.
    const client = path.join(__dirname, "..", "..", "dist", "nodes", "lib", "api", "client.js");
    const script = `
      const { EdgeClient } = require(${JSON.stringify(client)});
      const c = new EdgeClient({ baseUrl: ${JSON.stringify(sim.url)}, company: "demo", token: ${JSON.stringify(sim.token)} });
      c.listEventsByPath("/demo/telemetry", { limit: 1 }).then(
        (events) => {
          const loaded = Object.keys(require.cache).filter((f) => f.includes("undici"));
          process.stdout.write(JSON.stringify({ events: events.length, loaded }));
          return c.close();
        },
        (err) => { process.stdout.write(JSON.stringify({ error: String(err) })); return c.close(); },
      );`;
    // Not execFileSync: the simulator answering the child runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], {
      encoding: "utf8",
      timeout: 60000,
    });
    const out = JSON.parse(stdout);
    assert.equal(out.error, undefined);
    assert.equal(out.events, 1);
    assert.ok(
      out.loaded.some((f) => f.endsWith(path.join("undici", "lib", "dispatcher", "pool.js"))),
    );
    assert.ok(
      !out.loaded.some((f) => f.endsWith(path.join("undici", "index.js"))),
      out.loaded.join("\n"),
    );
  });

  it("should leave undici unloaded while an account starts, and load it in the next turn", async function () {
    const client = path.join(__dirname, "..", "..", "dist", "nodes", "lib", "api", "client.js");
    const script = `
      const { EdgeClient } = require(${JSON.stringify(client)});
      const undici = () => Object.keys(require.cache).some((f) => f.includes("undici"));
      const c = new EdgeClient({ baseUrl: "http://127.0.0.1:9", company: "demo", token: "t" });
      const during = undici();
      setImmediate(() => {
        process.stdout.write(JSON.stringify({ during, after: undici() }));
        void c.close();
      });`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], {
      encoding: "utf8",
      timeout: 60000,
    });
    assert.deepEqual(JSON.parse(stdout), { during: false, after: true });
  });
});
