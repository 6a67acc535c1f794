// The simulation's promise (issue 36): a seed and a path fix the whole run, interleaving
// included. One schedule of each property run twice gives the same transcript, byte for byte
// (the server's log, every transport event, every message the flow put out, with their virtual
// times); so does the command a failure prints, run twice in new processes. And the transcript
// is no constant: the same schedule in another world (other network delays) reads differently.
"use strict";
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { helper } = require("../fuzz/flow");
const { runProperty } = require("../fuzz/properties");
const { startSimServer } = require("./server");
const { transcriptOf } = require("./transcript");

/** A schedule of each property that makes requests, sends commands and puts messages out. */
const SCHEDULES = [
  ["await", 42, "3"],
  ["fleet", 7, "5"],
  ["watch", 7, "2"],
  ["wiring", 7, "1"],
  ["streams", 7, "3"],
  ["stamps", 7, "2"],
  ["gateway", 7, "2"],
  ["disable", 7, "1"],
  ["people", 7, "4"],
  // Issue 35's last section: a stream at its capacity behind a late read (the found schedule),
  // messages into three subflow instances through link nodes, the read-only user's Cancel.
  ["capacity", 20261128, "47"],
  ["subflows", 1, "4"],
  ["readers", 1, "1"],
];

describe("the simulated world: a seed and a path replay a run exactly", function () {
  this.timeout(60000);
  let server;
  before(async function () {
    await new Promise((resolve) => helper.startServer(resolve));
    server = startSimServer();
  });
  after(async function () {
    await server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });

  /** The transcript of one schedule, and what it held. */
  async function once(name, seed, p) {
    const result = await runProperty(name, server, { numRuns: 1, seed, path: p });
    return { text: transcriptOf(server), result };
  }

  for (const [name, seed, p] of SCHEDULES) {
    it(`gives one transcript for "${name}" seed ${seed} path ${p}, run twice`, async function () {
      const first = await once(name, seed, p);
      const second = await once(name, seed, p);
      assert.equal(first.result.failure, null);
      // Something happened: requests, and messages out of the flow.
      const parsed = JSON.parse(first.text);
      assert.ok(parsed.log.requests.length > 0, "no request reached the server");
      assert.ok(parsed.outputs.length > 0, "the flow put nothing out");
      if (first.text !== second.text && process.env.SIM_DIFF) {
        fs.writeFileSync(`${process.env.SIM_DIFF}.a`, first.text);
        fs.writeFileSync(`${process.env.SIM_DIFF}.b`, second.text);
      }
      assert.ok(first.text === second.text, "the two runs' transcripts differ");
    });
  }

  it("gives a schedule run alone by its path the transcript it had among the others", async function () {
    // What a printed failure replays: the run at that path of the whole property's run, which
    // ran after others in the same process (what the nodes' process learned from them is
    // forgotten before each schedule, server.js).
    const texts = [];
    const simulate = server.simulate;
    server.simulate = async (...args) => {
      try {
        return await simulate(...args);
      } finally {
        texts.push(transcriptOf(server));
      }
    };
    try {
      const all = await runProperty("fleet", server, { numRuns: 6, seed: 7 });
      assert.equal(all.failure, null);
    } finally {
      server.simulate = simulate;
    }
    assert.equal(texts.length, 6);
    const alone = await once("fleet", 7, "5");
    assert.ok(alone.text === texts[5], "path 5 alone differs from the 6th run of the property");
    assert.notEqual(texts[4], texts[5]);
  });

  it("gives another transcript for the same schedule in another world (network delays)", async function () {
    const first = await once("await", 42, "3");
    server.setSeedOffset(1);
    try {
      const other = await once("await", 42, "3");
      assert.notEqual(
        JSON.parse(other.text).network.join("\n"),
        JSON.parse(first.text).network.join("\n"),
      );
    } finally {
      server.setSeedOffset(0);
    }
  });

  it("replays the printed command in two new processes with one transcript", function () {
    this.timeout(120000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-sim-"));
    const run = (file) =>
      execFileSync(
        process.execPath,
        [
          path.join(__dirname, "..", "fuzz", "run.js"),
          "--sim",
          "--property",
          "fleet",
          "--seed=7",
          "--path=5",
          "--runs",
          "1",
          `--transcript=${file}`,
        ],
        { encoding: "utf8" },
      );
    try {
      run(path.join(dir, "a.json"));
      run(path.join(dir, "b.json"));
      const a = fs.readFileSync(path.join(dir, "a.json"), "utf8");
      const b = fs.readFileSync(path.join(dir, "b.json"), "utf8");
      assert.ok(JSON.parse(a).log.executed.length > 0, "the fleet ran no command");
      assert.ok(a === b, "two processes gave different transcripts");
      // And the process gives what this one gives for that schedule.
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
