// The editor in a real browser (Debian's chromium through playwright-core), against what
// `npm start` runs: the palette, every edit dialog with its fields and help, an account created
// through its dialog, a deploy, and a click on an example's inject button answered by the
// simulator in the debug sidebar. Every button of the examples clicked in turn is
// try-it-browser.spec.js, and menu > Import > Examples of each example import-browser.spec.js:
// each a file of its own, so that mocha's parallel pass runs them beside this one. It takes its
// pictures into a temporary folder, so that a test run leaves the tree as it found it;
// `npm run screenshots` (scripts/screenshots.js) retakes the ones in docs/screenshots/.
"use strict";
/* global document, getComputedStyle, Image, RED, monaco -- these run inside the editor page */
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { startProxy } = require("../support/proxy");
const { tempDir } = require("../support/temp");
const { deployInEditor } = require("../support/browser");
const { editorSession } = require("../support/editor-page");
const { FLOW_TYPES } = require("../support/node-types");

const ROOT = path.join(__dirname, "..", "..");
const SHOTS = tempDir("edgewire-screenshots-");
const MODULE = require("../../package.json").name;
const WAIT = 15000;

const catalog = (type) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, "locales", "en-US", `${type}.json`), "utf8"));

/** The first paragraph of a node's help, as text: what the help sidebar shows first. */
function helpIntro(type) {
  const html = fs.readFileSync(path.join(ROOT, "locales", "en-US", `${type}.html`), "utf8");
  return /<p>([\s\S]*?)<\/p>/
    .exec(html)[1]
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function lookup(obj, key) {
  return key.split(".").reduce((o, k) => (o === undefined ? o : o[k]), obj);
}

describe("the editor in a browser", function () {
  this.timeout(180000);
  const session = editorSession({ wait: WAIT });
  const { nodes, showTab, openEditor, closeEditor, clickInject, showSidebar, waitForFlows } =
    session;
  let demo;
  let context;
  let page;
  /** The browser of openEditorPage (support/browser.js): its errors and close(). */
  let browser;
  let restricted;

  before(async function () {
    await session.open(this);
    ({ demo, browser, page, context } = session);
    fs.mkdirSync(SHOTS, { recursive: true });
  });

  after(async function () {
    await restricted?.close();
    await session.close();
  });

  const shot = (name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

  // A test that fails inside a dialog leaves its tray open, and the editor's shade then takes every
  // click of the tests after it (one failure once showed as seven): close what it left.
  afterEach(async function () {
    if (this.currentTest?.state !== "failed" || !page) return;
    await page
      .evaluate(async () => {
        for (let i = 0; i < 5 && document.querySelector(".red-ui-tray"); i++)
          await new Promise((resolve) => {
            RED.tray.close(resolve);
            setTimeout(resolve, 2000);
          });
      })
      .catch(() => {});
  });

  /** Clicks Test connection in the account dialog; the result under it must match `expected`. */
  async function testConnection(expected) {
    const result = page.locator("#node-config-edge-account-test-result");
    await page.locator("#node-config-edge-account-test").click();
    await page.waitForFunction(
      () =>
        !/^Testing|^$/.test(
          document.querySelector("#node-config-edge-account-test-result").innerText,
        ),
    );
    assert.match(await result.innerText(), expected);
  }

  async function showHelpFor(type) {
    await page.locator(".red-ui-tray-footer-left button:has(i.fa-book)").last().click();
    await page.waitForFunction(
      (text) =>
        (document.querySelector(".red-ui-sidebar-help-stack")?.innerText ?? "")
          .replace(/\s+/g, " ")
          .includes(text),
      helpIntro(type),
    );
    // Examples wrap in the sidebar: nothing in the help runs past its right edge.
    const wide = await page.evaluate(() => {
      const stack = document.querySelector(".red-ui-sidebar-help-stack");
      const right = stack.getBoundingClientRect().right;
      return [...stack.querySelectorAll("code, pre, p, dd")]
        .filter((el) => el.getBoundingClientRect().right > right + 1)
        .map((el) => el.textContent.slice(0, 60));
    });
    assert.deepEqual(wide, [], `${type}: help runs past the sidebar`);
  }

  /** Every data-i18n text in the open dialog is the en-US catalog's text, never a bare key. */
  async function checkTranslated(type, scope) {
    const cat = catalog(type);
    const shared = catalog("edge-account");
    const items = await page.locator(`${scope} [data-i18n]`).evaluateAll((els) =>
      els.map((el) => ({
        spec: el.getAttribute("data-i18n"),
        text: el.textContent,
        placeholder: el.getAttribute("placeholder"),
        title: el.getAttribute("title"),
      })),
    );
    let checked = 0;
    for (const item of items)
      for (const part of item.spec.split(";")) {
        // Node-RED puts the node set's namespace in front: "<module>/<type>:<key>".
        const m = /^(?:\[(\w+)\])?(?:[^:]*:)?(.+)$/.exec(part);
        const key = m[2];
        if (!key.startsWith("edge")) continue; // Node-RED's own parts of the tray
        const wanted = lookup(key.startsWith("edge.") ? shared : cat, key);
        assert.equal(typeof wanted, "string", `${type}: no catalog text for ${key}`);
        const shown = m[1] ? item[m[1]] : item.text;
        assert.equal(shown.trim(), wanted.trim(), `${type}: ${part}`);
        checked++;
      }
    assert.ok(checked >= 4, `${type}: only ${checked} translated texts`);
  }

  /** Every placeholder of the open dialog is shown whole: its text fits inside its field. */
  async function checkPlaceholdersFit(type) {
    const cut = await page.evaluate(() => {
      const canvas = document.createElement("canvas").getContext("2d");
      return [...document.querySelectorAll(".red-ui-tray input[placeholder]")]
        .filter((el) => el.offsetParent !== null && el.placeholder)
        .filter((el) => {
          const style = getComputedStyle(el);
          canvas.font = style.font;
          const room =
            el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return canvas.measureText(el.placeholder).width > room;
        })
        .map((el) => `${el.id}: "${el.placeholder}"`);
    });
    assert.deepEqual(cut, [], `${type}: placeholders cut off`);
  }

  it("should show the flow nodes in the edge device palette category with their icons", async function () {
    const header = page.locator("#red-ui-palette-header-edge_device");
    assert.equal((await header.innerText()).trim(), "edge device");
    for (const type of FLOW_TYPES) {
      const entry = page.locator(
        `#red-ui-palette-container-edge_device .red-ui-palette-node[data-palette-type="${type}"]`,
      );
      assert.equal(await entry.count(), 1, `${type} is not in the edge device category`);
      assert.equal(
        await entry.getAttribute("data-palette-label"),
        catalog(type)[type].paletteLabel,
      );
      const icon = await entry
        .locator(".red-ui-palette-icon-container")
        .getAttribute("data-palette-icon");
      assert.equal(icon, `icons/${MODULE}/${type}.svg`);
    }
    // The account is a config node: not in the palette, but registered with its own icon.
    const account = await page.evaluate(() => {
      const def = RED.nodes.getType("edge-account");
      return { category: def.category, icon: def.icon };
    });
    assert.deepEqual(account, { category: "config", icon: "edge-account.svg" });
    // Every icon loads as an image in the browser.
    const sizes = await page.evaluate(
      (urls) =>
        Promise.all(
          urls.map(
            (url) =>
              new Promise((resolve) => {
                const img = new Image();
                img.onload = () => resolve(img.naturalWidth);
                img.onerror = () => resolve(0);
                img.src = url;
              }),
          ),
        ),
      ["edge-account", ...FLOW_TYPES].map((t) => `icons/${MODULE}/${t}.svg`),
    );
    assert.ok(
      sizes.every((w) => w > 0),
      `icon widths ${sizes}`,
    );

    // The palette filtered to this package, beside the command example.
    const search = page.locator("#red-ui-palette-search input");
    await search.pressSequentially("edge");
    await page.waitForSelector("#red-ui-palette-container-common", { state: "hidden" });
    await showTab("Edge: command and result");
    await shot("editor");
    await search.fill("");
    await search.press("Backspace");
    await page.waitForSelector("#red-ui-palette-container-common", { state: "visible" });
  });

  /** The open dialog's store select lists the configured context stores, the default first. */
  async function checkStoreOptions() {
    const stores = await page
      .locator("#node-input-store option")
      .evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
    const context = await page.evaluate(() => RED.settings.context);
    assert.deepEqual(stores, [
      ["", `default store (${context.default})`],
      ...context.stores.map((name) => [name, name]),
    ]);
  }

  it("should open each node's edit dialog with its fields, catalog texts and help", async function () {
    const fields = {
      "edge-device-state": { device: "lcd-board", mode: "get" },
      "edge-send-command": { target: "device", device: "lcd-board", ttl: "10000" },
      "edge-list-events": { stream: "/demo/readings", mode: "page", limit: "2", start: "0" },
      "edge-await-command": { inbox: "", timeout: "", interval: "250", store: "" },
      "edge-watch-events": { stream: "/demo/telemetry", interval: "1000", start: "new", store: "" },
      "edge-fleet-command": {
        devices: Array.from(
          { length: 12 },
          (_, i) => `unit-0${String(i + 1).padStart(2, "0")}`,
        ).join("\n"),
        filter: "",
        rate: "5",
        concurrency: "4",
        maxFailures: "3",
        timeout: "5000",
        interval: "500",
        store: "",
      },
    };
    for (const type of FLOW_TYPES) {
      const node = nodes.find((n) => n.type === type);
      await openEditor(node);
      const account = await page.locator("#node-input-account").inputValue();
      assert.equal(account, node.account, `${type}: account`);
      for (const [field, value] of Object.entries(fields[type])) {
        const input = page.locator(`#node-input-${field}`);
        assert.equal(await input.inputValue(), value, `${type}: ${field}`);
      }
      assert.equal(await page.locator("#node-input-name").isVisible(), true);
      if (type === "edge-send-command")
        assert.match(await page.locator("#node-input-elems-editor").innerText(), /\{\{payload\}\}/);
      if (type === "edge-list-events")
        assert.equal(await page.locator("#node-input-maxEvents").isVisible(), false);
      if (type === "edge-await-command" || type === "edge-fleet-command") await checkStoreOptions();
      if (type === "edge-watch-events") {
        // Last only matters for start "last"; the store select lists the configured stores.
        assert.equal(await page.locator("#node-input-last").isVisible(), false);
        await page.locator("#node-input-start").selectOption("last");
        assert.equal(await page.locator("#node-input-last").inputValue(), "10");
        assert.equal(await page.locator("#node-input-last").isVisible(), true);
        await page.locator("#node-input-start").selectOption("new");
        await checkStoreOptions();
      }
      await checkTranslated(type, ".red-ui-tray");
      await checkPlaceholdersFit(type);
      await showHelpFor(type);
      await shot(`edit-${type}`);
      await closeEditor();
    }

    // The account, through the pencil beside a node's Account field.
    await openEditor(nodes.find((n) => n.type === "edge-device-state"));
    await page.locator("#node-input-btn-account-edit").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
    assert.equal(await page.locator("#node-config-input-baseUrl").inputValue(), demo.simUrl);
    assert.equal(await page.locator("#node-config-input-company").inputValue(), "demo");
    assert.equal(await page.locator("#node-config-input-user").inputValue(), "demo-user");
    // The token never reaches the browser: the field holds Node-RED's stand-in.
    assert.equal(await page.locator("#node-config-input-token").inputValue(), "__PWRD__");
    await checkTranslated("edge-account", ".red-ui-tray:last-child");
    await page.waitForFunction(
      (text) =>
        (document.querySelector(".red-ui-sidebar-help-stack")?.innerText ?? "")
          .replace(/\s+/g, " ")
          .includes(text),
      helpIntro("edge-account"),
    );
    await testConnection(/^Connected: the company demo answered/);
    await shot("edit-edge-account");
    await page.locator("#node-config-dialog-cancel").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
    await closeEditor();
  });

  it("should answer an example's inject click with the simulator's state in the debug sidebar", async function () {
    await showSidebar("debug");
    await clickInject("read");
    const message = page.locator(".red-ui-debug-msg").filter({ hasText: "state" }).last();
    await message.waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".red-ui-debug-msg")].some((m) =>
        /"Hello"|Hello/.test(m.innerText),
      ),
    );
  });

  it("should list every example under menu > Import > Examples, as the README's Try it says", async function () {
    await page.locator("#red-ui-header-button-sidemenu").click();
    await page.locator("#menu-item-import").click();
    await page.locator("#red-ui-tab-red-ui-clipboard-dialog-import-tab-examples").click();
    const tree = page.locator("#red-ui-clipboard-dialog-import-tab-examples");
    await tree.locator(".red-ui-treeList-label", { hasText: MODULE }).first().click();
    const files = fs
      .readdirSync(path.join(ROOT, "examples"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""))
      .sort();
    await page.waitForFunction(
      (name) =>
        [
          ...document.querySelectorAll(
            "#red-ui-clipboard-dialog-import-tab-examples .red-ui-treeList-label",
          ),
        ].some((l) => l.innerText.includes(name)),
      files[0],
    );
    const listed = await tree
      .locator(".red-ui-treeList-label")
      .evaluateAll((ls) => ls.map((l) => l.innerText.trim()));
    assert.deepEqual(
      listed.filter((l) => /^\d\d-/.test(l)),
      files,
    );
    await page.locator("#red-ui-clipboard-dialog-cancel").click();
    await page.waitForSelector("#red-ui-clipboard-dialog-cancel", { state: "hidden" });
  });

  /** Types `text` into a picker field; resolves with the texts of the completions offered. */
  async function offered(selector, text, expected) {
    const input = page.locator(selector);
    await input.fill("");
    await input.pressSequentially(text);
    // What the list is asked for: a field holding more than the text typed lists nothing.
    assert.equal(await input.inputValue(), text);
    await page.waitForFunction(
      (want) =>
        [...document.querySelectorAll(".red-ui-autoComplete-container li")].some((li) =>
          li.innerText.includes(want),
        ),
      expected,
      // The list comes from the runtime and the simulator: slow on a loaded machine.
      { timeout: 60000 },
    );
    return page
      .locator(".red-ui-autoComplete-container li")
      .evaluateAll((items) => items.map((li) => li.innerText.replace(/\s+/g, " ").trim()));
  }

  async function choose(value) {
    await page.locator(".red-ui-autoComplete-container li", { hasText: value }).first().click();
    await page.waitForSelector(".red-ui-autoComplete-container", { state: "detached" });
  }

  const hintOf = (selector) =>
    page
      .locator(selector)
      .locator("xpath=ancestor::div[contains(@class,'form-row')][1]")
      .locator(".edge-picker-hint");

  it("should pick the only account for a node dragged from the palette", async function () {
    const only = await page.evaluate(() => {
      const ids = [];
      RED.nodes.eachConfig((c) => {
        if (c.type === "edge-account") ids.push(c.id);
      });
      return ids;
    });
    assert.equal(only.length, 1, "the examples share one account");
    await showTab("Edge: device state");
    const before = await page.evaluate(() =>
      RED.nodes.filterNodes({ type: "edge-device-state" }).map((n) => n.id),
    );
    // Quick add, as a user does it: Ctrl-click on the workspace, type the node's name, Enter.
    const chart = await page.locator("#red-ui-workspace-chart").boundingBox();
    await page.keyboard.down("Control");
    await page.mouse.click(chart.x + 700, chart.y + 560);
    await page.keyboard.up("Control");
    const search = page.locator("#red-ui-type-search-input");
    await search.waitFor({ state: "visible" });
    await search.pressSequentially("device state");
    // Enter adds the first result: wait until the list is filtered down to it.
    await page.waitForFunction(() => {
      const first = [...document.querySelectorAll(".red-ui-search-results-container li")].find(
        (li) => li.offsetParent !== null,
      );
      return /^\s*device state/.test(first?.innerText ?? "");
    });
    await search.press("Enter");
    const added = await page.waitForFunction((known) => {
      const n = RED.nodes
        .filterNodes({ type: "edge-device-state" })
        .find((x) => !known.includes(x.id));
      return n && { id: n.id, account: n.account, valid: n.valid };
    }, before);
    const node = await added.jsonValue();
    assert.equal(node.account, only[0]);
    assert.equal(node.valid, true, "a new node with the only account is valid at once");
    await page.evaluate(() => RED.history.pop());
  });

  it("should offer the account's devices and streams in the Device, Stream and Inbox fields", async function () {
    const byType = (type) => nodes.find((n) => n.type === type);
    await openEditor(byType("edge-device-state"));
    const devices = await offered("#node-input-device", "pu", "pump-3");
    assert.deepEqual(devices, ["pump-3 d5f3c1a2b0000000000000003"]);
    await choose("pump-3");
    assert.equal(await page.locator("#node-input-device").inputValue(), "pump-3");
    // The search button lists every device, not only what is in the field, the current one
    // first and marked: another can be picked without clearing the field.
    const browseDevices = page
      .locator("#node-input-device")
      .locator("xpath=..")
      .locator(".edge-picker-browse");
    assert.equal(
      await browseDevices.getAttribute("title"),
      catalog("edge-account").edge.editor.browseDevices,
    );
    // In full CI runs this list twice failed to come within 60 s after one click, and never when
    // the spec runs alone; the cause is not found yet. A user would click again: so does the test,
    // at most three times, and what the list holds is asserted as before.
    const listed = () =>
      document.querySelectorAll(".red-ui-autoComplete-container li").length >= 3 &&
      [...document.querySelectorAll(".red-ui-autoComplete-container li")].some((li) =>
        li.innerText.includes("lcd-board"),
      );
    for (let attempt = 1; ; attempt++) {
      await browseDevices.click();
      try {
        await page.waitForFunction(listed, undefined, { timeout: 20000 });
        break;
      } catch (err) {
        // No Escape first: in an edit dialog it would cancel the dialog.
        if (attempt === 3) throw err;
      }
    }
    const all = await page.locator(".red-ui-autoComplete-container li").evaluateAll((items) =>
      items.map((li) => ({
        text: li.innerText.replace(/\s+/g, " ").trim(),
        current: !!li.querySelector(".edge-picker-current"),
      })),
    );
    // The seed's devices, oldest first, then the fleet npm start adds for example 07.
    const { DEMO_FLEET, fleetName } = require("../../dist/simulator");
    const fleet = Array.from({ length: DEMO_FLEET.devices }, (_, i) =>
      fleetName(i + 1, DEMO_FLEET.devices),
    );
    assert.deepEqual(
      all.map((i) => i.text.split(" ")[0]),
      ["pump-3", "lcd-board", "sensor-hub", ...fleet],
    );
    assert.deepEqual(
      all.map((i) => i.current),
      [true, ...Array(2 + fleet.length).fill(false)],
    );
    await choose("sensor-hub");
    assert.equal(await page.locator("#node-input-device").inputValue(), "sensor-hub");
    // Mustache and anything typed stay as typed: no list, no complaint.
    await page.locator("#node-input-device").fill("");
    await page.locator("#node-input-device").pressSequentially("{{payload.device}}");
    assert.equal(await page.locator(".red-ui-autoComplete-container").count(), 0);
    assert.equal(await hintOf("#node-input-device").isVisible(), false);
    assert.equal(await page.locator("#node-input-device").inputValue(), "{{payload.device}}");
    await closeEditor();

    await openEditor(byType("edge-list-events"));
    const browseTitle = (selector) =>
      page
        .locator(selector)
        .locator("xpath=..")
        .locator(".edge-picker-browse")
        .getAttribute("title");
    assert.equal(
      await browseTitle("#node-input-stream"),
      catalog("edge-account").edge.editor.browseStreams,
    );
    const streams = await offered("#node-input-stream", "sensor", "sensor-hub/:inbox");
    assert.deepEqual(streams, [
      "/demo/devices/sensor-hub/:command s5f3c1a2b0000000000000021",
      "/demo/devices/sensor-hub/:inbox s5f3c1a2b0000000000000022",
    ]);
    await choose("sensor-hub/:inbox");
    assert.equal(
      await page.locator("#node-input-stream").inputValue(),
      "/demo/devices/sensor-hub/:inbox",
    );
    // The search button lists everything, free streams too.
    await page.locator("#node-input-stream").fill("");
    await page
      .locator("#node-input-stream")
      .locator("xpath=..")
      .locator(".edge-picker-browse")
      .click();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll(".red-ui-autoComplete-container li")].some((li) =>
          li.innerText.includes("/demo/telemetry"),
        ),
      undefined,
      { timeout: 60000 },
    );
    await page.keyboard.press("Escape");
    await closeEditor();

    await openEditor(byType("edge-await-command"));
    assert.equal(
      await browseTitle("#node-input-inbox"),
      catalog("edge-account").edge.editor.browseInboxes,
    );
    assert.deepEqual(await offered("#node-input-inbox", "lcd", "lcd-board/:inbox"), [
      "/demo/devices/lcd-board/:inbox",
    ]);
    await page.keyboard.press("Escape");
    await closeEditor();

    await openEditor(byType("edge-send-command"));
    await page.locator("#node-input-target").selectOption("stream");
    assert.equal(
      await browseTitle("#node-input-stream"),
      catalog("edge-account").edge.editor.browseCommands,
    );
    assert.deepEqual(await offered("#node-input-stream", "pump", "pump-3/:command"), [
      "/demo/devices/pump-3/:command",
    ]);
    await page.keyboard.press("Escape");
    await closeEditor();
  });

  it("should say when the server lists no devices, and keep what is typed", async function () {
    const { startRestricted } = require("../support/restricted-server");
    restricted = await startRestricted(
      { url: demo.simUrl, company: "demo", user: "demo-user", token: "" },
      { noList: 404 },
    );
    await openEditor(nodes.find((n) => n.type === "edge-device-state"));
    await page.locator("#node-input-btn-account-add").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
    await page.locator("#node-config-input-name").fill("no device list");
    await page.locator("#node-config-input-baseUrl").fill(restricted.url);
    await page.locator("#node-config-input-company").fill("demo");
    await page.locator("#node-config-input-user").fill("demo-user");
    await page.locator("#node-config-input-token").fill("demo-token-0123456789abcdef");
    await page.locator("#node-config-dialog-ok").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
    const device = page.locator("#node-input-device");
    await device.fill("");
    await device.locator("xpath=..").locator(".edge-picker-browse").click();
    const hint = hintOf("#node-input-device");
    await hint.waitFor({ state: "visible", timeout: 60000 });
    assert.equal(await hint.innerText(), catalog("edge-account").edge.editor.unsupported);
    await device.pressSequentially("lcd-board");
    assert.equal(await device.inputValue(), "lcd-board");
    await closeEditor();
    // The account added for this test leaves the workspace again.
    await page.evaluate(() => {
      RED.nodes.eachConfig((c) => {
        if (c.type === "edge-account" && c.name === "no device list") RED.nodes.remove(c.id);
      });
      RED.view.redraw(true);
    });
  });

  /** Puts `value` in a field and resolves with the message its tooltip shows. */
  async function messageFor(selector, value) {
    const input = page.locator(selector);
    await input.fill(value);
    await input.dispatchEvent("change");
    assert.equal(
      await input.evaluate((el) => el.classList.contains("input-error")),
      true,
      `${selector} = "${value}" is not marked invalid`,
    );
    await page.mouse.move(1, 1);
    await input.hover();
    const tip = page.locator(".red-ui-popover-content").last();
    await tip.waitFor({ state: "visible" });
    const text = (await tip.innerText()).trim();
    await page.mouse.move(1, 1);
    await tip.waitFor({ state: "hidden" });
    return text;
  }

  /** A valid value clears the mark again. */
  async function validWith(selector, value) {
    const input = page.locator(selector);
    await input.fill(value);
    await input.dispatchEvent("change");
    assert.equal(await input.evaluate((el) => el.classList.contains("input-error")), false);
  }

  it("should refuse a mustache tag the runtime cannot read in the dialog, with mustache's own words", async function () {
    // `{{payload}` was valid until Deploy (issue 37): the dialog parses with the package's own
    // mustache, which the build serves beside the editor script.
    await openEditor(nodes.find((n) => n.type === "edge-send-command"));
    await page.locator("#node-input-target").selectOption("device");
    const said = await messageFor("#node-input-device", "pump-{{payload}");
    assert.match(said, /Unclosed tag at \d+/);
    await validWith("#node-input-device", "pump-{{payload}}");
    await closeEditor();
  });

  it("should say in every dialog what is wrong with a field, with the runtime's ranges", async function () {
    const settings = await fetch(`${demo.editorUrl}settings`).then((r) => r.json());
    const editor = catalog("edge-account").edge.editor;
    const rangeText = (type, field) => {
      const camel = type.replace(/-(\w)/g, (_m, c) => c.toUpperCase());
      const range = settings[`${camel}Ranges`][field];
      return editor.range
        .replace("__field__", catalog(type)[type].label[field])
        .replace("__min__", range.min)
        .replace("__max__", range.max);
    };
    const cases = {
      "edge-list-events": [
        ["limit", "0", "20"],
        ["start", "-1", ""],
        ["maxEvents", "0", ""],
      ],
      "edge-await-command": [
        ["timeout", "0", ""],
        ["interval", "10", "250"],
      ],
      "edge-send-command": [["ttl", "1.5", "10000"]],
      "edge-watch-events": [
        ["interval", "100", "1000"],
        ["last", "0", "10"],
      ],
    };
    for (const [type, fields] of Object.entries(cases)) {
      await openEditor(nodes.find((n) => n.type === type));
      if (type === "edge-list-events") await page.locator("#node-input-mode").selectOption("all");
      if (type === "edge-watch-events")
        await page.locator("#node-input-start").selectOption("last");
      for (const [field, bad, good] of fields) {
        assert.equal(
          await messageFor(`#node-input-${field}`, bad),
          rangeText(type, field),
          `${type}.${field}`,
        );
        await validWith(`#node-input-${field}`, good);
      }
      await closeEditor();
    }

    // The account: its limits, the URL, the company and the token.
    await openEditor(nodes.find((n) => n.type === "edge-device-state"));
    await page.locator("#node-input-btn-account-add").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
    await page.locator("#node-config-edge-account-limits-toggle").click();
    for (const [field, bad] of [
      ["timeout", "0"],
      ["retries", "11"],
      ["rate", "fast"],
      ["concurrency", "0"],
      ["queue", "-1"],
      ["maxPayload", "0"],
      ["maxAnswer", "0"],
    ]) {
      assert.equal(
        await messageFor(`#node-config-input-${field}`, bad),
        rangeText("edge-account", field),
        `edge-account.${field}`,
      );
      await validWith(`#node-config-input-${field}`, "");
    }
    assert.equal(await messageFor("#node-config-input-baseUrl", "ftp://x"), editor.baseUrl);
    await validWith("#node-config-input-baseUrl", "${EDGE_URL}");
    assert.equal(await messageFor("#node-config-input-company", "two words"), editor.company);
    assert.equal(await messageFor("#node-config-input-token", ""), editor.token);
    await validWith("#node-config-input-token", "${EDGE_TOKEN}");
    await page.locator("#node-config-dialog-cancel").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
    await closeEditor();
  });

  it("should check Elems as JSON once its mustache tags are filled, and close its editor cleanly", async function () {
    const send = nodes.find((n) => n.type === "edge-send-command");
    const problem = page.locator("#node-edge-elems-problem");
    // Typed through the code editor's own API, as its keyboard handling would.
    const setElems = (text) =>
      page.evaluate((t) => {
        const host = document.querySelector("#node-input-elems-editor");
        const editor = monaco.editor.getEditors().find((e) => host.contains(e.getDomNode()));
        editor.setValue(t);
      }, text);
    for (const close of ["#node-dialog-cancel", "#node-dialog-ok"]) {
      await openEditor(send);
      await setElems('{"/lcd/txt1": }');
      await problem.waitFor({ state: "visible" });
      assert.match(
        await problem.innerText(),
        /^Elems is not JSON once \{\{…\}\} tags are filled in: /,
      );
      await setElems("[1, 2]");
      await page.waitForFunction(() =>
        /JSON object/.test(document.querySelector("#node-edge-elems-problem").innerText),
      );
      // A bare tag stands for a value, a tag in a string for text: both are JSON once filled.
      await setElems('{"/lcd/txt1": "{{payload}}", "/app/period/value": {{payload.n}}}');
      await problem.waitFor({ state: "hidden" });
      await setElems('{"/lcd/txt1": "{{payload}}"}');
      await closeEditor(close);
    }
  });

  it("should keep every status of the examples short enough not to run under the next node", async function () {
    // The longest status texts the nodes show, with the largest values they meet.
    const worst = ["timed out, may still run", "10000 events from 1000", "connection refused"];
    const tabs = [...new Set(nodes.filter((n) => FLOW_TYPES.includes(n.type)).map((n) => n.z))];
    const crossing = [];
    for (const z of tabs) {
      // Switched through the editor's API: this test measures, it does not click around.
      await page.evaluate((id) => RED.workspaces.show(id), z);
      const ours = nodes.filter((n) => n.z === z && FLOW_TYPES.includes(n.type));
      const tab = ours[0].tab;
      await page.locator(`[id="${ours[0].id}"]`).waitFor();
      for (const text of worst) {
        await page.evaluate(
          ({ ids, text }) => {
            for (const id of ids) {
              const node = RED.nodes.node(id);
              node.status = { fill: "red", shape: "ring", text };
              node.dirtyStatus = true;
              node.dirty = true;
              RED.view.redrawStatus(node);
            }
            RED.view.redraw(true);
          },
          { ids: ours.map((n) => n.id), text },
        );
        const found = await page.evaluate(
          (ids) => {
            const boxes = [...document.querySelectorAll(".red-ui-flow-node-group")].map((g) => ({
              id: g.id,
              box: g.querySelector("rect.red-ui-flow-node").getBoundingClientRect(),
            }));
            const hits = [];
            let measured = 0;
            for (const id of ids) {
              const label = document.querySelector(`[id="${id}"] .red-ui-flow-node-status-label`);
              if (!label || !label.textContent) continue;
              measured++;
              const s = label.getBoundingClientRect();
              for (const other of boxes)
                if (
                  other.id !== id &&
                  s.right > other.box.left &&
                  s.left < other.box.right &&
                  s.bottom > other.box.top &&
                  s.top < other.box.bottom
                )
                  hits.push(`${id} under ${other.id}`);
            }
            return { hits, measured };
          },
          ours.map((n) => n.id),
        );
        assert.equal(found.measured, ours.length, `${tab}: statuses shown`);
        crossing.push(...found.hits.map((h) => `${tab}: "${text}": ${h}`));
      }
      await page.evaluate(
        (ids) => {
          for (const id of ids) {
            const node = RED.nodes.node(id);
            node.status = {};
            node.dirtyStatus = true;
            node.dirty = true;
            RED.view.redrawStatus(node);
          }
          RED.view.redraw(true);
        },
        ours.map((n) => n.id),
      );
    }
    assert.deepEqual(crossing, []);
  });

  it("should create an account through its dialog, deploy it and use it", async function () {
    const read = nodes.find((n) => n.type === "edge-device-state");
    await openEditor(read);
    await page.locator("#node-input-btn-account-add").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
    // The seed's second company, so that only the typed credentials can read its device.
    await page.locator("#node-config-input-name").fill("typed in the browser");
    await page.locator("#node-config-input-baseUrl").fill(demo.simUrl);
    await page.locator("#node-config-input-company").fill("other");
    await page.locator("#node-config-input-user").fill("other-user");
    await page.locator("#node-config-input-token").fill("other-token-fedcba9876543210");
    await testConnection(/^Connected: the company other answered/);
    await page.locator("#node-config-dialog-ok").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
    await page.locator("#node-input-device").fill("other-board");
    await closeEditor("#node-dialog-ok");

    await deployInEditor(page);
    const deployed = await waitForFlows((flows) =>
      flows.find((n) => n.type === "edge-account" && n.name === "typed in the browser"),
    );
    const creds = await fetch(`${demo.editorUrl}credentials/edge-account/${deployed.id}`).then(
      (r) => r.json(),
    );
    assert.deepEqual(creds, { user: "other-user", has_token: true });

    await showSidebar("debug");
    await page.locator("#red-ui-sidebar-debug-clear").click();
    await clickInject("read");
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".red-ui-debug-msg")].some((m) => /Other/.test(m.innerText)),
    );
  });

  it("should test an account through the http proxy node chosen in its Proxy field, and say so", async function () {
    const proxy = await startProxy();
    try {
      // An http proxy node as a user adds it for http request nodes, deployed.
      await page.evaluate((url) => {
        RED.nodes.import([{ id: "b0a7c0de00000031", type: "http proxy", name: "plant", url }]);
        RED.nodes.dirty(true);
      }, proxy.url);
      await deployInEditor(page);
      await waitForFlows((flows) => flows.find((n) => n.id === "b0a7c0de00000031"));
      const read = nodes.find((n) => n.type === "edge-device-state");
      await openEditor(read);
      await page.locator("#node-input-btn-account-add").click();
      await page.waitForSelector("#node-config-input-proxy", { state: "visible" });
      await page.locator("#node-config-input-baseUrl").fill(demo.simUrl);
      await page.locator("#node-config-input-company").fill("demo");
      await page.locator("#node-config-input-user").fill("demo-user");
      await page.locator("#node-config-input-token").fill("demo-token-0123456789abcdef");
      await page.locator("#node-config-input-proxy").selectOption("b0a7c0de00000031");
      await testConnection(
        new RegExp(`^Connected through proxy ${proxy.host}: the company demo answered`),
      );
      assert.ok(proxy.log.length >= 2, proxy.log.join("\n"));
      await page.locator("#node-config-dialog-cancel").click();
      await page.waitForSelector("#node-config-input-proxy", { state: "detached" });
      await closeEditor();
      // The tests after this one see the flows as they were.
      await page.evaluate(() => {
        RED.nodes.remove("b0a7c0de00000031");
        RED.nodes.dirty(true);
      });
      await deployInEditor(page);
      await waitForFlows((flows) => !flows.some((n) => n.id === "b0a7c0de00000031"));
    } finally {
      await proxy.close();
    }
  });

  it("should mark an account timeout over 2147483647 ms and a Max answer that is not a number as invalid", async function () {
    // Node.js fires a longer timer after 1 ms: every request would fail at once.
    const read = nodes.find((n) => n.type === "edge-device-state");
    await openEditor(read);
    await page.locator("#node-input-btn-account-add").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
    await page.locator("#node-config-edge-account-limits-toggle").click();
    const invalid = (id) => page.locator(id).evaluate((el) => el.classList.contains("input-error"));
    const timeout = page.locator("#node-config-input-timeout");
    await timeout.fill("2147483648");
    await timeout.dispatchEvent("change");
    assert.equal(await invalid("#node-config-input-timeout"), true);
    await timeout.fill("2147483647");
    await timeout.dispatchEvent("change");
    assert.equal(await invalid("#node-config-input-timeout"), false);
    const maxAnswer = page.locator("#node-config-input-maxAnswer");
    // Blank means the runtime's default, which the placeholder shows (from RED.settings).
    assert.equal(await maxAnswer.inputValue(), "");
    assert.equal(await maxAnswer.getAttribute("placeholder"), "8388608");
    await maxAnswer.fill("lots");
    await maxAnswer.dispatchEvent("change");
    assert.equal(await invalid("#node-config-input-maxAnswer"), true);
    await page.locator("#node-config-dialog-cancel").click();
    await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
    await closeEditor();
  });

  it("should show the edge devices tab from menu > View, as the README and the help say", async function () {
    await showSidebar("info");
    await page.locator("#red-ui-header-button-sidemenu").click();
    await page.locator("#menu-item-view-menu").hover();
    const item = page.locator("#menu-item-view-menu-edge-devices");
    assert.equal(
      (await item.innerText()).trim(),
      catalog("edge-account")["edge-account"].sidebar.title,
    );
    await item.click();
    // Node-RED 4 has one sidebar, #red-ui-sidebar-content; Node-RED 5 has sections, each a
    // .red-ui-sidebar-content.
    await page.waitForSelector(
      "#red-ui-sidebar-content .edge-sidebar, .red-ui-sidebar-content .edge-sidebar",
      { state: "visible" },
    );
    // Its icon is the chip the help names.
    assert.equal(
      await page.evaluate(() => document.querySelectorAll('[class*="fa-microchip"]').length > 0),
      true,
    );
    await showSidebar("debug");
  });

  it("should show a command's completion and the device's inbox in the debug sidebar", async function () {
    await page.locator("#red-ui-sidebar-debug-clear").click();
    await clickInject("set LCD text");
    const answer = page.locator(".red-ui-debug-msg").filter({ hasText: "inbox events" });
    await answer.waitFor();
    // Open the newest inbox event down to its marker, as a user would.
    await answer.locator(".red-ui-debug-msg-top-level > .red-ui-debug-msg-row").click();
    for (const key of ["0", "elems", "cmd"]) {
      const row = answer
        .locator(".red-ui-debug-msg-row.red-ui-debug-msg-expandable")
        .filter({ has: page.locator(":scope > .red-ui-debug-msg-object-key", { hasText: key }) })
        .first();
      await row.click();
    }
    await answer.getByText("COMMAND_COMPLETE").first().waitFor();
    await page.locator(".red-ui-notification").last().waitFor({ state: "detached" });
    await shot("debug-sidebar");
  });

  it("should show the palette category and the Test connection result in German", async function () {
    const german = await context.browser()?.newContext?.({ locale: "de-DE" });
    // A persistent context has no browser object: a second page with German headers does it.
    const de = german ? await german.newPage() : await context.newPage();
    if (!german) await de.setExtraHTTPHeaders({ "accept-language": "de-DE,de" });
    try {
      de.setDefaultTimeout(WAIT);
      await de.addInitScript(() => {
        Object.defineProperty(navigator, "language", { get: () => "de-DE" });
        Object.defineProperty(navigator, "languages", { get: () => ["de-DE", "de"] });
      });
      await de.goto(demo.editorUrl);
      await de.waitForSelector("#red-ui-palette-container-edge_device", { timeout: 60000 });
      assert.equal(
        (await de.locator("#red-ui-palette-header-edge_device").innerText()).trim(),
        "Edge-Geräte",
      );
      const read = nodes.find((n) => n.type === "edge-device-state");
      await de.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), read.id);
      await de.locator("#node-input-btn-account-edit").click();
      await de.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
      await de.locator("#node-config-edge-account-test").click();
      await de.waitForFunction(() =>
        /^Verbunden|^Fehlgeschlagen/.test(
          document.querySelector("#node-config-edge-account-test-result").innerText,
        ),
      );
      assert.match(
        await de.locator("#node-config-edge-account-test-result").innerText(),
        /^Verbunden: die Firma (demo|other) hat geantwortet \(\d+ ms\)\.$/,
      );
    } finally {
      await de.close();
      await german?.close();
    }
  });

  it("should have logged no error in the browser console", function () {
    assert.deepEqual(browser.errors, []);
  });
});
