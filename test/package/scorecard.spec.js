// The Flow Library scorecard, run as the Flow Library runs it: `node-red-dev validate` on the
// built package. The online catalogue is unreachable here, so test/support/offline-catalogue.js
// answers that one request with an empty catalogue (its two duplicate-name checks prove nothing);
// every other check is real. One warning is expected and stays: undici 8 needs Node >= 22.19, and
// this package supports Node 20, so it depends on undici 7.
"use strict";
const assert = require("node:assert/strict");
const { execFile } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { tempDir } = require("../support/temp.js");

const ROOT = path.join(__dirname, "..", "..");
const SHIM = path.join(__dirname, "../support", "offline-catalogue.js");
const CLI = path.join(ROOT, "node_modules", ".bin", "node-red-dev");
const ALLOWED = [/^D03 undici is not at latest version\b/];
const NODES = require("../../package.json")["node-red"].nodes;

/** The output of `node-red-dev validate`, and the scorecard it writes (its -o file). */
function validate() {
  const card = path.join(tempDir("scorecard-"), "scorecard.json");
  return new Promise((resolve) => {
    execFile(
      CLI,
      ["validate", "-p", ROOT, "-o", card],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 120000,
        env: {
          ...process.env,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${SHIM}`.trim(),
          FORCE_COLOR: "0",
        },
      },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (err.code ?? 1) : 0,
          out: stdout + stderr,
          card: fs.existsSync(card) ? JSON.parse(fs.readFileSync(card, "utf8")) : {},
        }),
    );
  });
}

/** Warnings and failures, each joined from its continuation lines (" ›   ..."). */
function findings(out) {
  const list = [];
  for (const raw of out.split("\n")) {
    // eslint-disable-next-line no-control-regex -- colour codes, should a terminal force them
    const line = raw.replace(/\x1b\[[0-9;]*m/g, "");
    const m = /^\s*›\s+(Warning|Error):\s*(.*)$/.exec(line);
    if (m) list.push({ kind: m[1], text: m[2].trim() });
    else if (/^\s*›\s+/.test(line) && list.length)
      list.at(-1).text += ` ${line.replace(/^\s*›\s+/, "")}`;
    else if (/❌|\bfailed\b/i.test(line)) list.push({ kind: "Failure", text: line.trim() });
  }
  return list;
}

describe("Flow Library scorecard (node-red-dev validate)", function () {
  this.timeout(150000);
  let result;

  before(async function () {
    result = await validate();
  });

  it("should pass every check with no warning but the undici one", function () {
    const problems = findings(result.out).filter(
      (f) => !(f.kind === "Warning" && ALLOWED.some((re) => re.test(f.text))),
    );
    assert.deepEqual(problems, [], result.out);
    assert.equal(result.code, 0, result.out);
    assert.match(result.out, /Complete/, result.out);
  });

  it("should find the license, links, scoped name, keyword, versions, examples and dependencies", function () {
    for (const check of [
      /✅ Package is Apache-2\.0 licensed/,
      /✅ Repository\/Bugs Link Supplied/,
      /✅ Package uses a Scoped Name/,
      /✅ Node-RED Keyword Found/,
      /✅ Compatible with Node-RED/,
      /✅ Compatible NodeJS Version found/,
      /✅ Nodes all have unique names/,
      /✅ Package has \d+ dependencies/,
      /✅ No incompatible packages found in dependency tree/,
    ])
      assert.match(result.out, check);
    assert.doesNotMatch(result.out, /No examples found/);
  });

  // A node whose .html does not call RED.nodes.registerType("<type>", { … }) itself is only a
  // line "Unable to parse <file>", with no ✅ or ❌, and is left out of every node check.
  it("should read the registration of every node in its .html", function () {
    const unread = result.out.split("\n").filter((line) => /Unable to parse/.test(line));
    assert.deepEqual(unread, [], result.out);
  });

  it("should list every node but the account, a config node, under N02 (examples found)", function () {
    const flowNodes = Object.keys(NODES).filter((type) => type !== "edge-account");
    assert.equal(flowNodes.length, 6);
    assert.equal(result.card.N02?.test, true, JSON.stringify(result.card));
    assert.deepEqual([...result.card.N02.nodes].sort(), flowNodes.sort());
  });
});
