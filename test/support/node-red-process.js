// A real Node-RED in a child process, for what the test helper cannot show: adminAuth, the editor
// in a browser, the packed package loaded from a fresh user directory. Bound to 127.0.0.1 on a
// free port, telemetry and the online catalogue off.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { tempDir } = require("./temp");

const ROOT = path.resolve(__dirname, "..", "..");
const RED_JS = require.resolve("node-red/red.js", { paths: [ROOT] });

/** A fresh user directory with this package linked into its node_modules (unless told not to). */
function makeUserDir({ link = true } = {}) {
  const dir = tempDir("edgewire-nr-");
  if (link) {
    fs.mkdirSync(path.join(dir, "node_modules", "@edgewire"), { recursive: true });
    fs.symlinkSync(
      ROOT,
      path.join(dir, "node_modules", "@edgewire", "node-red-edge-device"),
      "dir",
    );
  }
  return dir;
}

function settingsSource(extra) {
  const base = {
    uiHost: "127.0.0.1",
    uiPort: 0,
    flowFile: "flows.json",
    credentialSecret: "edgewire-test-secret",
    editorTheme: { palette: { catalogues: [] }, tours: false },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    externalModules: { palette: { allowInstall: false } },
    logging: { console: { level: "info", metrics: false, audit: false } },
  };
  return `module.exports = ${JSON.stringify({ ...base, ...extra }, null, 2)};\n`;
}

/**
 * Starts Node-RED; resolves with {url, stop, output()} once it serves HTTP and has started its
 * flows. `settingsJs` may add JS (e.g. adminAuth with a bcrypt hash).
 */
async function startNodeRed({
  userDir = makeUserDir(),
  settings = {},
  flows,
  timeoutMs = 30000,
} = {}) {
  fs.writeFileSync(path.join(userDir, "settings.js"), settingsSource(settings));
  if (flows) fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flows, null, 2));
  const child = spawn(
    process.execPath,
    [RED_JS, "-u", userDir, "-s", path.join(userDir, "settings.js")],
    {
      cwd: userDir,
      env: { ...process.env, NODE_RED_ENABLE_TOURS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const url = await new Promise((resolve, reject) => {
    let found;
    const timer = setTimeout(
      () => reject(new Error(`Node-RED did not start:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      found = found ?? /Server now running at (http:\/\/[^/\s]+)\//.exec(output)?.[1];
      if (found && /Started flows|Flows file.*not found|\[info\] Started/.test(output)) {
        clearTimeout(timer);
        resolve(found.replace("0.0.0.0", "127.0.0.1"));
      }
    };
    child.stdout.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Node-RED exited with ${code}:\n${output}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGINT");
    });
  return { url, userDir, stop, output: () => output, child };
}

module.exports = { startNodeRed, makeUserDir, ROOT };
