// The demo's reporting device: with telemetryMs (the CLI's --telemetry), sensor-hub writes a
// temperature and a humidity into /demo/telemetry at that period, as read through the API; without
// it nothing is written.
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { startSim, api, waitFor, sleep } = require("../support/simulator");

const CLI = path.join(__dirname, "..", "..", "dist", "simulator", "cli.js");

async function telemetry(sim) {
  const res = await api(
    sim,
    "GET",
    `/event?path=${encodeURIComponent("/demo/telemetry")}&limit=100`,
  );
  assert.equal(res.status, 200, res.text);
  return res.json.body;
}

describe("simulator telemetry", function () {
  this.timeout(20000);
  let sim;
  afterEach(async function () {
    await sim?.close();
    sim = undefined;
  });

  it("should make sensor-hub report into /demo/telemetry at the period asked for", async function () {
    sim = await startSim({ telemetryMs: 50 });
    const seeded = (await telemetry(sim)).length;
    const events = await waitFor(
      async () => {
        const list = await telemetry(sim);
        return list.length >= seeded + 3 ? list : undefined;
      },
      { timeoutMs: 10000, what: "three readings" },
    );
    const [newest] = events;
    assert.equal(newest.elems.device, "sensor-hub");
    assert.equal(typeof newest.elems.temperature, "number");
    assert.ok(newest.elems.temperature > 18 && newest.elems.temperature < 26);
    assert.equal(typeof newest.elems.humidity, "number");
    assert.equal(newest.path, "/demo/telemetry");
    // Written by the device's identity, as a device's own upload would be.
    assert.equal(newest.creatorId, "i5f3c1a2b0000000000000002");
  });

  it("should report nothing without it", async function () {
    sim = await startSim();
    const before = (await telemetry(sim)).length;
    await sleep(300);
    assert.equal((await telemetry(sim)).length, before);
  });

  it("should take --telemetry on the command line", async function () {
    const child = spawn(process.execPath, [CLI, "--port", "0", "--telemetry", "50"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const banner = await new Promise((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          if (out.includes("\n")) resolve(out);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
      });
      const url = /listening on (\S+)/.exec(banner)[1];
      const remote = {
        url,
        company: "demo",
        user: "demo-user",
        token: "demo-token-0123456789abcdef",
      };
      const seeded = 5;
      await waitFor(async () => (await telemetry(remote)).length > seeded + 1, {
        timeoutMs: 10000,
        what: "readings from the CLI's simulator",
      });
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
