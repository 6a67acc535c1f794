// The README's Install and Try it sections, run as a user runs them: its shell blocks, word for
// word, with only the places that are the user's own replaced (the repository URL by a bare clone
// of this repository's committed HEAD, ~/.node-red by a fresh user directory, /path/to by the
// folder the clone went to, <version> by the version). A README whose commands do not work fails
// here.
"use strict";
const assert = require("node:assert/strict");
const { execFile, execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { startNodeRed, ROOT } = require("../support/node-red-process");

const PKG = require("../../package.json");
const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const REPO_URL = "https://github.com/edgewire/node-red-edge-device.git";

/** The fenced sh blocks of the README section titled `title`. */
function shellBlocks(title) {
  const section = new RegExp(`^## ${title}\\n([\\s\\S]*?)(?=^## )`, "m").exec(README)?.[1];
  assert.ok(section, `the README has no "${title}" section`);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

/** A user directory as Node-RED leaves it on its first start. */
function userDir(parent, name) {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "node-red-project", private: true, version: "0.0.1" }),
  );
  return dir;
}

/** The code a reader would copy: fenced blocks and `code spans`, not the prose around them. */
function codeIn(text) {
  return [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```|`([^`\n]+)`/gm)].map((m) => m[1] ?? m[2]);
}

/**
 * Runs a README block in bash, stopping at the first failing command. Install scripts write to
 * the temp folder (core-js leaves a file there), so the block gets `tmp` as its own.
 */
function run(script, cwd, tmp) {
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      {
        cwd,
        encoding: "utf8",
        timeout: 600000,
        maxBuffer: 64 * 1024 * 1024,
        // The registry is asked only for what npm's cache lacks; nothing is audited or nagged.
        env: {
          ...process.env,
          TMPDIR: tmp,
          npm_config_prefer_offline: "true",
          npm_config_audit: "false",
          npm_config_fund: "false",
          npm_config_update_notifier: "false",
        },
      },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`${script}\nfailed: ${err.message}\n${stdout}${stderr}`))
          : resolve(`${stdout}${stderr}`),
    );
  });
}

/** The package as installed in `dir`, with the node types Node-RED lists for it once started. */
async function installedTypes(dir) {
  const installed = path.join(dir, "node_modules", ...PKG.name.split("/"));
  assert.equal(
    JSON.parse(fs.readFileSync(path.join(installed, "package.json"))).version,
    PKG.version,
  );
  for (const rel of Object.values(PKG["node-red"].nodes))
    assert.ok(fs.existsSync(path.join(installed, rel)), `${rel} was not built`);
  const red = await startNodeRed({ userDir: dir });
  try {
    const sets = await fetch(`${red.url}/nodes`, { headers: { accept: "application/json" } }).then(
      (r) => r.json(),
    );
    return sets
      .filter((s) => s.module === PKG.name && s.enabled && !s.err)
      .flatMap((s) => s.types)
      .sort();
  } finally {
    await red.stop();
  }
}

describe("the README's install and try-it commands", function () {
  this.timeout(900000);
  let work;
  let origin;

  before(function () {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-install-"));
    // Named as the real repository is, so that `git clone` makes the folder the README cds into.
    origin = path.join(work, "origin", "node-red-edge-device.git");
    execFileSync("git", ["clone", "--quiet", "--bare", ROOT, origin], { stdio: "ignore" });
  });

  after(function () {
    // Retried: an npm that a timeout stopped leaves children that still write there a moment
    // ("ENOTEMPTY: directory not empty" once hid the failure that stopped it).
    if (work) fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
  });

  const TYPES = Object.keys(PKG["node-red"].nodes).sort();

  /** A README block with the user's own places replaced. */
  function localised(block, home) {
    return block
      .replaceAll(REPO_URL, `file://${origin}`)
      .replaceAll("~/.node-red", home)
      .replaceAll("/path/to/", `${work}/`)
      .replaceAll("<version>", PKG.version);
  }

  it("should show a tarball and a git install and no npx that could reach the registry", function () {
    const blocks = shellBlocks("Install").join("\n");
    assert.match(blocks, /^npm pack\b/m);
    assert.match(blocks, /^npm install \S+\.tgz$/m);
    assert.match(blocks, /^npm install git\+https:\/\/\S+$/m);
    assert.ok(blocks.includes(REPO_URL), "the repository URL is not package.json's");
    assert.equal(PKG.repository.url, `git+${REPO_URL}`);
    // npx runs a name it does not find installed by fetching it from the registry, where these
    // names are not ours: every npx in what users read must be `npx --no`.
    const texts = [
      README,
      ...fs
        .readdirSync(path.join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => fs.readFileSync(path.join(ROOT, "docs", f), "utf8")),
    ];
    for (const f of fs.readdirSync(path.join(ROOT, "examples")))
      texts.push(fs.readFileSync(path.join(ROOT, "examples", f), "utf8"));
    const npx = texts.flatMap(codeIn).flatMap((t) => t.match(/\bnpx\s+\S+/g) ?? []);
    assert.ok(npx.length > 0);
    assert.deepEqual(
      npx.filter((m) => m !== "npx --no"),
      [],
    );
  });

  it("should install from a packed tarball and from git, and load in Node-RED either way", async function () {
    const [tarball, git] = shellBlocks("Install");
    const tmp = path.join(work, "tmp");
    fs.mkdirSync(tmp);
    const viaTarball = userDir(work, "tarball-user");
    const said = await run(localised(tarball, viaTarball), work, tmp);
    assert.deepEqual(await installedTypes(viaTarball), TYPES);
    // npm 11 lists the package's own prepare script as an install script; the README says why.
    // Any other script, or a warning the README does not explain, fails here.
    const scripts = said
      .split("\n")
      .filter((l) => /^npm warn install-scripts +\S+@\S+ \(/.test(l))
      .map((l) => l.replace(/^npm warn install-scripts +/, ""));
    for (const line of scripts)
      assert.equal(line, `${PKG.name}@${PKG.version} (prepare: ${PKG.scripts.prepare})`);
    if (scripts.length) {
      const install = /^## Install\n([\s\S]*?)^## /m.exec(README)[1].replace(/\s+/g, " ");
      assert.ok(install.includes("not yet covered by `allowScripts`"), "the README does not say");
      assert.ok(install.includes(`\`prepare: ${PKG.scripts.prepare}\``), "the README does not say");
    }

    const viaGit = userDir(work, "git-user");
    await run(localised(git, viaGit), work, tmp);
    assert.deepEqual(await installedTypes(viaGit), TYPES);
  });

  it("should start the simulator with the Try it command, and stop it with Ctrl-C", async function () {
    const dir = path.join(work, "tarball-user");
    if (!fs.existsSync(path.join(dir, "node_modules"))) this.skip(); // the install above failed
    const [block] = shellBlocks("Try it");
    const command = block.split("\n")[0].replace(/#.*$/, "").trim();
    assert.equal(command, "npx --no -- edgewire-sim --demo");
    // Its own process group, as a terminal gives a command: Ctrl-C signals the whole group (npx
    // and the simulator it started), and so does the clean-up, so nothing outlives the test.
    const child = spawn("bash", ["-c", `exec ${command} --port 0`], {
      cwd: dir,
      env: { ...process.env, npm_config_update_notifier: "false" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const group = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    try {
      const url = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no simulator:\n${out}`)), 60000);
        child.stdout.on("data", () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`the simulator exited with ${code}:\n${out}`));
        });
      });
      const res = await fetch(`${url}/v5.0/demo/device/lcd-board`, {
        headers: { "x-auth-user": "demo-user", "x-auth-token": "demo-token-0123456789abcdef" },
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).body.name, "lcd-board");

      group("SIGINT");
      await exited;
      // npx may end before the simulator it started has closed its port: wait, bounded.
      const deadline = Date.now() + 15000;
      let gone = false;
      while (!gone && Date.now() < deadline) {
        gone = await fetch(url).then(
          () => false,
          () => true,
        );
        if (!gone) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(gone, "the simulator still answers 15 s after Ctrl-C");
    } finally {
      group("SIGKILL");
    }
  });
});
