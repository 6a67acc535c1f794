// The README's Try it word for word in a real browser (Debian's chromium through playwright-core):
// on an empty workspace of what `npm start` runs, menu > Import > Examples of each example, the
// demo account set up once, one Deploy, then every inject button answered in the debug sidebar as
// the examples `npm start` deploys answer it. A file of its own, with a demo of its own, so that
// mocha's parallel pass runs it beside the other browser specs: it waits 4 s after each of the 13
// buttons, over a minute with the imports, and in browser.spec.js it and the Try-it test kept one
// worker busy for about 200 s.
"use strict";
/* global document, RED -- these run inside the editor page */
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { deployInEditor } = require("../support/browser");
const { editorSession } = require("../support/editor-page");

const ROOT = path.join(__dirname, "..", "..");
const MODULE = require("../../package.json").name;

describe("the editor in a browser: menu > Import > Examples", function () {
  this.timeout(180000);
  const session = editorSession();
  const { nodes, openEditor, closeEditor, showSidebar, clickEveryButton, waitForFlows } = session;
  before(session.open);
  after(session.close);

  /**
   * menu > Import > Examples > this package > `name` > Import. From the second example on,
   * Node-RED says that some of the nodes already exist (the account the examples share): View
   * nodes..., untick the account so that the one set up stays, Import selected.
   */
  async function importExample(name, accountId) {
    const { page } = session;
    await page.locator("#red-ui-header-button-sidemenu").click();
    await page.locator("#menu-item-import").click();
    await page.locator("#red-ui-tab-red-ui-clipboard-dialog-import-tab-examples").click();
    const tree = page.locator("#red-ui-clipboard-dialog-import-tab-examples");
    const item = tree.locator(".red-ui-treeList-label", { hasText: name });
    if (!(await item.count()))
      await tree.locator(".red-ui-treeList-label", { hasText: MODULE }).first().click();
    // The editor fetches the example when it is chosen and enables Import once it has it; on a
    // loaded machine a click on the tree as it still opens was once lost (Import stayed disabled
    // for 15 s): chosen again, up to three times.
    const ok = page.locator("#red-ui-clipboard-dialog-ok");
    for (let tries = 0; tries < 3 && !(await ok.isEnabled()); tries++) {
      await item.first().click();
      await page
        .waitForFunction(
          () => document.querySelector("#red-ui-clipboard-dialog-ok")?.disabled === false,
          null,
          { timeout: 10000 },
        )
        .catch(() => undefined);
    }
    await ok.click();
    const flow = JSON.parse(fs.readFileSync(path.join(ROOT, "examples", `${name}.json`), "utf8"));
    const tab = flow.find((n) => n.type === "tab").id;
    const viewNodes = page.locator(".red-ui-notification button", { hasText: "View nodes" });
    await page.waitForFunction(
      (id) =>
        !!RED.nodes.workspace(id) ||
        [...document.querySelectorAll(".red-ui-notification button")].some((b) =>
          b.innerText.includes("View nodes"),
        ),
      tab,
    );
    if (await viewNodes.count()) {
      await viewNodes.click();
      const box = page.locator(
        `#red-ui-clipboard-dialog-import-conflicts-list input[type="checkbox"][data-node-id="${accountId}"]`,
      );
      // The first box says whether to import the node, the second whether to replace it. The
      // README says to leave the account as Node-RED shows it, unticked: ticked, it would come in
      // as a copy with a new id and no token.
      await box.first().waitFor({ state: "attached" });
      assert.equal(await box.first().isChecked(), false, "the existing account is offered ticked");
      await page.locator("#red-ui-clipboard-dialog-import-conflict").click();
    }
    await page.waitForFunction((id) => !!RED.nodes.workspace(id), tab);
  }

  it("should answer every button the same after menu > Import > Examples of each example and one Deploy", async function () {
    // The README's Try it word for word on an empty workspace of the npm start set-up: import
    // each example, enter the demo token once (and the Base URL: this simulator is not on 8686),
    // Deploy, click. The simulator goes back to its seed first, as a fresh start would have it.
    const { page, demo } = session;
    const deployed = await fetch(`${demo.editorUrl}flows`, {
      method: "POST",
      headers: { "content-type": "application/json", "node-red-deployment-type": "full" },
      body: "[]",
    });
    assert.equal(deployed.status < 300, true, `emptying the flows: ${deployed.status}`);
    assert.equal((await fetch(`${demo.simUrl}/_sim/reset`, { method: "POST" })).status, 200);
    await page.reload();
    await page.waitForSelector("#red-ui-palette-container-edge_device", { timeout: 60000 });

    const account = nodes.find((n) => n.type === "edge-account");
    const files = fs
      .readdirSync(path.join(ROOT, "examples"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""))
      .sort();
    for (const [i, name] of files.entries()) {
      await importExample(name, account.id);
      if (i > 0) continue;
      await openEditor(nodes.find((n) => n.type === "edge-device-state"));
      await page.locator("#node-input-btn-account-edit").click();
      await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
      await page.locator("#node-config-input-baseUrl").fill(demo.simUrl);
      await page.locator("#node-config-input-user").fill("demo-user");
      await page.locator("#node-config-input-token").fill("demo-token-0123456789abcdef");
      await page.locator("#node-config-dialog-ok").click();
      await page.waitForSelector("#node-config-input-baseUrl", { state: "detached" });
      await closeEditor("#node-dialog-ok");
    }
    const accounts = await page.evaluate(() => {
      const ids = [];
      RED.nodes.eachConfig((c) => {
        if (c.type === "edge-account") ids.push(c.id);
      });
      return ids;
    });
    assert.deepEqual(accounts, [account.id], "the examples share the one account set up");

    await deployInEditor(page);
    await waitForFlows(
      (flows) => flows.filter((n) => n.type === "tab").length >= files.length && flows,
    );
    await showSidebar("debug");
    await clickEveryButton();
  });

  it("should have logged no error in the browser console", function () {
    assert.deepEqual(session.browser.errors, []);
  });
});
