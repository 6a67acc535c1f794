// The editor of an `npm start` demo in Debian's chromium through playwright-core, for the browser
// specs: launched headless in a fresh profile, every console error and page error recorded, and
// the editor loaded with the package's palette category shown. Without chromium the calling spec
// is skipped, or fails with EDGE_REQUIRE_BROWSER=1.
/* global RED -- showTab runs its callback inside the editor page */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const CHROMIUM = process.env.EDGE_CHROMIUM || "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Skips the mocha context `ctx` (a before hook's this) when there is no chromium to run. */
function requireChromium(ctx) {
  if (fs.existsSync(CHROMIUM)) return;
  const why =
    `no chromium at ${CHROMIUM}: install it (Debian: apt-get install chromium) or set ` +
    "EDGE_CHROMIUM to a Chromium binary";
  if (process.env.EDGE_REQUIRE_BROWSER === "1") throw new Error(why);
  console.log(`      skipped: ${why}; set EDGE_REQUIRE_BROWSER=1 to make this an error`);
  ctx.skip();
}

/**
 * Opens `url` (the demo's editor) in a new headless chromium; resolves with {page, context,
 * errors, close()}, `errors` collecting what the page logs as an error or throws, `context` for
 * more pages of the same browser. With `login` ({username, password}) the user logs in through
 * the editor's own dialog first (a Node-RED with adminAuth).
 */
async function openEditorPage(url, { wait = 15000, locale = "en-US", login } = {}) {
  const { chromium } = require("playwright-core");
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "edgewire-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1600, height: 900 },
    locale,
  });
  const errors = [];
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(wait);
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (err) => errors.push(String(err)));
    // Long enough for a loaded machine: the editor loads some MB of scripts.
    await page.goto(url, { timeout: 60000 });
    if (login) {
      await page.locator("#node-dialog-login-username").fill(login.username, { timeout: 60000 });
      await page.locator("#node-dialog-login-password").fill(login.password);
      await page.locator("#node-dialog-login-submit").click();
    }
    await page.waitForSelector("#red-ui-palette-container-edge_device", { timeout: 60000 });
    // Node-RED's editor asks for its settings before the login and is answered 401: that is how
    // it knows to show the dialog, and no error of the page.
    if (login) errors.splice(0, errors.length, ...errors.filter((e) => !/status of 401/.test(e)));
    return { page, context, errors, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Shows the flow tab named `label` in the editor of `page`. Through the editor's own API: a second
 * click on the active tab within the double-click time opens the flow's dialog, whose shade then
 * blocked every later click.
 */
async function showTab(page, label) {
  const active = `#red-ui-workspace-tabs li.active[flowname="${label}"]`;
  if (await page.locator(active).count()) return;
  await page.evaluate((name) => {
    let id;
    RED.nodes.eachWorkspace((ws) => {
      if (ws.label === name) id = ws.id;
    });
    RED.workspaces.show(id);
  }, label);
  await page.waitForSelector(active);
}

/**
 * Clicks Deploy as a person does, once the editor has enabled the button, and waits for the
 * editor's POST of the flows to be answered. A click made while the button was still disabled
 * (the dialog just closed, the change not yet counted) did nothing, and a spec waited 20 s for a
 * deploy that never went out (typed-elems-browser.spec.js in CI, beside the other e2e specs).
 */
async function deployInEditor(page, timeout = 30_000) {
  await page.waitForSelector("#red-ui-header-button-deploy:not(.disabled)", { timeout });
  const answered = page.waitForResponse(
    (r) => r.request().method() === "POST" && new URL(r.url()).pathname.endsWith("/flows"),
    { timeout },
  );
  await page.locator("#red-ui-header-button-deploy").click();
  const response = await answered;
  if (!response.ok()) throw new Error(`the editor's deploy was answered ${response.status()}`);
}

module.exports = { CHROMIUM, requireChromium, openEditorPage, showTab, deployInEditor };
