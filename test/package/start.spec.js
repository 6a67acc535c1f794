// `npm start` as a newcomer runs it: the simulator, a real Node-RED with the package and the
// examples deployed against it, the banner with the URLs, Ctrl-C, and clear words for a busy port.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const { freePort, runStart, startDemo, listening } = require("../support/demo");
const { tempDir } = require("../support/temp");

const TOKEN = "demo-token-0123456789abcdef";
const EXAMPLES = path.join(__dirname, "..", "..", "examples");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, fn, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The simulator's request log, as "METHOD url status". */
async function requests(demo) {
  const log = await fetch(`${demo.simUrl}/_sim/requests?limit=1000`).then((r) => r.json());
  return log.map((r) => `${r.method} ${r.url} ${r.status}`);
}

/** Whether Node-RED logged that it started its flows before npm start said they are deployed. */
function startedBeforeBanner(stdout) {
  const started = stdout.search(/\[info\] Started flows/);
  const banner = stdout.indexOf("edgewire demo is running");
  return started !== -1 && banner !== -1 && started < banner;
}

function injectId(file, name) {
  const flow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8"));
  return flow.find((n) => n.type === "inject" && n.name === name).id;
}

describe("npm start", function () {
  this.timeout(90000);
  let demo;

  afterEach(async function () {
    if (demo) await demo.stop();
    demo = undefined;
  });

  it("should print the editor URL, deploy every example against the simulator and stop both on Ctrl-C", async function () {
    demo = await startDemo();
    assert.match(
      demo.stdout,
      new RegExp(`Node-RED editor +${demo.editorUrl.replace(/\./g, "\\.")}`),
    );
    assert.match(demo.stdout, new RegExp(`simulator API +${demo.simUrl}/v5\\.0/demo`));
    assert.match(demo.stdout, /The examples are deployed/);
    assert.ok(startedBeforeBanner(demo.stdout), demo.stdout);

    const flows = await fetch(`${demo.editorUrl}flows`).then((r) => r.json());
    const tabs = flows.filter((n) => n.type === "tab").map((n) => n.label);
    assert.equal(tabs.length, fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".json")).length);
    const accounts = flows.filter((n) => n.type === "edge-account");
    assert.equal(accounts.length, 1, "the examples share one account");
    assert.equal(accounts[0].baseUrl, demo.simUrl);
    const creds = await fetch(`${demo.editorUrl}credentials/edge-account/${accounts[0].id}`).then(
      (r) => r.json(),
    );
    assert.deepEqual(creds, { user: "demo-user", has_token: true });
    // The token is in the encrypted credentials file only (and in the comments that tell users
    // what to type).
    const stored = JSON.parse(fs.readFileSync(path.join(demo.userDir, "flows.json"), "utf8"));
    assert.ok(!JSON.stringify(stored.filter((n) => n.type !== "comment")).includes(TOKEN));
    const cred = fs.readFileSync(path.join(demo.userDir, "flows_cred.json"), "utf8");
    assert.ok(!cred.includes(TOKEN), "flows_cred.json is not encrypted");

    // The fleet example 07 sends to: twelve units, one faulty and one offline.
    const unit = (name) => fetch(`${demo.simUrl}/_sim/devices/${name}`).then((r) => r.json());
    const units = await Promise.all(["unit-001", "unit-004", "unit-009", "unit-012"].map(unit));
    assert.deepEqual(
      units.map((u) => [u.device.name, u.online, u.fault ?? null]),
      [
        ["unit-001", true, null],
        ["unit-004", true, "simulated device fault"],
        ["unit-009", false, null],
        ["unit-012", true, null],
      ],
    );

    // The whole chain, as a click on its inject button does it.
    const inject = injectId("04-set-lcd-text-await-read-events.json", "set LCD text");
    const res = await fetch(`${demo.editorUrl}inject/${inject}`, { method: "POST" });
    assert.equal(res.status, 200);
    const log = await until("the chain to list the inbox", async () => {
      const lines = await requests(demo);
      return lines.some((l) => /^GET .*:inbox&limit=5&start=0 200$/.test(decodeURIComponent(l)))
        ? lines
        : null;
    });
    assert.ok(
      log.some((l) => /^POST \/v5\.0\/demo\/event 201$/.test(l)),
      log.join("\n"),
    );

    const stopped = await demo.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /SIGINT: stopping Node-RED and the simulator/);
    assert.equal(await listening(demo.port), false, "Node-RED still listens");
    assert.equal(await listening(demo.simPort), false, "the simulator still listens");
  });

  it("should keep the user's flows on the next start and not deploy the examples again", async function () {
    demo = await startDemo();
    const first = await fetch(`${demo.editorUrl}flows`).then((r) => r.json());
    const kept = first.filter((n) => n.type !== "tab" || n.label === "Edge: device state");
    const drop = new Set(
      first.filter((n) => n.type === "tab" && n.label !== "Edge: device state").map((n) => n.id),
    );
    const res = await fetch(`${demo.editorUrl}flows`, {
      method: "POST",
      headers: { "content-type": "application/json", "node-red-deployment-type": "full" },
      body: JSON.stringify(kept.filter((n) => !drop.has(n.z))),
    });
    assert.equal(res.status, 204);
    await demo.stop();

    // Same user directory and ports, so the stored account still points at the simulator.
    demo = await startDemo({ userDir: demo.userDir, port: demo.port, simPort: demo.simPort });
    assert.match(demo.stdout, /Your flows from the last run are deployed/);
    // The editor answers before Node-RED has started the stored flows; "deployed" must wait for
    // them, or an inject right after the banner finds no node (the race this test once lost).
    assert.ok(startedBeforeBanner(demo.stdout), demo.stdout);
    const flows = await fetch(`${demo.editorUrl}flows`).then((r) => r.json());
    assert.deepEqual(
      flows.filter((n) => n.type === "tab").map((n) => n.label),
      ["Edge: device state"],
    );
    // The stored, encrypted token still works: read the device through the kept flow.
    const inject = injectId("01-device-state-read-replace-merge.json", "read");
    await fetch(`${demo.editorUrl}inject/${inject}`, { method: "POST" });
    await until("the device read", async () =>
      (await requests(demo)).includes("GET /v5.0/demo/device/lcd-board 200"),
    );
  });

  it("should not say deployed when Node-RED cannot start the stored flows", async function () {
    // A flow whose node type is not installed: Node-RED serves the editor but waits for the type
    // and never starts the flows.
    const userDir = tempDir("edgewire-demo-");
    fs.writeFileSync(
      path.join(userDir, "flows.json"),
      JSON.stringify([
        { id: "f1", type: "tab", label: "Needs a missing node" },
        { id: "n1", type: "no-such-node-type", z: "f1", wires: [] },
      ]),
    );
    demo = await startDemo({ userDir });
    assert.doesNotMatch(demo.stdout, /are deployed/);
    assert.match(
      demo.stdout,
      /Node-RED has not started the flows: node types it needs are not installed/,
    );
    assert.match(demo.stdout, /no-such-node-type/);
    const res = await fetch(demo.editorUrl);
    assert.equal(res.status, 200, "the editor is there to fix the flows");
  });

  it("should say which port is busy and how to choose another, and start nothing", async function () {
    const blocker = net.createServer();
    await new Promise((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const busy = blocker.address().port;
    try {
      const free = await freePort();
      const editor = await runStart(["--port", String(busy), "--sim-port", String(free)]);
      assert.equal(editor.code, 1);
      assert.match(
        editor.stderr,
        new RegExp(
          `port ${busy} on 127\\.0\\.0\\.1 is already in use, so Node-RED cannot start there`,
        ),
      );
      assert.match(editor.stderr, /npm start -- --port <n> \(or EDGE_PORT\)/);
      assert.equal(await listening(free), false, "the simulator was started anyway");

      const sim = await runStart([], {
        env: { EDGE_PORT: String(free), EDGE_SIM_PORT: String(busy) },
      });
      assert.equal(sim.code, 1);
      assert.match(sim.stderr, new RegExp(`port ${busy} .* so the simulator cannot start there`));
      assert.match(sim.stderr, /--sim-port <n> \(or EDGE_SIM_PORT\)/);
    } finally {
      blocker.close();
    }
  });

  it("should refuse an unknown option or a bad port with the usage", async function () {
    const unknown = await runStart(["--bogus"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option: --bogus/);
    assert.match(unknown.stderr, /usage: npm start -- \[--port <n>\]/);
    const bad = await runStart(["--port", "70000"]);
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /--port \(EDGE_PORT\) must be a port number from 1 to 65535, got "70000"/,
    );
  });
});
