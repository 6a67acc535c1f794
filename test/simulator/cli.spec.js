"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { api, control, deviceInfo, inboxOf, startSim } = require("../support/simulator");

const CLI = path.join(__dirname, "..", "..", "dist", "simulator", "cli.js");

/** Runs the cli; resolves with its output once it exits, or kills it after timeoutMs. */
function run(args, { onLine, timeoutMs = 5000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cli did not exit in ${timeoutMs} ms: ${stdout} ${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (onLine && stdout.includes("\n")) {
        const handler = onLine;
        onLine = undefined;
        handler(stdout.split("\n")[0], child);
      }
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe("edgewire-sim command", function () {
  this.timeout(10000);

  it("starts, prints where it listens, serves the API and stops on SIGTERM", async function () {
    let checked;
    const result = await run(["--port", "0", "--command-delay", "1"], {
      onLine: (line, child) => {
        checked = (async () => {
          const match =
            /^edgewire simulator listening on (http:\/\/127\.0\.0\.1:(\d+)) \(company demo, token demo-token-0123456789abcdef\)$/.exec(
              line,
            );
          assert.ok(match, line);
          assert.notEqual(match[2], "0");
          const res = await fetch(`${match[1]}/v5.0/demo/device/lcd-board`, {
            headers: { "x-auth-token": "demo-token-0123456789abcdef" },
          });
          assert.equal(res.status, 200);
        })().finally(() => child.kill("SIGTERM"));
      },
    });
    await checked;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
  });

  it("adds --devices units, starts --offline ones offline and makes --faulty ones fault, also after a reset", async function () {
    let checked;
    const result = await run(
      // Both spellings of an option: "--flag value" and "--flag=value".
      [
        "--port=0",
        "--command-delay=1",
        "--devices",
        "3",
        "--offline",
        "unit-002",
        "--faulty=unit-003,pump-3",
      ],
      {
        onLine: (line, child) => {
          checked = (async () => {
            const url = /listening on (http:\/\/[\d.:]+)/.exec(line)[1];
            const sim = {
              url,
              company: "demo",
              user: "demo-user",
              token: "demo-token-0123456789abcdef",
            };
            const send = (device) =>
              api(sim, "POST", "/event", {
                body: { path: `/demo/devices/${device}/:command`, elems: { "/lcd/txt1": "x" } },
              });
            const listed = await api(sim, "GET", "/device?only=name");
            assert.deepEqual(
              listed.json.body.map((d) => d.name).filter((n) => n.startsWith("unit-")),
              ["unit-001", "unit-002", "unit-003"],
            );
            // A reset goes back to the seed, which the options are part of.
            assert.equal((await control(sim, "POST", "/reset")).status, 200);
            for (const device of ["unit-001", "unit-002", "unit-003"]) await send(device);
            const complete = await inboxOf(sim, "unit-001", 2);
            assert.equal(complete[1].elems.cmd.status, "COMMAND_COMPLETE");
            const fault = await inboxOf(sim, "unit-003", 2);
            assert.deepEqual(fault[1].elems.cmd.status, "COMMAND_FAULT");
            assert.equal(fault[1].elems.cmd.reason, "simulated device fault");
            const offline = await deviceInfo(sim, "unit-002");
            assert.equal(offline.online, false);
            assert.equal(offline.pendingCommands, 1);
            assert.equal((await deviceInfo(sim, "pump-3")).fault, "simulated device fault");
            assert.equal((await deviceInfo(sim, "unit-001")).fault, undefined);
          })().finally(() => child.kill("SIGTERM"));
        },
      },
    );
    await checked;
    assert.equal(result.code, 0, result.stderr);
  });

  it("starts example 07's fleet with --demo-fleet, the one npm start runs", async function () {
    let checked;
    const result = await run(["--port", "0", "--demo-fleet"], {
      onLine: (line, child) => {
        checked = (async () => {
          const url = /listening on (http:\/\/[\d.:]+)/.exec(line)[1];
          const sim = { url };
          const units = await Promise.all(
            ["unit-001", "unit-004", "unit-009", "unit-012"].map((d) => deviceInfo(sim, d)),
          );
          assert.deepEqual(
            units.map((u) => [u.online, u.fault ?? null]),
            [
              [true, null],
              [true, "simulated device fault"],
              [false, null],
              [true, null],
            ],
          );
          assert.equal((await control(sim, "GET", "/devices/unit-013")).status, 404);
        })().finally(() => child.kill("SIGTERM"));
      },
    });
    await checked;
    assert.equal(result.code, 0, result.stderr);
    const valued = await run(["--demo-fleet=yes"]);
    assert.equal(valued.code, 2);
    assert.match(valued.stderr, /--demo-fleet takes no value/);
  });

  it("serves example 05's telemetry and 07's fleet with --demo, and says --demo when started without", async function () {
    let checked;
    const result = await run(["--port", "0", "--demo"], {
      timeoutMs: 10000,
      onLine: (line, child) => {
        checked = (async () => {
          const url = /listening on (http:\/\/[\d.:]+)/.exec(line)[1];
          const sim = { url };
          assert.equal((await deviceInfo(sim, "unit-004")).fault, "simulated device fault");
          assert.equal((await deviceInfo(sim, "unit-009")).online, false);
          const telemetry = async () =>
            (await control(sim, "GET", "/streams?path=/demo/telemetry")).json.count;
          const seeded = await telemetry();
          // sensor-hub reports every 3 s: one more reading within 4.5 s.
          const deadline = Date.now() + 4500;
          while ((await telemetry()) === seeded && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 200));
          assert.ok((await telemetry()) > seeded, "no telemetry reading");
        })().finally(() => child.kill("SIGTERM"));
      },
    });
    await checked;
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /need --demo/);
    const plain = await run(["--port", "0"], { onLine: (_line, child) => child.kill("SIGTERM") });
    assert.match(plain.stdout, /Examples 05 \(telemetry\) and 07 \(fleet\) need --demo\./);
    const valued = await run(["--demo=yes"]);
    assert.equal(valued.code, 2);
    assert.match(valued.stderr, /--demo takes no value/);
  });

  it("names the device --offline or --faulty does not know, and refuses a fleet too large", async function () {
    const unknown = await run(["--port", "0", "--devices", "2", "--offline", "unit-003"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^edgewire-sim: no device named unit-003\n$/);
    const large = await run(["--port", "0", "--devices", "10001"]);
    assert.equal(large.code, 2);
    assert.match(large.stderr, /--devices must be an integer from 0 to 10000/);
    const empty = await run(["--faulty", "unit-001,"]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /--faulty needs device names/);
  });

  it("stops on SIGINT", async function () {
    const result = await run(["--port=0"], {
      onLine: (_line, child) => child.kill("SIGINT"),
    });
    assert.equal(result.code, 0, JSON.stringify(result));
  });

  it("prints a one-line error and exits 1 when the port is busy", async function () {
    const sim = await startSim();
    try {
      const result = await run(["--port", String(sim.port)]);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "");
      assert.equal(result.stderr.trim().split("\n").length, 1);
      assert.match(result.stderr, new RegExp(`port ${sim.port} .*already in use`));
    } finally {
      await sim.close();
    }
  });

  it("exits 2 with usage for an unknown option", async function () {
    const result = await run(["--bogus"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown option: --bogus/);
  });

  it("exits 1 with a message when the seed file is missing", async function () {
    const result = await run(["--port", "0", "--seed", "/nonexistent/seed.json"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /nonexistent/);
  });
});
