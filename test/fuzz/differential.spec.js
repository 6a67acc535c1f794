// Installing the package changes nothing for other flows (issue 35, section 2), checked by
// difference: the same flow of core nodes only (a Function node wired to two nodes, the first of
// which changes the msg, a change node, link out and link in, a subflow of two instances), under
// the same drawn schedule of messages and deploys (full, nodes, flows, a tab disabled and
// enabled, one that never starts), runs once in a Node-RED that has only the core nodes and once
// in one that has this package's seven node types loaded and used on a tab of their own. What
// reaches each helper node, in order, must be the same. A run of the core-only world twice first
// shows the comparison is deterministic, so a difference is the package's.
"use strict";
const assert = require("node:assert/strict");
const fc = require("fast-check");
const helper = require("node-red-node-test-helper");
const { startFuzzServer } = require("./server");
const { nodeModules } = require("../support/node-types");

helper.init(require.resolve("node-red"));

const CORE = [
  require("@node-red/nodes/core/function/10-function.js"),
  require("@node-red/nodes/core/function/15-change.js"),
  require("@node-red/nodes/core/common/60-link.js"),
  require("@node-red/nodes/core/common/25-catch.js"),
];
const OURS = nodeModules();
const SINKS = ["out.mut", "out.copy", "out.link", "out.sub"];

/** The core-only flow; `names` restarts nodes on a deploy, `off` disables its tab. */
function coreFlow(names, off) {
  // x and y make a node a flow node, as the editor saves one (a link node without them is taken
  // for a config node, and its links for a circle of dependencies).
  const on = (n) => ({ z: "core", x: 100, y: 100, name: names[n.id] ?? "", ...n });
  return [
    { id: "core", type: "tab", label: "core", disabled: off },
    on({ id: "src", type: "function", func: "return msg;", wires: [["mut", "copy"]] }),
    on({
      id: "mut",
      type: "function",
      func: 'msg.payload = "changed " + msg.payload; msg.topic = "mut"; return msg;',
      wires: [["out.mut"]],
    }),
    on({
      id: "copy",
      type: "change",
      rules: [{ t: "set", p: "seen", pt: "msg", to: "payload", tot: "msg" }],
      wires: [["lo", "sf1", "sf2"]],
    }),
    on({ id: "lo", type: "link out", mode: "link", links: ["li"], wires: [] }),
    on({ id: "li", type: "link in", links: ["lo"], wires: [["out.link"]] }),
    {
      id: "sf",
      type: "subflow",
      name: "tag",
      in: [{ wires: [{ id: "sfn" }] }],
      out: [{ wires: [{ id: "sfn", port: 0 }] }],
    },
    { id: "sfn", type: "function", z: "sf", func: "msg.tagged = true; return msg;", wires: [[]] },
    on({ id: "sf1", type: "subflow:sf", wires: [["out.sub"]] }),
    on({ id: "sf2", type: "subflow:sf", wires: [["out.sub"]] }),
    ...SINKS.map((id) => on({ id, type: "helper" })),
  ];
}

/** The package's nodes on a tab of their own, against the fuzz server, as a user has them. */
function ourFlow(server) {
  const z = "ours";
  return [
    { id: z, type: "tab", label: "ours" },
    { id: "acc", type: "edge-account", z, baseUrl: server.url, company: server.company },
    {
      id: "e1",
      type: "edge-send-command",
      z,
      account: "acc",
      target: "device",
      device: "dev0",
      wires: [["e2"]],
    },
    {
      id: "e2",
      type: "edge-await-command",
      z,
      account: "acc",
      inbox: "",
      timeout: "500",
      interval: 50,
      wires: [[], [], []],
    },
    {
      id: "e3",
      type: "edge-watch-events",
      z,
      account: "acc",
      stream: server.telemetryPath,
      interval: 250,
      start: "new",
      last: 10,
      store: "",
      wires: [[]],
    },
    {
      id: "e4",
      type: "edge-device-state",
      z,
      account: "acc",
      device: "",
      mode: "get",
      wires: [[]],
    },
    {
      id: "e5",
      type: "edge-list-events",
      z,
      account: "acc",
      stream: "",
      mode: "page",
      wires: [[]],
    },
    {
      id: "e6",
      type: "edge-fleet-command",
      z,
      account: "acc",
      devices: "",
      filter: "",
      elems: "",
      ttl: "",
      rate: 0,
      concurrency: 2,
      maxFailures: 0,
      timeout: "500",
      interval: 50,
      store: "",
      wires: [[], []],
    },
    { id: "c1", type: "catch", z, scope: null, uncaught: false, wires: [[]] },
  ];
}

/** Runs `steps` in one world; resolves with what reached each helper node, in order. */
async function runWorld(steps, { withPackage, server }) {
  const seen = [];
  const names = {};
  let off = false;
  const nodesOf = (broken = false) => [
    ...coreFlow(names, off),
    ...(withPackage ? ourFlow(server) : []),
    ...(broken ? [{ id: "x1", type: "not-installed", z: "core", wires: [] }] : []),
  ];
  const credentials = withPackage ? { acc: { token: server.token } } : {};
  const attach = () => {
    for (const id of SINKS) {
      const node = helper.getNode(id);
      if (!node || node.__diff) continue;
      node.__diff = true;
      node.on("input", (msg) =>
        seen.push(`${id}:${msg.payload}:${msg.topic ?? ""}:${msg.seen ?? ""}:${msg.tagged ?? ""}`),
      );
    }
  };
  const deploy = async (type, broken) => {
    try {
      await helper.setFlows(nodesOf(broken), type, credentials);
    } catch {
      // A deploy that never starts: the helper gives up waiting for "started".
    }
    attach();
  };
  await helper.load([...CORE, ...(withPackage ? OURS : [])], nodesOf(), credentials);
  attach();
  let n = 0;
  try {
    for (const step of steps) {
      if (step.kind === "send") {
        // A burst, then the step after it at once: a deploy meets messages on their way.
        for (let i = 0; i < step.count; i++) helper.getNode("src")?.receive({ payload: ++n });
      } else if (step.kind === "deploy") {
        if (step.target !== "none") names[step.target] = `${step.target}-${n}`;
        await deploy(step.type, false);
      } else if (step.kind === "disable") {
        off = true;
        await deploy(step.type, false);
        off = false;
        await deploy(step.type, false);
      } else if (step.kind === "broken") {
        await deploy("nodes", true);
        await deploy("nodes", false);
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    // Every message given its turns of the event loop to arrive.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    await helper.unload();
  }
  return seen;
}

const stepArb = fc.oneof(
  fc.integer({ min: 1, max: 4 }).map((count) => ({ kind: "send", count })),
  fc
    .record({
      type: fc.constantFrom("full", "nodes", "flows"),
      target: fc.constantFrom("src", "mut", "copy", "li", "sf1", "none"),
    })
    .map((d) => ({ kind: "deploy", ...d })),
  fc.constantFrom("full", "nodes", "flows").map((type) => ({ kind: "disable", type })),
  fc.constant({ kind: "broken" }),
  fc.constant({ kind: "tick" }),
);

describe("installing the package changes nothing for a flow of core nodes (a differential check)", function () {
  this.timeout(240_000);
  let server;
  before(async function () {
    await new Promise((resolve) => helper.startServer(resolve));
    server = await startFuzzServer();
    server.reset({}, { deviceCount: 2 });
  });
  after(async function () {
    await server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });

  it("gives the same outputs, in the same order, with and without the package, over 25 schedules", async function () {
    const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
    const reached = new Map(SINKS.map((id) => [id, 0]));
    const out = await fc.check(
      fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 8 }), async (steps) => {
        const bare = await runWorld(steps, { withPackage: false, server });
        const again = await runWorld(steps, { withPackage: false, server });
        // The comparison means something only where the core-only world repeats itself.
        fc.pre(JSON.stringify(bare) === JSON.stringify(again));
        for (const line of bare) {
          const sink = line.slice(0, line.indexOf(":"));
          reached.set(sink, reached.get(sink) + 1);
        }
        const installed = await runWorld(steps, { withPackage: true, server });
        assert.deepEqual(installed, bare, `steps: ${JSON.stringify(steps)}`);
      }),
      { numRuns: 25, endOnFailure: true, ...(seed !== undefined ? { seed } : {}) },
    );
    console.log(
      `      differential: seed ${out.seed}, ${out.numRuns} runs, ${out.numSkips} skipped as not repeatable`,
    );
    if (out.failed)
      throw new Error(
        `seed ${out.seed}, path ${out.counterexamplePath}: ${out.errorInstance?.message ?? out.error}`,
      );
  });
});
