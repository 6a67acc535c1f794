// Starts the simulator child (sim-child.js) and talks to its /_sim control interface.
"use strict";
const { fork } = require("node:child_process");
const path = require("node:path");
const { request } = require("undici");

/**
 * Forks the simulator; resolves with {url, company, user, token, control(), stop()}. `devices`
 * adds that many devices unit-001 ... (the simulator's --devices).
 */
function startSimulator({ commandDelayMs = 20, timeoutMs = 15000, devices = 0 } = {}) {
  const child = fork(path.join(__dirname, "sim-child.js"), [], {
    env: {
      ...process.env,
      BENCH_SIM_DELAY: String(commandDelayMs),
      BENCH_SIM_DEVICES: String(devices),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // BENCH_SIM_PROFILE=<dir> profiles the simulator too (bench/profile.js --target=sim).
    execArgv: process.env.BENCH_SIM_PROFILE
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SIM_PROFILE}`]
      : [],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the simulator did not start"));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited with ${code}`));
    });
    child.once("message", (info) => {
      clearTimeout(timer);
      child.removeAllListeners("exit");
      const control = async (method, route, body) => {
        const res = await request(`${info.url}/_sim${route}`, {
          method,
          headers: { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const value = await res.body.json();
        if (res.statusCode >= 300) throw new Error(`${method} /_sim${route}: ${value.error}`);
        return value;
      };
      const stop = () =>
        new Promise((done) => {
          if (child.exitCode !== null) return done();
          const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
          child.once("exit", () => {
            clearTimeout(kill);
            done();
          });
          child.disconnect();
        });
      resolve({ ...info, pid: child.pid, control, stop });
    });
  });
}

module.exports = { startSimulator };
