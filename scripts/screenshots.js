#!/usr/bin/env node
// `npm run screenshots`: retakes every picture in docs/screenshots/ from what `npm start` shows, in
// Debian's Chromium through playwright-core (the browser specs' own set-up, test/support/), so that
// the docs show the package as it is after a change of the editor, the examples or the sidebar tab.
// It runs `npm start` on free ports in a fresh user directory, removed at the end; the pictures go
// to docs/screenshots/, or to the folder given with --out.
"use strict";
/* global document, getComputedStyle, RED -- these run inside the editor page */
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { startDemo } = require("../test/support/demo");
const { CHROMIUM, openEditorPage, showTab } = require("../test/support/browser");
const { exampleNodes } = require("../test/support/examples");
const { FLOW_TYPES } = require("../test/support/node-types");

const ROOT = path.resolve(__dirname, "..");
const WAIT = 60000;

function parseArgs(argv) {
  let out = path.join(ROOT, "docs", "screenshots");
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--out" && argv[i + 1]) out = path.resolve(argv[++i]);
    else throw new Error(`usage: npm run screenshots [-- --out <dir>]; unknown: ${argv[i]}`);
  }
  return { out };
}

/** What a user clicks in the editor of `page`, as the browser specs click it. */
function editor(page, nodes) {
  const node = (pick) => {
    const found = nodes.find(pick);
    if (!found) throw new Error("an example node the screenshots need is gone");
    return found;
  };
  return {
    node,
    async open(n) {
      await showTab(page, n.tab);
      await page.locator(`[id="${n.id}"] rect.red-ui-flow-node`).dblclick();
      await page.waitForSelector("#node-dialog-ok", { state: "visible" });
      // The tray slides in: wait until it stands, or the picture catches it moving.
      await page.waitForFunction(() => {
        const tray = [...document.querySelectorAll(".red-ui-tray")].at(-1);
        return !!tray && getComputedStyle(tray).right === "0px";
      });
    },
    async close() {
      await page.locator("#node-dialog-cancel").click();
      await page.waitForSelector("#node-dialog-ok", { state: "detached" });
    },
    async help() {
      await page.locator(".red-ui-tray-footer-left button:has(i.fa-book)").last().click();
      await page.waitForSelector(".red-ui-sidebar-help-stack h3", { state: "visible" });
    },
    async sidebar(id) {
      await page.evaluate((tab) => RED.sidebar.show(tab), id);
    },
    async inject(name) {
      const n = node((x) => x.type === "inject" && x.name === name);
      await showTab(page, n.tab);
      await page.locator(`[id="${n.id}"] .red-ui-flow-node-button`).click();
    },
    /** Waits until no notification is left over the picture. */
    async quiet() {
      await page.waitForFunction(() => !document.querySelector(".red-ui-notification"), null, {
        timeout: WAIT,
      });
    },
  };
}

/** The simulator's control interface of the demo. */
function control(demo, method, route, body) {
  return fetch(`${demo.simUrl}/_sim${route}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => {
    if (!r.ok) throw new Error(`${method} /_sim${route}: HTTP ${r.status}`);
  });
}

/** Clicks an example's inject button through the admin API with its properties replaced. */
async function injectWith(demo, id, props) {
  const res = await fetch(`${demo.editorUrl}inject/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      __user_inject_props__: Object.entries(props).map(([p, v]) => ({
        p,
        v: String(v),
        vt: typeof v === "number" ? "num" : "str",
      })),
    }),
  });
  if (res.status !== 200) throw new Error(`inject ${id}: HTTP ${res.status}`);
}

async function editorShots(page, ui, shot) {
  // The palette filtered to the package, beside the command example.
  await page.locator("#red-ui-palette-search input").pressSequentially("edge");
  await page.waitForSelector("#red-ui-palette-container-common", { state: "hidden" });
  await showTab(page, "Edge: command and result");
  await shot("editor");
  await page.locator("#red-ui-palette-search input").fill("");
  await page.locator("#red-ui-palette-search input").press("Backspace");

  for (const type of FLOW_TYPES) {
    await ui.open(ui.node((n) => n.type === type));
    await ui.help();
    await shot(`edit-${type}`);
    await ui.close();
  }

  // The account through the pencil beside a node's Account field, after Test connection.
  await ui.open(ui.node((n) => n.type === "edge-device-state"));
  await page.locator("#node-input-btn-account-edit").click();
  await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
  await page.locator("#node-config-edge-account-test").click();
  await page.waitForFunction(
    () =>
      /^Connected/.test(document.querySelector("#node-config-edge-account-test-result").innerText),
    null,
    { timeout: WAIT },
  );
  await shot("edit-edge-account");
  await page.locator("#node-config-dialog-cancel").click();
  await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
  await ui.close();
}

async function debugShot(page, ui, shot) {
  await ui.sidebar("debug");
  await page.locator("#red-ui-sidebar-debug-clear").click();
  await ui.inject("set LCD text");
  const answer = page.locator(".red-ui-debug-msg").filter({ hasText: "inbox events" });
  await answer.waitFor();
  // The newest inbox event opened down to its marker, as a user would.
  await answer.locator(".red-ui-debug-msg-top-level > .red-ui-debug-msg-row").click();
  for (const key of ["0", "elems", "cmd"])
    await answer
      .locator(".red-ui-debug-msg-row.red-ui-debug-msg-expandable")
      .filter({ has: page.locator(":scope > .red-ui-debug-msg-object-key", { hasText: key }) })
      .first()
      .click();
  await answer.getByText("COMMAND_COMPLETE").first().waitFor();
  await ui.quiet();
  await shot("debug-sidebar");
}

/**
 * The edge devices tab with something in each part: a command pending on the offline lcd-board
 * (example 02's, held ten minutes), example 05's telemetry watch, a 429 wait of the account and
 * example 07's fleet job, kept running by its offline unit's ten-minute timeout.
 */
async function sidebarShots(page, ui, shot, demo, context) {
  const nodes = exampleNodes();
  const sendInject = nodes.find((n) => n.type === "inject" && n.name === "text → complete").id;
  const fleetInject = nodes.find((n) => n.type === "inject" && n.name === "roll out: shift target");
  const held = (text) =>
    injectWith(demo, sendInject, { payload: text, timeout: 600000, ttl: 600000 });
  await control(demo, "PUT", "/devices/lcd-board/online", { online: false });
  await held("pending on an offline board");
  await injectWith(demo, fleetInject.id, {
    payload: "Shift target 120",
    job: "shift target 120",
    timeout: 600000,
  });
  await control(demo, "POST", "/faults", { method: "GET", status: 429, retryAfter: "1", count: 3 });
  await ui.sidebar("edge-devices");
  await page.locator(".edge-sidebar").getByText("pending on an offline board").waitFor();
  await page.waitForFunction(
    () => {
      const text = document.querySelector(".edge-sidebar")?.innerText ?? "";
      return /10 complete/.test(text) && /1 fault/.test(text) && /429/.test(text);
    },
    null,
    { timeout: WAIT },
  );
  await shot("sidebar");

  // Where to find it: menu > View lists the tab by its name.
  await ui.sidebar("info");
  await page.locator("#red-ui-header-button-sidemenu").click();
  await page.locator("#menu-item-view-menu").hover();
  await page.locator("#menu-item-view-menu-edge-devices").waitFor();
  await shot("view-menu");
  await page.keyboard.press("Escape");
  await page.mouse.click(700, 600);

  const de = await context.newPage();
  try {
    de.setDefaultTimeout(WAIT);
    await de.setExtraHTTPHeaders({ "accept-language": "de-DE,de" });
    await de.addInitScript(() => {
      Object.defineProperty(navigator, "language", { get: () => "de-DE" });
      Object.defineProperty(navigator, "languages", { get: () => ["de-DE", "de"] });
    });
    await de.goto(demo.editorUrl);
    await de.waitForSelector("#red-ui-palette-container-edge_device", { timeout: 60000 });
    await held("wartet auf das Gerät");
    await de.evaluate(() => RED.sidebar.show("edge-devices"));
    await de.locator(".edge-sidebar").getByText("wartet auf das Gerät").waitFor();
    await de.screenshot({ path: shot.path("sidebar-de") });
  } finally {
    await de.close();
  }
}

async function main() {
  const { out } = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set EDGE_CHROMIUM`);
  fs.mkdirSync(out, { recursive: true });
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-screenshots-"));
  let demo;
  let browser;
  try {
    demo = await startDemo({ userDir });
    browser = await openEditorPage(demo.editorUrl, { wait: WAIT });
    const { page, context } = browser;
    const shot = async (name) => {
      await page.screenshot({ path: shot.path(name) });
      console.log(`  ${path.relative(process.cwd(), shot.path(name))}`);
    };
    shot.path = (name) => path.join(out, `${name}.png`);
    const ui = editor(page, exampleNodes());
    await editorShots(page, ui, shot);
    await debugShot(page, ui, shot);
    await sidebarShots(page, ui, shot, demo, context);
    console.log(`  ${path.relative(process.cwd(), shot.path("sidebar-de"))}`);
    if (browser.errors.length)
      throw new Error(`the editor logged errors:\n${browser.errors.join("\n")}`);
  } finally {
    await browser?.close();
    await demo?.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`npm run screenshots: ${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
  },
);
