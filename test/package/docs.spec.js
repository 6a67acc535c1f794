// The README and docs/ as a reader follows them: every relative link and image opens a file of
// the repository and every #anchor a heading in it, the README stays short enough to read, and
// its list of error codes is the list the nodes can raise.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { tempDir } = require("../support/temp.js");

const ROOT = path.join(__dirname, "..", "..");
const README = path.join(ROOT, "README.md");

function markdownFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(full);
    return e.name.endsWith(".md") ? [full] : [];
  });
}

/** The text without fenced code blocks, where a # is not a heading. */
function unfenced(text) {
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, "");
}

/** The text without code blocks and code spans, where brackets are not links. */
function prose(text) {
  return unfenced(text).replace(/`[^`\n]*`/g, "");
}

/** Link and image targets: `[text](target)` and `![alt](target "title")`. */
function links(text) {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1],
  );
}

/** The anchors GitHub gives the headings of a file: lower case, punctuation dropped, - for spaces. */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const m of unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** What is wrong with one relative link of `file`, or null when it resolves. */
function brokenLink(file, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto: are not ours to check
  const [rel, hash] = target.split("#");
  const dest = rel ? path.resolve(path.dirname(file), decodeURIComponent(rel)) : file;
  if (!dest.startsWith(ROOT + path.sep)) return "points outside the repository";
  if (!fs.existsSync(dest)) return "no such file";
  if (hash !== undefined) {
    if (!dest.endsWith(".md")) return "an anchor into a file that is not markdown";
    if (!anchors(fs.readFileSync(dest, "utf8")).has(hash)) return `no heading #${hash}`;
  }
  return null;
}

/** The repository's text files (tracked, or new and not ignored), but this checker itself. */
function repositoryTexts() {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => f && !/(^|\/)package-lock\.json$|\.(png|svg|tgz)$/.test(f))
    .filter((f) => f !== path.relative(ROOT, __filename).split(path.sep).join("/"))
    .filter((f) => fs.existsSync(path.join(ROOT, f)));
}

function ignoredByGit(rel) {
  try {
    execFileSync("git", ["check-ignore", "--quiet", "--no-index", rel], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

describe("the README and the docs", function () {
  const files = [README, ...markdownFiles(path.join(ROOT, "docs"))];

  it("should link only to files and headings that exist in the repository", function () {
    const broken = [];
    let count = 0;
    for (const file of files) {
      for (const target of links(fs.readFileSync(file, "utf8"))) {
        count += 1;
        const why = brokenLink(file, target);
        if (why) broken.push(`${path.relative(ROOT, file)}: ${target}: ${why}`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(count > 10, `only ${count} links found: the link parser is broken`);
  });

  it("should link every file of docs/ from the README", function () {
    const linked = new Set(
      links(fs.readFileSync(README, "utf8")).map((t) => path.resolve(ROOT, t.split("#")[0])),
    );
    const orphans = markdownFiles(path.join(ROOT, "docs"))
      .filter((f) => !linked.has(f))
      .map((f) => path.relative(ROOT, f));
    assert.deepEqual(orphans, []);
  });

  it("should keep the README under 12 KB, a page for users", function () {
    const size = fs.statSync(README).size;
    assert.ok(size < 12 * 1024, `README.md is ${size} bytes: move engineering detail to docs/`);
  });

  it("should list every error code a node can raise, and no other", function () {
    const text = fs.readFileSync(README, "utf8");
    const section = /^## Errors\n([\s\S]*?)^## /m.exec(text)?.[1];
    assert.ok(section, "no Errors section");
    const listed = new Set(
      [...section.matchAll(/^\| (`[^|]+`) \|/gm)].flatMap((m) =>
        [...m[1].matchAll(/`([a-z-]+)`/g)].map((c) => c[1]),
      ),
    );
    for (const lang of ["en-US", "de", "ja"]) {
      const catalog = JSON.parse(
        fs.readFileSync(path.join(ROOT, "locales", lang, "edge-account.json"), "utf8"),
      );
      // A key with an i18next context (`refused_probe`, `tls_http`) is another sentence of its code.
      const codes = Object.keys(catalog.edge.errors).filter((k) => !k.includes("_"));
      assert.deepEqual([...listed].sort(), codes.sort(), lang);
    }
  });

  it("should name every field of the fleet node's report in docs/nodes.md", function () {
    const { reportOf } = require("../../dist/nodes/lib/fleet/report.js");
    // A job's record as the node keeps it, with a device that has every field a report can give.
    const device = {
      device: "unit-001",
      state: "ended",
      outcome: "failed",
      commandId: "c1",
      elapsed: 12,
      error: "send-uncertain",
      message: "a sentence",
      mayHaveBeenSent: true,
    };
    const record = { v: 1, job: "j", startedAt: 1, settings: {}, devices: [device], msg: "" };
    const report = reportOf(record, { restored: false, dryRun: false, endedAt: 2 });
    const text = fs.readFileSync(path.join(ROOT, "docs", "nodes.md"), "utf8");
    const section = /^## edge-fleet-command\n([\s\S]*?)^Output 2/m.exec(text)?.[1];
    assert.ok(section, "no report in the edge-fleet-command section");
    const named = new Set([...section.matchAll(/`(\w+)`/g)].map((m) => m[1]));
    const fields = [...Object.keys(report), ...Object.keys(report.devices[0])];
    assert.deepEqual(
      fields.filter((f) => !named.has(f)),
      [],
    );
  });

  it("should name no file that is not in the repository, in any comment or text", function () {
    // A path into one of the repository's folders must exist (or be a build or run output that
    // git ignores); the changelog tells history and may name what is gone. Nothing may point at
    // the folders beside a clone, which a user's clone does not have.
    const FOLDER_PATH =
      /(?<![\w./@-])((?:\.ci|bench|docs|examples|icons|locales|nodes|scripts|simulator|test)\/[\w./-]*\w)/g;
    const OUTSIDE = /\bapi-spec\.md\b|\bapi-facts\.md\b|\.\.\/shared\/|\/work\//g;
    const problems = [];
    for (const rel of repositoryTexts()) {
      const text = fs.readFileSync(path.join(ROOT, rel), "utf8");
      for (const m of text.matchAll(OUTSIDE))
        problems.push(`${rel}: ${m[0]} is not in the repository`);
      if (rel === "CHANGELOG.md") continue;
      for (const m of text.matchAll(FOLDER_PATH))
        if (!fs.existsSync(path.join(ROOT, m[1])) && !ignoredByGit(m[1]))
          problems.push(`${rel}: ${m[1]} does not exist`);
    }
    assert.deepEqual(problems, []);
  });

  it("should pass the Markdown linter that npm run lint runs, which finds an unclosed fence", function () {
    this.timeout(60000);
    const cli = path.join(ROOT, "node_modules", "markdownlint-cli2", "markdownlint-cli2-bin.mjs");
    const lint = (args) => {
      try {
        execFileSync(process.execPath, [cli, ...args], {
          cwd: ROOT,
          encoding: "utf8",
          stdio: "pipe",
        });
        return "";
      } catch (err) {
        return `${err.stdout}${err.stderr}`;
      }
    };
    assert.equal(lint([]), "");
    // The mistake of docs/development.md before issue 23: text after a closing fence.
    const dir = tempDir("edge-mdlint-");
    const broken = path.join(dir, "broken.md");
    fs.writeFileSync(broken, "# T\n\n```sh\nls\n``` Without it, more text\n\n## Next\n\nProse.\n");
    const config = path.join(ROOT, ".markdownlint-cli2.jsonc");
    assert.match(
      lint(["--config", config, "--no-globs", broken]),
      /broken\.md:5 error fence-closed/,
    );
  });

  it("should say where the edge devices tab is, in the README and the help of each node it shows", function () {
    // Node-RED lists every sidebar tab under menu > View by the name the tab gives it (its
    // catalog's sidebar.title), in Node-RED 4 and 5 alike; test/package/browser.spec.js opens it so.
    const editor = path.dirname(require.resolve("@node-red/editor-client/package.json"));
    const where = (lang) => {
      const view = JSON.parse(
        fs.readFileSync(path.join(editor, "locales", lang, "editor.json"), "utf8"),
      ).menu.label.view.view;
      const tab = JSON.parse(
        fs.readFileSync(path.join(ROOT, "locales", lang, "edge-account.json"), "utf8"),
      )["edge-account"].sidebar.title;
      return { view, tab };
    };
    const en = where("en-US");
    assert.ok(
      fs.readFileSync(README, "utf8").includes(`(menu > ${en.view} > ${en.tab}, or its chip icon)`),
      "the README does not say where the tab is",
    );
    const missing = [];
    for (const lang of ["en-US", "de", "ja"]) {
      const { view, tab } = where(lang);
      for (const type of [
        "edge-account",
        "edge-await-command",
        "edge-watch-events",
        "edge-fleet-command",
      ]) {
        const help = fs
          .readFileSync(path.join(ROOT, "locales", lang, `${type}.html`), "utf8")
          .replace(/\s+/g, " ");
        if (!help.includes(`&gt; ${view} &gt; <i>${tab}</i>`) || !help.includes("fa-microchip"))
          missing.push(`${lang}/${type}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it("should explain in docs/development.md the core-js postinstall warning of npm install in a clone", function () {
    const dev = fs.readFileSync(path.join(ROOT, "docs", "development.md"), "utf8");
    const section = /^## Installing a clone\n([\s\S]*?)^## /m.exec(dev)?.[1] ?? "";
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
    const coreJs = Object.entries(lock.packages).filter(([p]) =>
      p.endsWith("node_modules/core-js"),
    );
    // The note names the version the lock installs, and says whose it is.
    for (const [, entry] of coreJs) {
      assert.ok(section.includes(`core-js@${entry.version}`), `core-js@${entry.version}`);
      assert.equal(entry.dev, true, "core-js is a dev dependency's");
    }
    assert.match(section, /node-red-dev/);
    assert.match(section, /prepare/);
  });

  it("should list every picture in docs/screenshots/, each one npm run screenshots retakes", function () {
    const dev = fs.readFileSync(path.join(ROOT, "docs", "development.md"), "utf8");
    const section = /^## Screenshots\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(dev)?.[1] ?? "";
    const script = fs.readFileSync(path.join(ROOT, "scripts", "screenshots.js"), "utf8");
    assert.equal(
      require("../../package.json").scripts.screenshots,
      "node scripts/build.js && node scripts/screenshots.js",
    );
    const problems = [];
    for (const file of fs.readdirSync(path.join(ROOT, "docs", "screenshots"))) {
      const name = file.replace(/\.png$/, "");
      if (!section.includes(`](screenshots/${file})`))
        problems.push(`${file}: not in development.md`);
      // Each picture is taken under its name: shot("editor"), shot(`edit-${type}`) for the nodes.
      const taken =
        script.includes(`"${name}"`) ||
        (name.startsWith("edit-edge-") && script.includes("shot(`edit-${type}`)"));
      if (!taken) problems.push(`${file}: scripts/screenshots.js does not take it`);
    }
    assert.deepEqual(problems, []);
  });

  it("should count the examples as examples/ holds them", function () {
    const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    const examples = fs.readdirSync(path.join(ROOT, "examples")).filter((f) => f.endsWith(".json"));
    const wrong = [];
    for (const file of files) {
      const text = prose(fs.readFileSync(file, "utf8")).replace(/\s+/g, " ");
      for (const m of text.matchAll(/\b(?:the|all|every one of the) (\w+) (?:\[)?examples\b/gi)) {
        const n = WORDS.indexOf(m[1].toLowerCase());
        if (n >= 0 && n !== examples.length) wrong.push(`${path.relative(ROOT, file)}: ${m[0]}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  // The checker itself, on cases a broken one would get wrong.
  it("should tell a broken link from a good one", function () {
    assert.equal(brokenLink(README, "docs/reliability.md"), null);
    assert.equal(brokenLink(README, "#errors"), null);
    assert.equal(brokenLink(README, "docs/nothing-here.md"), "no such file");
    assert.equal(brokenLink(README, "#no-such-heading"), "no heading #no-such-heading");
    assert.equal(
      brokenLink(README, "../shared/guide/node-red.md"),
      "points outside the repository",
    );
    assert.deepEqual(
      anchors("# A b\n## `x` and y!\n# A b\n"),
      new Set(["a-b", "x-and-y", "a-b-1"]),
    );
  });
});
