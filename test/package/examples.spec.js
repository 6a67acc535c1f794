// The flows in examples/ as a user imports them: checked for what Import > Examples and the Flow
// Library expect, then run in a real Node-RED runtime (test helper) against the simulator, with
// only the account's base URL and credentials filled in, as the comment in each flow tells users.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { control, sleep, waitFor } = require("../support/simulator");
const { helper, load, statuses, withRedAndSimulator } = require("../support/red");
const { DEMO_FLEET, fleetName } = require("../../dist/simulator");

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const TOKEN = "demo-token-0123456789abcdef";
const OURS = [
  "edge-account",
  "edge-device-state",
  "edge-send-command",
  "edge-list-events",
  "edge-await-command",
  "edge-watch-events",
  "edge-fleet-command",
];
const CORE_FILES = {
  inject: "common/20-inject.js",
  debug: "common/21-debug.js",
  catch: "common/25-catch.js",
  comment: "common/90-comment.js",
  function: "function/10-function.js",
  join: "sequence/17-split.js",
  switch: "function/10-switch.js",
  change: "function/15-change.js",
  rbe: "function/rbe.js",
};
const core = (type) => require(`@node-red/nodes/core/${CORE_FILES[type]}`);
/** Ours beyond the nodes test/support/red.js loads for every flow. */
const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");

function readExamples() {
  return fs
    .readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({
      file,
      flow: JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8")),
    }));
}

/** The example as Node-RED loads it, pointed at this test's simulator. */
function prepared(flow, sim) {
  return flow.map((n) => (n.type === "edge-account" ? { ...n, baseUrl: sim.url } : n));
}

function credentialsOf(flow, sim) {
  const creds = {};
  for (const n of flow)
    if (n.type === "edge-account") creds[n.id] = { user: sim.user, token: sim.token };
  return creds;
}

/** Loads an example and records what reaches each of its debug nodes, by name. */
async function run(flow, sim) {
  const nodes = prepared(flow, sim);
  const coreTypes = [...new Set(nodes.map((n) => n.type))].filter((t) => CORE_FILES[t]);
  const extra = coreTypes.map(core);
  if (nodes.some((n) => n.type === "edge-fleet-command")) extra.push(FLEET);
  await load(nodes, credentialsOf(flow, sim), extra);
  const seen = {};
  const waiters = [];
  for (const n of nodes.filter((x) => x.type === "debug")) {
    seen[n.name] = [];
    helper.getNode(n.id).on("input", (msg) => {
      seen[n.name].push(msg);
      for (const w of waiters.splice(0)) w();
    });
  }
  const inject = (name) => {
    const node = nodes.find((n) => n.type === "inject" && n.name === name);
    assert.ok(node, `no inject node named ${name}`);
    helper.getNode(node.id).receive({});
  };
  /** Resolves with the debug messages of `name` once there are n of them (within ms). */
  const debugged = (name, n = 1, ms = 5000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const errors = (seen.error ?? []).map((m) => m.error && m.error.message);
        reject(new Error(`${seen[name]?.length ?? 0}/${n} at debug "${name}"; errors: ${errors}`));
      }, ms);
      const check = () => {
        if ((seen[name]?.length ?? 0) >= n) {
          clearTimeout(timer);
          resolve(seen[name].slice(0, n));
        } else waiters.push(check);
      };
      check();
    });
  return { inject, debugged, seen };
}

function example(name) {
  const found = readExamples().find((e) => e.file === name);
  assert.ok(found, `examples/${name} is missing`);
  return found.flow;
}

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
      for (const type of OURS) assert.ok(used.has(type), `no example uses ${type}`);
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
            n.type === "tab" || OURS.includes(n.type) || CORE_FILES[n.type],
            `${file}: unexpected node type ${n.type}`,
          );
    });
  });

  describe("run against the simulator", function () {
    const env = withRedAndSimulator({ commandDelayMs: 20 });

    it("should read, replace and merge the lcd-board state", async function () {
      const { inject, debugged } = await run(
        example("01-device-state-read-replace-merge.json"),
        env.sim,
      );
      inject("read");
      const [read] = await debugged("state");
      assert.deepEqual(read.payload, { "/lcd/txt1": "Hello", "/lcd/txt2": "" });
      inject("replace: two lines");
      const [replaced] = await debugged("replaced state");
      assert.deepEqual(replaced.payload, {
        "/lcd/txt1": "Replaced",
        "/lcd/txt2": "by the example",
      });
      inject("merge: second line");
      const [merged] = await debugged("merged state");
      assert.deepEqual(merged.payload, {
        "/lcd/txt1": "Replaced",
        "/lcd/txt2": "merged at the second line",
      });
    });

    it("should read, replace and merge by device name against a server that knows ids only", async function () {
      const { startRestricted } = require("../support/restricted-server");
      const server = await startRestricted(env.sim, { idsOnly: true });
      try {
        const { inject, debugged } = await run(
          example("01-device-state-read-replace-merge.json"),
          server,
        );
        inject("read");
        const [read] = await debugged("state");
        assert.equal(read.payload["/lcd/txt1"], "Hello");
        inject("replace: two lines");
        await debugged("replaced state");
        inject("merge: second line");
        const [merged] = await debugged("merged state");
        assert.equal(merged.payload["/lcd/txt2"], "merged at the second line");
        assert.ok(server.seen.includes("GET /v5.0/demo/device/lcd-board"), "no name was tried");
      } finally {
        await server.close();
      }
    });

    it("should send a command and end on each of the three await outputs", async function () {
      const flow02 = example("02-send-command-and-await-result.json");
      const { inject, debugged, seen } = await run(flow02, env.sim);
      inject("text → complete");
      const [complete] = await debugged("complete");
      assert.match(JSON.stringify(complete.payload.elems), /COMMAND_COMPLETE/);
      assert.equal(complete.command.device, "lcd-board");
      inject("unknown resource → fault");
      const [fault] = await debugged("fault");
      assert.match(JSON.stringify(fault.payload.elems), /COMMAND_FAULT/);
      inject("5 ms wait → timed out");
      const [timedOut] = await debugged("timed out");
      assert.equal(timedOut.payload, null);
      // The warning the comment announces, under the await node's name.
      const awaitNode = flow02.find((n) => n.type === "edge-await-command");
      const warned = helper
        .getNode(awaitNode.id)
        .warn.getCalls()
        .map((c) => String(c.args[0]));
      assert.ok(
        warned.some((w) => /ttl \(10000 ms\) is longer than this node's timeout \(5 ms\)/.test(w)),
        JSON.stringify(warned),
      );
      assert.ok(awaitNode.name);
      assert.equal((await debugged("sent event", 3)).length, 3);
      assert.equal(seen.error.length, 0);
      const lcd = await control(env.sim, "GET", "/devices/lcd-board");
      assert.equal(lcd.status, 200);
    });

    it("should complete a command whose ttl is within the await's timeout, without a ttl warning", async function () {
      const { inject, debugged, seen } = await run(
        example("06-command-ttl-within-timeout.json"),
        env.sim,
      );
      inject("text, ttl 5 s");
      const [complete] = await debugged("complete");
      assert.equal(complete.command.ttl, 5000);
      assert.equal(seen.error?.length ?? 0, 0);
      const awaitNode = helper.getNode("e5a1c0d600000006");
      assert.equal(typeof awaitNode.warn.callCount, "number");
      // The test helper configures no context store, as Node-RED's shipped settings.js: the node
      // says once that a restart loses its waits, and that is its only warning.
      const warnings = awaitNode.warn.getCalls().map((call) => String(call.args[0]));
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      assert.match(
        warnings[0],
        /^The context store of this node's pending waits is not persistent/,
      );
    });

    it("should list the five readings page by page, all at once and one per event, while telemetry grows", async function () {
      const { inject, debugged, seen } = await run(
        example("03-list-events-page-by-page-and-all.json"),
        env.sim,
      );
      // What sensor-hub does under npm start (example 05's stream): it must not reach example 03.
      const report = await control(env.sim, "POST", "/events", {
        path: "/demo/telemetry",
        elems: { temperature: 23, humidity: 42, device: "sensor-hub" },
      });
      assert.ok(report.status < 300, `the reading was not added: ${report.status}`);
      inject("page by page");
      const pages = await debugged("one page", 3);
      assert.deepEqual(
        pages.map((m) => m.payload.length),
        [2, 2, 1],
      );
      assert.deepEqual(
        pages.map((m) => m.paging.start),
        [0, 2, 4],
      );
      inject("all at once");
      const [all] = await debugged("all events");
      assert.equal(all.payload.length, 5);
      assert.deepEqual(
        all.payload.map((e) => e.id),
        pages.flatMap((m) => m.payload.map((e) => e.id)),
      );
      inject("one per event");
      assert.equal((await debugged("each event", 5)).length, 5);
      const [joined] = await debugged("joined");
      assert.equal(joined.payload.length, 5);
      assert.equal(seen["one page"].length, 3, "the page loop stops at the short page");
      assert.equal(seen.error.length, 0);
    });

    it("should set the LCD text, wait for completion and read the inbox markers", async function () {
      const { inject, debugged, seen } = await run(
        example("04-set-lcd-text-await-read-events.json"),
        env.sim,
      );
      inject("set LCD text");
      const [events] = await debugged("inbox events");
      const text = JSON.stringify(events.payload);
      assert.match(text, /COMMAND_COMPLETE/);
      assert.match(text, /COMMAND_START/);
      assert.ok(events.payload.length <= 5);
      const commands = await fetch(`${env.sim.url}/_sim/devices/lcd-board`).then((r) => r.json());
      assert.equal(commands.pendingCommands, 0);
      assert.equal(seen.fault.length + seen["timed out"].length + seen.error.length, 0);
    });

    it("should switch the pump on a telemetry threshold, only when it changes, and await each result", async function () {
      const flow = example("05-watch-telemetry-threshold-command.json");
      const { debugged, seen } = await run(flow, env.sim);
      const watch = flow.find((n) => n.type === "edge-watch-events");
      const shown = statuses(helper.getNode(watch.id));
      await waitFor(() => shown.some((s) => s.text === "watching"), {
        timeoutMs: 10000,
        what: "the watch to start",
      });
      // What sensor-hub reports with the simulator's --telemetry, one reading at a time.
      const report = (temperature) =>
        control(env.sim, "POST", "/events", {
          path: "/demo/telemetry",
          elems: { temperature, humidity: 42, device: "sensor-hub" },
        });
      await report(24.1);
      const [off] = await debugged("complete", 1, 10000);
      assert.equal(off.command.device, "pump-3");
      await report(25.6);
      const [, on] = await debugged("complete", 2, 10000);
      assert.match(JSON.stringify(on.payload.elems), /COMMAND_COMPLETE/);
      // Still above the threshold: no new command.
      await report(25.9);
      await debugged("telemetry", 3, 10000);
      // Give a wrong third command time to show up (as noMessage does elsewhere).
      await sleep(1000);
      const pump = await control(env.sim, "GET", "/devices/pump-3");
      assert.equal(pump.json.streams.command.count, 2, "commands sent");
      assert.equal(seen.complete.length, 2);
      assert.deepEqual(
        seen.telemetry.map((m) => m.payload.elems.temperature),
        [24.1, 25.6, 25.9],
      );
      assert.equal(seen.fault.length + seen["timed out"].length + seen.error.length, 0);
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
