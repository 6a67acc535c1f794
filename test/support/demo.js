// `npm start` (scripts/start.js) in a child process, on free ports and in a fresh user directory,
// for the specs that check what a newcomer sees: the banner, the deployed examples, the editor.
"use strict";
const { spawn } = require("node:child_process");
const net = require("node:net");
const path = require("node:path");
const { tempDir } = require("./temp");

const ROOT = path.resolve(__dirname, "..", "..");
const START = path.join(ROOT, "scripts", "start.js");

/** A port nothing listens on right now (the OS picks it; a race with others is unlikely). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs start.js with `args`; resolves once the child exits or `until(output)` holds. */
function runStart(args, { env = {}, until, timeoutMs = 60000 } = {}) {
  const child = spawn(process.execPath, [START, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run = { child, stdout: "", stderr: "", code: undefined };
  run.exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      run.code = code;
      run.signal = signal;
      resolve(run);
    }),
  );
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`npm start did not get ready in ${timeoutMs} ms:\n${run.stdout}\n${run.stderr}`),
      );
    }, timeoutMs);
    const check = () => {
      if (until && until(run.stdout)) {
        clearTimeout(timer);
        resolve(run);
      }
    };
    child.stdout.on("data", (d) => {
      run.stdout += d;
      check();
    });
    child.stderr.on("data", (d) => {
      run.stderr += d;
    });
    void run.exited.then(() => {
      clearTimeout(timer);
      if (until && !until(run.stdout))
        reject(new Error(`npm start exited with ${run.code}:\n${run.stdout}\n${run.stderr}`));
      else resolve(run);
    });
  });
  return ready;
}

/** Stops a running start.js like Ctrl-C does; resolves with its exit. */
async function interrupt(run, timeoutMs = 20000) {
  if (run.code !== undefined) return run;
  const timer = setTimeout(() => run.child.kill("SIGKILL"), timeoutMs);
  run.child.kill("SIGINT");
  await run.exited;
  clearTimeout(timer);
  return run;
}

/**
 * `npm start` on free ports with a fresh user directory (or the one given); resolves when it has
 * printed its banner, with the editor and simulator URLs.
 */
async function startDemo({ userDir, port, simPort, extraArgs = [] } = {}) {
  port ??= await freePort();
  simPort ??= await freePort();
  const dir = userDir ?? tempDir("edgewire-demo-");
  const run = await runStart(
    ["--port", String(port), "--sim-port", String(simPort), "--user-dir", dir, ...extraArgs],
    { until: (out) => out.includes("Press Ctrl-C to stop both.") },
  );
  return Object.assign(run, {
    userDir: dir,
    editorUrl: `http://127.0.0.1:${port}/`,
    simUrl: `http://127.0.0.1:${simPort}`,
    port,
    simPort,
    stop: () => interrupt(run),
  });
}

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

module.exports = { freePort, runStart, interrupt, startDemo, listening, ROOT };
