// The "edge devices" sidebar tab in a real browser (Debian's chromium through playwright-core)
// against what `npm start` runs: a command pending on an offline device, the telemetry watch of
// example 05 and an account the simulator throttles with 429, each seen in the tab; a wait
// cancelled from the tab leaves it; more waits than a page are paged through, forward and back;
// example 07's fleet job runs while the tab is open and stays in it with its end when it ends.
// It takes its pictures into a temporary folder; `npm run screenshots` (scripts/screenshots.js)
// retakes sidebar.png and sidebar-de.png in docs/screenshots/.
"use strict";
/* global document, RED -- these run inside the editor page */
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { startDemo } = require("../support/demo");
const { tempDir } = require("../support/temp");
const { openEditorPage, requireChromium } = require("../support/browser");

const SHOTS = tempDir("edgewire-screenshots-");
const WAIT = 20000;
/** Example 02's "text → complete" inject: it feeds the send and await nodes. */
const SEND_INJECT = "e5a1c0d000000003";
const AWAIT_NODE = "e5a1c0d000000007";
/** Example 07's "roll out" inject and its fleet node: twelve units, unit-004 faulty, unit-009 offline. */
const FLEET_INJECT = "e5a1c0d700000004";
const FLEET_NODE = "e5a1c0d700000006";

describe("the edge devices sidebar in a browser", function () {
  this.timeout(180000);
  let demo;
  let context;
  let page;
  /** The browser of openEditorPage (support/browser.js): its errors and close(). */
  let browser;

  const control = (method, p, body) =>
    fetch(`${demo.simUrl}/_sim${p}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => {
      assert.ok(r.ok, `${method} ${p}: ${r.status}`);
    });

  /** Example 02's command, held ten minutes: a ttl and a timeout instead of the example's 10 s. */
  async function inject(text) {
    const res = await fetch(`${demo.editorUrl}inject/${SEND_INJECT}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        __user_inject_props__: [
          { p: "payload", v: text, vt: "str" },
          { p: "timeout", v: "600000", vt: "num" },
          { p: "ttl", v: "600000", vt: "num" },
        ],
      }),
    });
    assert.equal(res.status, 200);
  }

  /** Example 07's job, with the offline unit's command awaited for ten minutes, not 5 s. */
  async function rollOut() {
    const res = await fetch(`${demo.editorUrl}inject/${FLEET_INJECT}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        __user_inject_props__: [
          { p: "payload", v: "Shift target 120", vt: "str" },
          { p: "job", v: "shift target 120", vt: "str" },
          { p: "timeout", v: "600000", vt: "num" },
        ],
      }),
    });
    assert.equal(res.status, 200);
  }

  /**
   * Shows another tab than the node's, clicks the node's link in `row` and waits for the node's
   * tab: only the click can have brought it.
   */
  async function revealsFromRow(nodeId, row) {
    await page.evaluate((id) => {
      const z = RED.nodes.node(id).z;
      let other;
      RED.nodes.eachWorkspace((ws) => {
        if (ws.id !== z) other ??= ws.id;
      });
      RED.workspaces.show(other);
    }, nodeId);
    await row.locator(".edge-sidebar-node").click();
    await page.waitForFunction((id) => RED.workspaces.active() === RED.nodes.node(id).z, nodeId);
  }

  async function openTab(p) {
    await p.evaluate(() => RED.sidebar.show("edge-devices"));
    await p.waitForSelector(".edge-sidebar-account", { state: "visible" });
  }

  before(async function () {
    requireChromium(this);
    demo = await startDemo();
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await openEditorPage(demo.editorUrl, { wait: WAIT });
    ({ page, context } = browser);

    // The LCD board offline: its command stays pending. A ttl and a timeout of 10 minutes instead
    // of the example's 10 s keep the wait while the test looks at it (the simulator faults a
    // command whose ttl runs out while its device is offline).
    await control("PUT", "/devices/lcd-board/online", { online: false });
    await inject("pending on an offline board");
    // A fleet job that keeps running: unit-009 is offline and its command is awaited 10 minutes.
    await rollOut();
    // Throttled: the next reads of the account are answered 429 with a Retry-After.
    await control("POST", "/faults", { method: "GET", status: 429, retryAfter: "1", count: 3 });
  });

  after(async function () {
    await browser?.close();
    await demo?.stop();
  });

  it("shows the pending command, the watch and the 429 wait of the throttled account", async function () {
    await openTab(page);
    const wait = page.locator(".edge-sidebar-wait", { hasText: "pending on an offline board" });
    await wait.waitFor();
    const device = page.locator(".edge-sidebar-device", { hasText: "lcd-board" });
    await device.waitFor();
    assert.match(await device.innerText(), /1 waiting/);
    assert.match(await wait.innerText(), /Age \d+ s · Deadline .* · TTL 10 min/);
    const watch = page.locator(".edge-sidebar-watch", { hasText: "/demo/telemetry" });
    await watch.waitFor();
    assert.match(await watch.innerText(), /reading|backing off/);
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".edge-sidebar-health tr")].some(
        (tr) => /Last 429 wait/.test(tr.innerText) && !/none/.test(tr.innerText),
      ),
    );
    await page.locator(".edge-sidebar-health", { hasText: "Token" }).first().waitFor();
    assert.match(await page.locator(".edge-sidebar-fleet").first().innerText(), /Fleet jobs/);
    // Eleven units answered (unit-004 with a fault); unit-009 is offline.
    const job = page.locator(".edge-sidebar-job", { hasText: "shift target 120" });
    await page.waitForFunction(() =>
      /10 complete · 1 fault/.test(document.querySelector(".edge-sidebar-job")?.innerText ?? ""),
    );
    const jobText = await job.innerText();
    assert.match(jobText, /shift target 120 · LCD text to 12 units · 12 devices · running/);
    // The job's devices and the account's HTTP requests are two things, named apart (issue 37).
    assert.match(jobText, /Sent 12 \/ 12 · Devices sending 1 · Started/);
    const health = await page.locator(".edge-sidebar-health").first().innerText();
    assert.match(health, /Requests in flight\s+\d+ \/ \d+/);
    assert.doesNotMatch(health, /^In flight/m);
    // The last error in the words every node's status uses, not its code (rate-limited 429).
    assert.match(health, /Last error\s+429 rate limited, /);
    // One account: its section is open, its heading says it in one line.
    const account = page.locator(".edge-sidebar-account").first();
    assert.equal(await account.getAttribute("data-folded"), "false");
    assert.match(
      await account.locator(".edge-sidebar-summary").innerText(),
      /^\d+ pending · 1 watched · jobs running: 1$/,
    );
    // Outcomes no device had are left out.
    assert.doesNotMatch(jobText, /timed out|failed|not sent/);
    await page.screenshot({ path: path.join(SHOTS, "sidebar.png") });
  });

  it("shows a command sent while the tab is open without a click, over the editor's comms", async function () {
    await inject("sent while the tab is open");
    await page.locator(".edge-sidebar-wait", { hasText: "sent while the tab is open" }).waitFor();
    assert.match(
      await page.locator(".edge-sidebar-device", { hasText: "lcd-board" }).innerText(),
      /2 waiting/,
    );
  });

  it("reveals the await node when its link in a row is clicked", async function () {
    await revealsFromRow(
      AWAIT_NODE,
      page.locator(".edge-sidebar-wait", { hasText: "pending on an offline board" }),
    );
  });

  it("cancels the wait from its row, and the row leaves; then all of the device's", async function () {
    const wait = page.locator(".edge-sidebar-wait", { hasText: "pending on an offline board" });
    await wait.locator(".edge-sidebar-cancel").click();
    await wait.waitFor({ state: "detached" });
    await page.waitForFunction(() =>
      /1 waiting/.test(document.querySelector(".edge-sidebar-device")?.innerText ?? ""),
    );
    const device = page.locator(".edge-sidebar-device", { hasText: "lcd-board" });
    await device.locator(".edge-sidebar-cancel-all").click();
    await device.waitFor({ state: "detached" });
  });

  it("pages through more waits than a page holds, to the newer ones and back", async function () {
    const COUNT = 55;
    // A few at a time: the account sends at most 20 requests a second.
    for (let i = 0; i < COUNT; i += 5) {
      await Promise.all(
        Array.from({ length: Math.min(5, COUNT - i) }, (_, k) => inject(`paged ${i + k}`)),
      );
    }
    const range = page.locator(".edge-sidebar-range").first();
    await page.waitForFunction(
      (count) =>
        document.querySelector(".edge-sidebar-range")?.innerText === `Waits 1–50 of ${count}`,
      COUNT,
    );
    const ids = () =>
      page.$$eval(".edge-sidebar-wait", (rows) => rows.map((r) => r.getAttribute("data-wait")));
    const first = await ids();
    assert.equal(first.length, 50);
    assert.ok(await page.locator(".edge-sidebar-older").first().isDisabled());

    await page.locator(".edge-sidebar-newer").first().click();
    await page.waitForFunction(
      (count) =>
        document.querySelector(".edge-sidebar-range")?.innerText ===
        `Waits 51–${count} of ${count}`,
      COUNT,
    );
    const second = await ids();
    assert.equal(second.length, COUNT - 50);
    assert.ok(!second.some((id) => first.includes(id)), "a row of the first page on the second");
    assert.match(await page.locator(".edge-sidebar-wait").first().innerText(), /paged \d+/);
    assert.ok(await page.locator(".edge-sidebar-newer").first().isDisabled());
    // The page stays as the runtime publishes: a wait that ends elsewhere changes the snapshot.
    await page.waitForTimeout(1500);
    assert.match(await range.innerText(), /^Waits 51–/);

    await page.locator(".edge-sidebar-older").first().click();
    await page.waitForFunction(() =>
      /^Waits 1–50 of/.test(document.querySelector(".edge-sidebar-range")?.innerText ?? ""),
    );
    assert.deepEqual((await ids()).sort(), [...first].sort());

    // Back to none, for the German page's single row.
    const device = page.locator(".edge-sidebar-device", { hasText: "lcd-board" }).first();
    await device.locator(".edge-sidebar-cancel-all").click();
    await page.waitForFunction(() => !document.querySelector(".edge-sidebar-wait"));
  });

  it("reveals the fleet node from its job's row", async function () {
    await revealsFromRow(
      FLEET_NODE,
      page.locator(".edge-sidebar-job", { hasText: "shift target 120" }),
    );
  });

  it("shows the tab in German", async function () {
    const de = await context.newPage();
    await de.setExtraHTTPHeaders({ "accept-language": "de-DE,de" });
    try {
      de.setDefaultTimeout(WAIT);
      await de.addInitScript(() => {
        Object.defineProperty(navigator, "language", { get: () => "de-DE" });
        Object.defineProperty(navigator, "languages", { get: () => ["de-DE", "de"] });
      });
      await de.goto(demo.editorUrl);
      await de.waitForSelector("#red-ui-palette-container-edge_device", { timeout: 60000 });
      // A second pending command, so that the German screenshot shows a row too.
      await inject("wartet auf das Gerät");
      await openTab(de);
      await de.locator(".edge-sidebar-wait", { hasText: "wartet auf das Gerät" }).waitFor();
      const text = await de.locator(".edge-sidebar").innerText();
      assert.match(text, /Ausstehende Befehle/);
      assert.match(text, /Beobachtete Streams/);
      assert.match(text, /Zustand/);
      assert.match(text, /Flottenaufträge/);
      assert.match(
        await de.locator(".edge-sidebar-job").first().innerText(),
        /läuft[\s\S]*Gesendet 12 \/ 12[\s\S]*10 erledigt · 1 Störung/,
      );
      await de.screenshot({ path: path.join(SHOTS, "sidebar-de.png") });
    } finally {
      await de.close();
    }
  });

  it("keeps the job's row with its end when the offline unit answers and the job ends", async function () {
    const job = page.locator(".edge-sidebar-job", { hasText: "shift target 120" });
    await job.waitFor();
    await control("PUT", "/devices/unit-009/online", { online: true });
    await page.waitForFunction(() =>
      /done: 11\/12 complete/.test(document.querySelector(".edge-sidebar-job")?.innerText ?? ""),
    );
    const text = await job.innerText();
    assert.match(text, /LCD text to 12 units · 12 devices · done: 11\/12 complete/);
    assert.match(text, /Ended \d/);
    assert.match(text, /11 complete · 1 fault/);
    assert.equal(await job.locator(".edge-sidebar-cancel-job").count(), 0);
  });

  it("shows an unnamed node by its canvas label, not its type", async function () {
    const job = page.locator(".edge-sidebar-job", { hasText: "shift target 120" });
    await job.waitFor();
    // The fleet node without its name, as a user leaves it: the canvas labels it by its devices.
    const canvas = await page.evaluate((id) => {
      const node = RED.nodes.node(id);
      node.name = "";
      return RED.utils.getNodeLabel(node, node.type);
    }, FLEET_NODE);
    assert.notEqual(canvas, "edge-fleet-command");
    try {
      await page.waitForFunction(
        (label) =>
          document.querySelector(".edge-sidebar-job .edge-sidebar-node")?.innerText === label,
        canvas,
      );
      assert.doesNotMatch(await job.innerText(), /edge-fleet-command/);
    } finally {
      await page.evaluate((id) => {
        RED.nodes.node(id).name = "LCD text to 12 units";
      }, FLEET_NODE);
    }
  });

  it("folds a second account's section to its heading and summary, and each heading folds its own", async function () {
    const headers = {
      "content-type": "application/json",
      "Node-RED-API-Version": "v2",
      "Node-RED-Deployment-Type": "nodes",
    };
    const flows = await (await fetch(`${demo.editorUrl}flows`, { headers })).json();
    const first = flows.flows.find((n) => n.type === "edge-account");
    flows.flows.push({ ...first, id: "e5a1c0d0000000ff", name: "second account" });
    const res = await fetch(`${demo.editorUrl}flows`, {
      method: "POST",
      headers,
      body: JSON.stringify(flows),
    });
    assert.equal(res.status, 200, await res.text());
    const second = page.locator(".edge-sidebar-account", { hasText: "second account" });
    await second.waitFor();
    const sections = page.locator(".edge-sidebar-account");
    assert.equal(await sections.count(), 2);
    // Folded by default below the first: its heading and one line, not a whole block.
    assert.equal(await second.getAttribute("data-folded"), "true");
    assert.equal(await second.locator(".edge-sidebar-health").count(), 0);
    assert.match(
      await second.locator(".edge-sidebar-summary").innerText(),
      /^0 pending · 0 watched · jobs running: 0$|^Not started/,
    );
    assert.equal(await sections.first().getAttribute("data-folded"), "false");
    await second.locator(".edge-sidebar-account-head").click();
    await page.waitForFunction(
      () =>
        document.querySelectorAll(".edge-sidebar-account")[1]?.getAttribute("data-folded") ===
        "false",
    );
    await sections.first().locator(".edge-sidebar-account-head").click();
    await page.waitForFunction(
      () =>
        document.querySelectorAll(".edge-sidebar-account")[0]?.getAttribute("data-folded") ===
        "true",
    );
    assert.equal(await sections.first().locator(".edge-sidebar-job").count(), 0);
    assert.match(await sections.first().locator(".edge-sidebar-summary").innerText(), /pending/);
  });

  it("should have logged no error in the browser console", function () {
    assert.deepEqual(browser.errors, []);
  });
});
