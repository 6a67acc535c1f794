// One HTTP attempt (transport.ts) against the simulator: the caller's abort signal reaches every
// request in flight through a single listener, however many share it.
"use strict";
const assert = require("node:assert/strict");
const { getEventListeners } = require("node:events");
const { createPool, send } = require("../dist/nodes/lib/api/transport");
const { startSim, control } = require("./simulator-helpers");

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
    const res = await control(sim, "POST", "/faults", { path: "/device", delayMs: 60000 });
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
    controller.abort();
    for (const a of attempts) {
      await assert.rejects(a, (err) => err.code === "aborted" && err.mayHaveBeenSent === true);
    }
  });
});
