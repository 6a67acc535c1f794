// The flows in examples/ as a user imports them: checked for what Import > Examples and the Flow
// Library expect, then run in a real Node-RED runtime (test helper) against the simulator
// (test/support/example-runs.js).
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { CORE_FILES, exampleRuns, run } = require("../support/example-runs");
const { control } = require("../support/simulator");
const { helper, withRed, withRedAndSimulator } = require("../support/red");
const { readExamples } = require("../support/examples");
const { NODE_TYPES } = require("../support/node-types");
const { DEMO_FLEET, fleetName } = require("../../dist/simulator");

const ROOT = path.join(__dirname, "..", "..");
const TOKEN = "demo-token-0123456789abcdef";

function example(name) {
  const found = readExamples().find((e) => e.file === name);
  assert.ok(found, `examples/${name} is missing`);
  return found.flow;
}

/** The README's Try it: the simulator's command line and the user and token it says to enter. */
function tryIt() {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = /^## Try it\n([\s\S]*?)^## /m.exec(readme)?.[1];
  assert.ok(section, "the README has no Try it section");
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  assert.equal(blocks.length, 1, "Try it gives one command block");
  const lines = blocks[0].split("\n").filter((l) => l.trim());
  assert.equal(lines.length, 1, "Try it gives one command");
  const command = lines[0].replace(/#.*$/, "").trim();
  const prefix = "npx --no -- edgewire-sim";
  assert.ok(command.startsWith(prefix), command);
  return {
    command,
    args: command.slice(prefix.length).trim().split(/\s+/).filter(Boolean),
    user: /user `([^`]+)`/.exec(section)?.[1],
    token: /token `([^`]+)`/.exec(section)?.[1],
  };
}

/**
 * The simulator as the package's bin runs it, with `args` and then a free port (the README: options
 * go last); resolves once it listens, with its URL and a stop().
 */
function startCli(args) {
  const cli = path.join(ROOT, require("../../package.json").bin["edgewire-sim"]);
  const child = spawn(process.execPath, [cli, ...args, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the simulator did not start: ${out}`));
    }, 15000);
    const onData = (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ url: m[1], output: () => out, stop });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk) => (out += chunk));
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited: ${out}`));
    });
  });
}

/**
 * What each example's buttons end in, as its comment tells a user: the inject clicked (none for
 * example 05, which runs from the deploy) and the debug node, with how many messages, that shows
 * its answer; and a device kept offline while the button's command waits. Example 02's 5 ms wait
 * ends "timed out" only if the read after its deadline comes before the device's answer, 20 ms
 * after the command: on a loaded machine it came later, found the result and ended complete, and
 * "timed out" never came ("0/1 at debug "timed out"", issue 36). Offline, the device has not
 * answered, whenever that read comes.
 */
const ENDS = {
  "01-device-state-read-replace-merge.json": [
    ["read", "state"],
    ["replace: two lines", "replaced state"],
    ["merge: second line", "merged state"],
  ],
  "02-send-command-and-await-result.json": [
    ["text → complete", "complete"],
    ["unknown resource → fault", "fault"],
    ["5 ms wait → timed out", "timed out", 1, "lcd-board"],
  ],
  "03-list-events-page-by-page-and-all.json": [
    ["page by page", "one page", 3],
    ["all at once", "all events"],
    ["one per event", "joined"],
  ],
  "04-set-lcd-text-await-read-events.json": [["set LCD text", "inbox events"]],
  // sensor-hub's first reading after the deploy switches the pump one way or the other.
  "05-watch-telemetry-threshold-command.json": [
    [null, "telemetry"],
    [null, "complete"],
  ],
  "06-command-ttl-within-timeout.json": [["text, ttl 5 s", "complete"]],
  "07-fleet-command-rollout.json": [
    ["dry run", "report"],
    ["roll out: shift target", "report", 2],
  ],
};

describe("examples", function () {
  describe("as files", function () {
    it("should hold only flow arrays with a tab, each listed under Import > Examples", function () {
      const examples = readExamples();
      assert.ok(examples.length >= 5, `only ${examples.length} examples`);
      for (const { file, flow } of examples) {
        assert.ok(Array.isArray(flow), `${file} is not an array`);
        assert.ok(
          flow.some((n) => n.type === "tab"),
          `${file} has no tab`,
        );
        const tabs = new Set(flow.filter((n) => n.type === "tab").map((n) => n.id));
        for (const n of flow)
          if (n.type !== "tab" && n.type !== "edge-account")
            assert.ok(tabs.has(n.z), `${file}: ${n.id} is on no tab of the file`);
      }
    });

    it("should use every non-config node of the package in at least one example", function () {
      const used = new Set(readExamples().flatMap(({ flow }) => flow.map((n) => n.type)));
      for (const type of NODE_TYPES) assert.ok(used.has(type), `no example uses ${type}`);
    });

    it("should point the account at the simulator for company demo and hold no credentials", function () {
      const ids = new Set();
      for (const { file, flow } of readExamples()) {
        // The demo token may appear in the instructions of a comment node, nowhere else.
        const text = JSON.stringify(flow.filter((n) => n.type !== "comment"));
        assert.ok(!text.includes(TOKEN), `${file} holds the demo token outside a comment`);
        const accounts = flow.filter((n) => n.type === "edge-account");
        assert.equal(accounts.length, 1, `${file} has ${accounts.length} accounts`);
        const [acc] = accounts;
        assert.equal(acc.baseUrl, "http://127.0.0.1:8686", file);
        assert.equal(acc.company, "demo", file);
        assert.equal(acc.credentials, undefined, `${file} carries credentials`);
        ids.add(acc.id);
        // The comment tells users how to enter the token the file leaves out.
        const info = flow
          .filter((n) => n.type === "comment")
          .map((n) => n.info || "")
          .join("\n");
        assert.match(
          info,
          /demo-token-0123456789abcdef/,
          `${file}: no comment names the demo token`,
        );
        assert.match(info, /demo-user/, `${file}: no comment names the demo user`);
      }
      // One shared account: importing a second example reuses the one already configured.
      assert.equal(ids.size, 1, `accounts ${[...ids]}`);
    });

    it("should show where the account's proxy is chosen: an empty Proxy on the shared account, explained in example 01", function () {
      for (const { file, flow } of readExamples()) {
        const acc = flow.find((n) => n.type === "edge-account");
        assert.equal(acc.proxy, "", `${file}: the account has no Proxy property`);
      }
      const info = example("01-device-state-read-replace-merge.json").find(
        (n) => n.type === "comment",
      ).info;
      assert.match(info, /\*\*http proxy\*\* node .* account's \*\*Proxy\*\*/);
      assert.match(info, /https_proxy/);
    });

    it("should name every node, so that a warning or error says which node it came from", function () {
      const unnamed = readExamples().flatMap(({ file, flow }) =>
        flow
          .filter((n) => !(n.type === "tab" ? n.label : n.name))
          .map((n) => `${file}: ${n.type} ${n.id}`),
      );
      assert.deepEqual(unnamed, []);
    });

    it("should say where the simulator is without naming a port that npm start may have moved", function () {
      for (const { file, flow } of readExamples())
        for (const n of flow.filter((x) => x.type === "comment" || x.type === "tab")) {
          const text = `${n.name ?? ""} ${n.label ?? ""} ${n.info ?? ""}`;
          assert.doesNotMatch(text, /https?:\/\/[\w.]+:\d+/, `${file}: ${n.name ?? n.label}`);
        }
      const first = example("01-device-state-read-replace-merge.json");
      assert.match(first.find((n) => n.type === "comment").info, /account's \*\*Base URL\*\*/);
    });

    it("should say above each Catch node that errors reach it", function () {
      for (const { file, flow } of readExamples()) {
        if (!flow.some((n) => n.type === "catch")) continue;
        assert.ok(
          flow.some((n) => n.type === "comment" && /reach the Catch node/.test(n.name)),
          `${file} has a Catch node and no comment about it`,
        );
      }
    });

    it("should show an error's sentence itself in the debug node after each Catch node, not the whole msg", function () {
      for (const { file, flow } of readExamples()) {
        const caught = new Set(
          flow.filter((n) => n.type === "catch").flatMap((n) => n.wires.flat()),
        );
        for (const n of flow.filter((x) => caught.has(x.id) && x.type === "debug"))
          assert.deepEqual(
            { complete: n.complete, targetType: n.targetType },
            { complete: "error.message", targetType: "msg" },
            `${file}: debug "${n.name}"`,
          );
      }
    });

    it("should place no node over another, comments included", function () {
      // Node-RED draws a node about 30 px high and at least 100 px wide, wider by its label
      // (about 7 px a character plus the icon); a comment is its label alone.
      const box = (n) => {
        const label = n.name || n.type;
        const w =
          n.type === "comment" ? 7 * label.length + 20 : Math.max(100, 7 * label.length + 50);
        return { x0: n.x - w / 2, x1: n.x + w / 2, y0: n.y - 15, y1: n.y + 15 };
      };
      for (const { file, flow } of readExamples()) {
        const placed = flow.filter((n) => typeof n.x === "number" && typeof n.y === "number");
        for (let i = 0; i < placed.length; i++)
          for (let j = i + 1; j < placed.length; j++) {
            const [a, b] = [box(placed[i]), box(placed[j])];
            const overlap = a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
            assert.ok(!overlap, `${file}: "${placed[i].name}" overlaps "${placed[j].name}"`);
          }
      }
    });

    it("should keep example 05 quiet until asked: its debug nodes are off but for errors", function () {
      const flow = example("05-watch-telemetry-threshold-command.json");
      const debugs = flow.filter((n) => n.type === "debug");
      assert.deepEqual(
        debugs.filter((n) => n.active).map((n) => n.name),
        ["error"],
      );
      assert.match(flow.find((n) => n.type === "comment").info, /quiet until asked/);
    });

    it("should announce example 02's deliberate ttl warning in its comments", function () {
      const flow = example("02-send-command-and-await-result.json");
      const comments = flow.filter((n) => n.type === "comment");
      assert.match(
        comments.map((n) => n.info).join("\n"),
        /warns once[^]*on purpose|on purpose[^]*warns once/,
      );
      assert.ok(
        comments.some((n) => /warns: ttl longer than the timeout, on purpose/.test(n.name)),
      );
    });

    it("should state one ttl rule in examples 02 and 06, the await's help and its warning: a timeout longer than the ttl by the device's run time", function () {
      const texts = (file) =>
        example(file)
          .map((n) => `${n.label ?? ""} ${n.name ?? ""} ${n.info ?? ""}`)
          .join("\n");
      const stale = /ttl (is )?no longer than|ttl within the|keep the ttl within/i;
      const six = texts("06-command-ttl-within-timeout.json");
      assert.match(six, /timeout longer than the ttl by the time the device needs to run it/);
      assert.doesNotMatch(six, stale);
      assert.doesNotMatch(texts("02-send-command-and-await-result.json"), stale);
      const catalog = JSON.parse(
        fs.readFileSync(path.join(ROOT, "locales/en-US/edge-await-command.json"), "utf8"),
      );
      assert.match(
        catalog["edge-await-command"].warn.ttl,
        /timeout longer than the ttl by the time the device needs to run the command/,
      );
      const help = fs.readFileSync(
        path.join(ROOT, "locales/en-US/edge-await-command.html"),
        "utf8",
      );
      assert.match(
        help.replace(/\s+/g, " "),
        /timeout longer than the command's ttl by the time the device needs to run it/,
      );
      assert.doesNotMatch(help.replace(/\s+/g, " "), stale);
    });

    it("should send example 07's command to the fleet npm start runs, its faulty and offline devices among them", function () {
      const fleet = example("07-fleet-command-rollout.json").find(
        (n) => n.type === "edge-fleet-command",
      );
      const targets = fleet.devices.split(/[,\n]/).map((d) => d.trim());
      const started = Array.from({ length: DEMO_FLEET.devices }, (_, i) =>
        fleetName(i + 1, DEMO_FLEET.devices),
      );
      assert.deepEqual(targets, started);
      for (const name of [...DEMO_FLEET.faulty, ...DEMO_FLEET.offline])
        assert.ok(targets.includes(name), name);
      // Two failures must not stop the rollout, so that the report shows every outcome.
      assert.ok(fleet.maxFailures > DEMO_FLEET.faulty.length + DEMO_FLEET.offline.length);
    });

    it("should use only core nodes besides the package's own", function () {
      for (const { file, flow } of readExamples())
        for (const n of flow)
          assert.ok(
            n.type === "tab" || NODE_TYPES.includes(n.type) || CORE_FILES[n.type],
            `${file}: unexpected node type ${n.type}`,
          );
    });
  });

  describe("run against the simulator", function () {
    exampleRuns(example);
  });

  describe("an error as the debug sidebar shows it", function () {
    const env = withRedAndSimulator();

    it("should show the error's sentence in the debug sidebar, one line with nothing to expand", async function () {
      const shown = [];
      const onComms = (event) => {
        if (event.topic === "debug" && event.data.name === "error") shown.push(event.data);
      };
      helper._events.on("comms", onComms);
      try {
        // A token the server refuses: every button of the example ends at its Catch node.
        const wrong = { ...env.sim, token: "not-the-demo-token" };
        const { inject, debugged } = await run(
          example("01-device-state-read-replace-merge.json"),
          wrong,
        );
        inject("read");
        const [caught] = await debugged("error");
        assert.match(caught.error.message, /^The server refused the credentials \(HTTP 401\)/);
        assert.equal(shown.length, 1);
        assert.equal(shown[0].msg, caught.error.message);
        assert.match(shown[0].format, /^string/);
        assert.equal(shown[0].property, "error.message");
      } finally {
        helper._events.off("comms", onComms);
      }
    });
  });

  describe("run against the simulator started as the README's Try it says", function () {
    this.timeout(120000);
    withRed();
    let sim;
    const readme = tryIt();

    before(async function () {
      sim = await startCli(readme.args);
    });

    after(async function () {
      await sim?.stop();
    });

    it("should give one simulator command, the one every example's comment names", function () {
      for (const { file, flow } of readExamples()) {
        const info = flow
          .filter((n) => n.type === "comment")
          .map((n) => n.info || "")
          .join("\n");
        const named = [...info.matchAll(/`(npx --no -- edgewire-sim[^`]*)`/g)].map((m) => m[1]);
        assert.deepEqual([...new Set(named)], [readme.command], file);
      }
      assert.equal(Object.keys(ENDS).length, readExamples().length, "an example has no ENDS");
    });

    for (const [file, ends] of Object.entries(ENDS))
      it(`should end every button of ${file.replace(/\.json$/, "")} without an error`, async function () {
        const { inject, debugged, seen } = await run(example(file), {
          url: sim.url,
          user: readme.user,
          token: readme.token,
        });
        for (const [button, debug, count = 1, offline] of ends) {
          const online = (on) => control(sim, "PUT", `/devices/${offline}/online`, { online: on });
          if (offline) assert.equal((await online(false)).status, 200);
          if (button) inject(button);
          // Example 05 waits for sensor-hub's next reading (every 3 s); 07 for its offline unit (5 s).
          const msgs = await debugged(debug, count, 20000);
          if (offline) await online(true);
          if (debug === "report") {
            const report = msgs.at(-1).payload;
            assert.equal(report.aborted, false, `${file}: ${JSON.stringify(report)}`);
            assert.equal(report.total, 12, file);
          }
        }
        const errors = (seen.error ?? []).map((m) => m.error?.message);
        assert.deepEqual(errors, [], `${file}: errors; simulator: ${sim.output()}`);
      });
  });

  describe("run against the simulator's demo fleet", function () {
    // The fleet npm start runs: twelve displays, unit-004 faulty and unit-009 offline.
    const env = withRedAndSimulator({ commandDelayMs: 20, ...DEMO_FLEET });

    it("should resolve the twelve units and send nothing on a dry run", async function () {
      const { inject, debugged, seen } = await run(
        example("07-fleet-command-rollout.json"),
        env.sim,
      );
      inject("dry run");
      const [report] = await debugged("report", 1, 20000);
      assert.equal(report.payload.total, 12);
      assert.equal(report.payload.notSent, 12);
      assert.deepEqual(
        report.payload.devices.map((d) => d.outcome),
        Array(12).fill("not-sent"),
      );
      for (const name of ["unit-001", "unit-004", "unit-012"]) {
        const info = await control(env.sim, "GET", `/devices/${name}`);
        assert.equal(info.json.streams.command.count, 0, `${name} was sent a command`);
      }
      assert.equal(seen.error?.length ?? 0, 0);
    });

    it("should roll out to the fleet: ten complete, the faulty unit fault, the offline one timed out", async function () {
      this.timeout(60000);
      const { inject, debugged, seen } = await run(
        example("07-fleet-command-rollout.json"),
        env.sim,
      );
      inject("roll out: shift target");
      // Twelve devices at five a second, and the offline one's 5 s timeout.
      const [report] = await debugged("report", 1, 40000);
      const { total, complete, fault, timedOut, failed, notSent, aborted } = report.payload;
      assert.deepEqual(
        { total, complete, fault, timedOut, failed, notSent, aborted },
        { total: 12, complete: 10, fault: 1, timedOut: 1, failed: 0, notSent: 0, aborted: false },
      );
      const outcome = Object.fromEntries(report.payload.devices.map((d) => [d.device, d.outcome]));
      assert.equal(outcome["unit-004"], "fault");
      assert.equal(outcome["unit-009"], "timed-out");
      // One message per device on the second output, each device once.
      const each = seen["each device"];
      assert.equal(each.length, 12);
      assert.deepEqual(each.map((m) => m.device).sort(), Object.keys(outcome).sort());
      // Each device was sent the command once; the offline one still holds it.
      for (const name of ["unit-001", "unit-004", "unit-009", "unit-012"]) {
        const info = await control(env.sim, "GET", `/devices/${name}`);
        assert.equal(info.json.streams.command.count, 1, name);
      }
      const offline = await control(env.sim, "GET", "/devices/unit-009");
      assert.equal(offline.json.pendingCommands, 1);
      assert.equal(seen.error?.length ?? 0, 0);
    });
  });
});
