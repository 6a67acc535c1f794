// The simulator in its own process, so that its CPU never competes with the runtime being
// measured on the same event loop. Prints its URL, company and credentials as one JSON line on
// IPC and stays up until the parent disconnects.
"use strict";
const path = require("node:path");
// The simulator of the build under test (bench/compare.js points at copies, so that building this
// tree meanwhile cannot disturb a run).
const root = process.env.BENCH_PACKAGE_ROOT || path.join(__dirname, "..", "..");
const { start } = require(path.resolve(root, "dist", "simulator"));

const delay = Number(process.env.BENCH_SIM_DELAY ?? 20);
// A build older than the --devices option ignores it, and a fleet bench then fails on its names.
const devices = Number(process.env.BENCH_SIM_DEVICES ?? 0);

start({ port: 0, quiet: true, commandDelayMs: delay, devices }).then(
  (sim) => {
    process.send({ url: sim.url, company: sim.company, user: sim.user, token: sim.token });
    const stop = () => void sim.close().then(() => process.exit(0));
    process.on("disconnect", stop);
    process.on("SIGTERM", stop);
  },
  (err) => {
    process.stderr.write(`simulator failed: ${err.stack}\n`);
    process.exit(1);
  },
);
