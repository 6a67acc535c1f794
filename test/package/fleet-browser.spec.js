// The fleet command's dialog in a real browser (Debian's chromium through playwright-core) against
// what `npm start` runs: the palette entry, a node added by quick add, several devices picked into
// its Devices list with the picker (typed and from the search button, by comma and by line), the
// rollout fields checked with the runtime's ranges and set, a deploy, and the properties the
// runtime then holds.
"use strict";
/* global document, Image, RED, monaco -- these run inside the editor page */
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { startDemo } = require("../support/demo");
const {
  deployInEditor,
  openEditorPage,
  requireChromium,
  showTab: showBrowserTab,
} = require("../support/browser");

const ROOT = path.join(__dirname, "..", "..");
const MODULE = require("../../package.json").name;
const TYPE = "edge-fleet-command";
const TAB = "Edge: fleet command rollout";

const catalog = (type) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, "locales", "en-US", `${type}.json`), "utf8"));

describe("the fleet command's dialog in a browser", function () {
  this.timeout(180000);
  let demo;
  let browser;
  let page;

  before(async function () {
    requireChromium(this);
    demo = await startDemo();
    browser = await openEditorPage(demo.editorUrl);
    page = browser.page;
  });

  after(async function () {
    await browser?.close();
    await demo?.stop();
  });

  const showTab = (label) => showBrowserTab(page, label);

  /**
   * Waits until the list offers exactly these devices, in this order: each key typed starts a
   * search, and the lists of the shorter texts typed before may show first.
   */
  const offersExactly = (names) =>
    page.waitForFunction(
      (want) =>
        JSON.stringify(
          [...document.querySelectorAll(".red-ui-autoComplete-container li")].map(
            (li) => li.innerText.trim().split(/\s/)[0],
          ),
        ) === JSON.stringify(want),
      names,
      { timeout: 60000 },
    );

  /** Waits until the list offers an entry holding `text` (it comes from the simulator). */
  const offers = (text) =>
    page.waitForFunction(
      (want) =>
        [...document.querySelectorAll(".red-ui-autoComplete-container li")].some((li) =>
          li.innerText.includes(want),
        ),
      text,
      { timeout: 60000 },
    );

  async function choose(value) {
    // The entry whose name is the value (its text runs on into the device's id).
    await page
      .locator(".red-ui-autoComplete-container li")
      .filter({ has: page.getByText(value, { exact: true }) })
      .first()
      .click();
    await page.waitForSelector(".red-ui-autoComplete-container", { state: "detached" });
  }

  /**
   * Types at the end of the Devices field, as a user adding to the list does. The caret is put
   * there without a key: any key but Enter, Tab, Escape and Delete starts a search, and Enter
   * with a list open takes its first entry instead of starting a new line.
   */
  async function typeAtEnd(text) {
    const devices = page.locator("#node-input-devices");
    await devices.evaluate((el) => {
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    });
    await devices.pressSequentially(text);
  }

  /** Clicks the search button of the Devices field until its list shows `text` (at most 3). */
  async function browseFor(text) {
    const button = page
      .locator("#node-input-devices")
      .locator("xpath=..")
      .locator(".edge-picker-browse");
    for (let attempt = 1; ; attempt++) {
      await button.click();
      try {
        await offers(text);
        return;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  }

  it("should show the fleet command in the edge device palette with its label and icon", async function () {
    const entry = page.locator(
      `#red-ui-palette-container-edge_device .red-ui-palette-node[data-palette-type="${TYPE}"]`,
    );
    assert.equal(await entry.count(), 1);
    assert.equal(await entry.getAttribute("data-palette-label"), catalog(TYPE)[TYPE].paletteLabel);
    const icon = `icons/${MODULE}/${TYPE}.svg`;
    assert.equal(
      await entry.locator(".red-ui-palette-icon-container").getAttribute("data-palette-icon"),
      icon,
    );
    const width = await page.evaluate(
      (url) =>
        new Promise((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve(0);
          img.src = url;
        }),
      icon,
    );
    assert.ok(width > 0, "the icon does not load");
  });

  it("should pick several devices, set the rollout, deploy and keep every property", async function () {
    const texts = catalog(TYPE)[TYPE];
    const editor = catalog("edge-account").edge.editor;
    await showTab(TAB);
    const known = await page.evaluate(
      (type) => RED.nodes.filterNodes({ type }).map((n) => n.id),
      TYPE,
    );
    // Quick add, as a user does it: Ctrl-click on the workspace, type the node's name, Enter.
    const chart = await page.locator("#red-ui-workspace-chart").boundingBox();
    await page.keyboard.down("Control");
    await page.mouse.click(chart.x + 700, chart.y + 500);
    await page.keyboard.up("Control");
    const search = page.locator("#red-ui-type-search-input");
    await search.waitFor({ state: "visible" });
    await search.pressSequentially(texts.paletteLabel);
    await page.waitForFunction((label) => {
      const first = [...document.querySelectorAll(".red-ui-search-results-container li")].find(
        (li) => li.offsetParent !== null,
      );
      return (first?.innerText ?? "").trim().startsWith(label);
    }, texts.paletteLabel);
    await search.press("Enter");
    const added = await page.waitForFunction(
      ({ type, before }) => {
        const n = RED.nodes.filterNodes({ type }).find((x) => !before.includes(x.id));
        return n && { id: n.id, account: n.account };
      },
      { type: TYPE, before: known },
    );
    const node = await added.jsonValue();
    const account = await page.evaluate(() => {
      const ids = [];
      RED.nodes.eachConfig((c) => {
        if (c.type === "edge-account") ids.push(c.id);
      });
      return ids;
    });
    assert.deepEqual([node.account], account, "the only account is picked");

    await page.locator(`[id="${node.id}"] rect.red-ui-flow-node`).dblclick();
    await page.waitForSelector("#node-dialog-ok", { state: "visible" });
    const devices = page.locator("#node-input-devices");
    assert.equal(await devices.evaluate((el) => el.tagName), "TEXTAREA");
    assert.equal(await devices.getAttribute("placeholder"), texts.placeholder.devices);
    assert.equal(
      await devices.locator("xpath=..").locator(".edge-picker-browse").getAttribute("title"),
      editor.browseDevicesMany,
    );
    // The defaults the dialog shows: rate 5, 10 in flight, never stop.
    assert.deepEqual(
      [
        await page.locator("#node-input-rate").inputValue(),
        await page.locator("#node-input-concurrency").inputValue(),
        await page.locator("#node-input-maxFailures").inputValue(),
      ],
      ["5", "10", "0"],
    );

    // Typing searches the entry being typed: the fleet's first nine, not the seed's devices.
    await typeAtEnd("unit-00");
    await offersExactly(Array.from({ length: 9 }, (_, i) => `unit-00${i + 1}`));
    await choose("unit-002");
    assert.equal(await devices.inputValue(), "unit-002");
    // After a comma, only the new entry is searched and replaced by the pick.
    await typeAtEnd(", unit-01");
    await offersExactly(["unit-010", "unit-011", "unit-012"]);
    await choose("unit-011");
    assert.equal(await devices.inputValue(), "unit-002, unit-011");
    // The search button lists every device, those already listed marked and last; a pick is
    // added after the last entry.
    await browseFor("lcd-board");
    const all = await page.locator(".red-ui-autoComplete-container li").evaluateAll((items) =>
      items.map((li) => ({
        name: li.innerText.trim().split(/\s/)[0],
        marked: !!li.querySelector(".edge-picker-current"),
      })),
    );
    assert.deepEqual(
      all.filter((i) => i.marked).map((i) => i.name),
      ["unit-002", "unit-011"],
    );
    assert.deepEqual(
      all.slice(-2).map((i) => i.name),
      ["unit-002", "unit-011"],
    );
    assert.equal(all.length, 15, "the seed's three devices and the fleet's twelve");
    await choose("lcd-board");
    assert.equal(await devices.inputValue(), "unit-002, unit-011, lcd-board");
    // One already listed stays listed once.
    await browseFor("unit-011");
    await choose("unit-011");
    assert.equal(await devices.inputValue(), "unit-002, unit-011, lcd-board");
    // A new line separates entries as a comma does.
    await typeAtEnd("\nsensor");
    await offersExactly(["sensor-hub"]);
    await choose("sensor-hub");
    assert.equal(await devices.inputValue(), "unit-002, unit-011, lcd-board\nsensor-hub");
    // Mustache in the entry being typed lists nothing and stays as typed.
    await typeAtEnd(", {{payload.extra}}");
    await page.waitForSelector(".red-ui-autoComplete-container", { state: "detached" });
    assert.equal(
      await devices.inputValue(),
      "unit-002, unit-011, lcd-board\nsensor-hub, {{payload.extra}}",
    );
    await devices.fill("unit-002, unit-011, lcd-board\nsensor-hub");

    // The rollout fields refuse what is not a whole number in the runtime's range.
    for (const field of ["rate", "concurrency", "maxFailures"]) {
      const input = page.locator(`#node-input-${field}`);
      await input.fill("1.5");
      await input.dispatchEvent("change");
      assert.equal(
        await input.evaluate((el) => el.classList.contains("input-error")),
        true,
        `${field} = 1.5 is not marked invalid`,
      );
    }
    for (const [field, value] of [
      ["rate", "2"],
      ["concurrency", "3"],
      ["maxFailures", "1"],
      ["timeout", "4000"],
      ["filter", 'name=="pump-3"'],
      ["name", "rollout from the browser"],
    ]) {
      const input = page.locator(`#node-input-${field}`);
      await input.fill(value);
      await input.dispatchEvent("change");
      assert.equal(await input.evaluate((el) => el.classList.contains("input-error")), false);
    }
    await page.evaluate((t) => {
      const host = document.querySelector("#node-input-elems-editor");
      monaco.editor
        .getEditors()
        .find((e) => host.contains(e.getDomNode()))
        .setValue(t);
    }, '{"/lcd/txt1": "{{payload}}"}');
    await page.locator("#node-dialog-ok").click();
    await page.waitForSelector("#node-dialog-ok", { state: "detached" });

    await deployInEditor(page);
    const deadline = Date.now() + 30000;
    let saved;
    while (!saved) {
      const flows = await fetch(`${demo.editorUrl}flows`).then((r) => r.json());
      saved = flows.find((n) => n.id === node.id);
      if (!saved && Date.now() > deadline) throw new Error("the deploy did not reach the runtime");
      if (!saved) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(saved.account, node.account);
    assert.equal(saved.name, "rollout from the browser");
    assert.equal(saved.devices, "unit-002, unit-011, lcd-board\nsensor-hub");
    assert.equal(saved.filter, 'name=="pump-3"');
    assert.equal(saved.elems, '{"/lcd/txt1": "{{payload}}"}');
    assert.deepEqual(
      [saved.rate, saved.concurrency, saved.maxFailures, saved.timeout].map(String),
      ["2", "3", "1", "4000"],
    );
    assert.equal(String(saved.interval), "1000");
    assert.equal(saved.store, "");
    // Named, the node shows its name; without one, the first device and how many more.
    const label = await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      const def = RED.nodes.getType(n.type);
      return def.label.call({ ...n, name: "" });
    }, node.id);
    assert.equal(label, "unit-002 +3");
  });

  it("should have logged no error in the browser console", function () {
    assert.deepEqual(browser.errors, []);
  });
});
