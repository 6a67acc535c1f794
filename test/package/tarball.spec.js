// The package as an integrator gets it: `npm pack`, installed with npm into a fresh Node-RED user
// directory (as the palette manager does), then a real Node-RED asked for what the editor loads.
// This is the only proof of the loader rule: every icon, catalog and help text must be served
// from where the build put it, and the examples must be listed under Import > Examples.
"use strict";
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { startNodeRed, ROOT } = require("../support/node-red-process");

const PKG = require("../../package.json");
const TYPES = Object.keys(PKG["node-red"].nodes);
const LANGS = ["en-US", "de", "ja"];
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

function npm(args, cwd) {
  return execFileSync(NPM, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120000,
  });
}

/** The first paragraph of a help text, without tags: what the palette shows as a tooltip. */
function firstParagraph(html) {
  return /<p>([\s\S]*?)<\/p>/
    .exec(html)[1]
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

describe("the packed package in a fresh Node-RED", function () {
  this.timeout(180000);
  let dir;
  let tarball;
  let red;

  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-pack-"));
    // dist/ is fresh: `npm test` built it. --ignore-scripts keeps prepare from rebuilding it
    // under the specs that are using it.
    const [packed] = JSON.parse(
      npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT),
    );
    tarball = path.join(dir, packed.filename);
    const userDir = path.join(dir, "user");
    fs.mkdirSync(userDir);
    fs.writeFileSync(
      path.join(userDir, "package.json"),
      JSON.stringify({ name: "node-red-project", private: true }),
    );
    // The dependencies come from npm's cache when it has them, from the registry otherwise.
    npm(["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], userDir);
    red = await startNodeRed({ userDir });
  });

  after(async function () {
    await red?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("should pack the built nodes, their editor files and the examples, and no sources or tests", function () {
    const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).split("\n");
    for (const type of TYPES) {
      const dirOf = `package/${path.dirname(PKG["node-red"].nodes[type])}`;
      for (const f of [
        `${type}.js`,
        `${type}.html`,
        `icons/${type}.svg`,
        ...LANGS.flatMap((l) => [`locales/${l}/${type}.json`, `locales/${l}/${type}.html`]),
      ])
        assert.ok(files.includes(`${dirOf}/${f}`), `the tarball lacks ${dirOf}/${f}`);
    }
    assert.ok(
      files.some((f) => /^package\/examples\/.+\.json$/.test(f)),
      "no examples",
    );
    assert.deepEqual(
      files.filter((f) => f.endsWith("seed.json")),
      ["package/simulator/seed.json"],
      "the simulator's seed is shipped once",
    );
    for (const f of ["index.js", "index.d.ts", "store.d.ts"])
      assert.ok(files.includes(`package/dist/simulator/${f}`), `the tarball lacks ${f}`);
    assert.ok(files.includes("package/resources/edge-editor.js"), "no shared editor script");
    assert.ok(files.includes("package/resources/edge-sidebar.js"), "no edge devices sidebar");
    const unwanted = files.filter((f) => /\.ts$|^package\/(test|bench|nodes|scripts)\//.test(f));
    assert.deepEqual(
      unwanted.filter((f) => !f.endsWith(".d.ts")),
      [],
    );
  });

  it("should export the simulator, with its types, and nothing as the package's main", async function () {
    const installed = path.join(dir, "user");
    const run = (code) =>
      execFileSync(process.execPath, ["-e", code], { cwd: installed, encoding: "utf8" });
    const probe = `
      const sim = require("${PKG.name}/simulator");
      sim.start({ port: 0, quiet: true }).then(async (s) => {
        const res = await fetch(s.url + "/v5.0/" + s.company + "/device/lcd-board", {
          headers: { "x-auth-token": s.token },
        });
        console.log(typeof sim.start, res.status);
        await s.close();
      });`;
    assert.equal(run(probe).trim(), "function 200");
    assert.throws(
      () =>
        execFileSync(process.execPath, ["-e", `require("${PKG.name}")`], {
          cwd: installed,
          stdio: "pipe",
        }),
      /ERR_PACKAGE_PATH_NOT_EXPORTED/,
    );
    // A TypeScript user gets the declarations through the export map, under strict checking.
    fs.writeFileSync(
      path.join(installed, "use-sim.ts"),
      `import { start } from "${PKG.name}/simulator";\n` +
        `import type { Simulator, SimulatorOptions } from "${PKG.name}/simulator";\n` +
        `const options: SimulatorOptions = { port: 0, commandDelayMs: 5 };\n` +
        `export const running: Promise<Simulator> = start(options);\n` +
        `// @ts-expect-error: a port is a number\n` +
        `void start({ port: "8686" });\n`,
    );
    execFileSync(
      process.execPath,
      [
        require.resolve("typescript/bin/tsc", { paths: [ROOT] }),
        "--noEmit",
        "--strict",
        "--module",
        "node16",
        "--moduleResolution",
        "node16",
        "--typeRoots",
        path.join(ROOT, "node_modules", "@types"),
        "--types",
        "node",
        "use-sim.ts",
      ],
      { cwd: installed, encoding: "utf8", stdio: "pipe" },
    );
  });

  it("should list every node type of package.json under the package in /nodes, enabled", async function () {
    const sets = await fetch(`${red.url}/nodes`, { headers: { accept: "application/json" } }).then(
      (r) => r.json(),
    );
    const ours = sets.filter((s) => s.module === PKG.name);
    assert.deepEqual(ours.flatMap((s) => s.types).sort(), [...TYPES].sort());
    for (const set of ours) {
      assert.equal(set.enabled, true, set.id);
      assert.equal(set.version, PKG.version, set.id);
      assert.equal(set.err, undefined, `${set.id}: ${set.err}`);
    }
    assert.doesNotMatch(red.output(), /\[(warn|error)\].*edge/i);
  });

  it("should serve each node's icon", async function () {
    for (const type of TYPES) {
      const res = await fetch(`${red.url}/icons/${PKG.name}/${type}.svg`);
      assert.equal(res.status, 200, type);
      assert.match(res.headers.get("content-type"), /image\/svg\+xml/, type);
      assert.match(await res.text(), /<svg[\s>]/, type);
    }
  });

  it("should serve each node's catalog in English, German and Japanese", async function () {
    for (const type of TYPES)
      for (const lang of LANGS) {
        const res = await fetch(`${red.url}/locales/${PKG.name}/${type}?lng=${lang}`);
        assert.equal(res.status, 200, `${type} ${lang}`);
        const served = await res.json();
        const shipped = JSON.parse(
          fs.readFileSync(path.join(ROOT, "locales", lang, `${type}.json`), "utf8"),
        );
        assert.deepEqual(served, shipped, `${type} ${lang}`);
      }
  });

  it("should serve each node's form and help text, in English, German and Japanese", async function () {
    for (const lang of LANGS) {
      const html = await fetch(`${red.url}/nodes?lng=${lang}`, {
        headers: { accept: "text/html", "accept-language": lang },
      }).then((r) => r.text());
      for (const type of TYPES) {
        assert.match(html, new RegExp(`data-template-name="${type}"`), `${type} form`);
        const help = fs.readFileSync(path.join(ROOT, "locales", lang, `${type}.html`), "utf8");
        const served = new RegExp(`data-help-name="${type}">\\s*<p>([\\s\\S]*?)</p>`).exec(html);
        assert.ok(served, `no ${lang} help for ${type}`);
        assert.equal(
          served[1]
            .replace(/<[^>]+>/g, "")
            .replace(/\s+/g, " ")
            .trim(),
          firstParagraph(help),
          `${type} ${lang} help`,
        );
      }
    }
  });

  it("should serve the shared editor script and send every node's number ranges to the editor", async function () {
    const script = await fetch(`${red.url}/resources/${PKG.name}/edge-editor.js`);
    assert.equal(script.status, 200);
    assert.match(await script.text(), /window\.EdgeEditor = \{/);
    const sidebar = await fetch(`${red.url}/resources/${PKG.name}/edge-sidebar.js`);
    assert.equal(sidebar.status, 200);
    assert.match(await sidebar.text(), /RED\.sidebar\.addTab/);
    const settings = await fetch(`${red.url}/settings`).then((r) => r.json());
    // The runtime's own numbers, not copies typed into the editor.
    assert.deepEqual(settings.edgeListEventsRanges.limit, { min: 1, max: 10000, default: 20 });
    assert.equal(settings.edgeAccountRanges.timeout.default, 10000);
    assert.deepEqual(settings.edgeAwaitCommandRanges.interval, {
      min: 50,
      max: 3600000,
      default: 1000,
    });
    assert.deepEqual(settings.edgeSendCommandRanges.ttl, { min: 0, max: 2147483647 });
  });

  it("should list every example under Import > Examples and serve it as a flow", async function () {
    const base = `${red.url}/library/examples/flows/${PKG.name}`;
    const listed = await fetch(base).then((r) => r.json());
    const files = fs
      .readdirSync(path.join(ROOT, "examples"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""))
      .sort();
    assert.deepEqual(listed.map((e) => e.fn).sort(), files);
    for (const fn of files) {
      const flow = await fetch(`${base}/${fn}`).then((r) => r.json());
      assert.ok(Array.isArray(flow) && flow.some((n) => n.type === "tab"), fn);
    }
  });
});
