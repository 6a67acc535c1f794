// The editor of an `npm start` demo as the browser specs that share its steps drive it
// (browser.spec.js, try-it-browser.spec.js, import-browser.spec.js): each spec file opens a
// session of its own, a demo and a chromium page, so that mocha's parallel workers run the files
// side by side; the session holds what a user does in that editor that more than one of them needs
// (open and close a node's dialog, click an inject button, show a sidebar tab, every example's
// button answered in the debug sidebar) and waits for a deploy to reach the runtime.
"use strict";
/* global document, getComputedStyle -- these run inside the editor page */
const assert = require("node:assert/strict");
const { startDemo } = require("./demo");
const { openEditorPage, requireChromium, showTab } = require("./browser");
const { exampleNodes } = require("./examples");

/**
 * A session on the editor of a demo of its own: `open(ctx)` in a before hook (ctx the hook's this,
 * for requireChromium; `before(session.open)` passes it) starts the demo and the browser with the
 * examples deployed, `close()` in the after hook ends both. Until
 * then `demo`, `browser` (openEditorPage's: its errors and close()), `page` and `context` are
 * undefined. `wait` is the page's default timeout and how long a deploy may take to reach the
 * runtime. The functions read the session's page and demo when called: they can be taken apart.
 */
function editorSession({ wait = 15000 } = {}) {
  const session = {
    wait,
    /** The examples' nodes (support/examples.js), as the demo deploys them. */
    nodes: exampleNodes(),
    demo: undefined,
    browser: undefined,
    page: undefined,
    context: undefined,
  };

  session.open = async function (ctx = this) {
    requireChromium(ctx);
    session.demo = await startDemo();
    session.browser = await openEditorPage(session.demo.editorUrl, { wait });
    ({ page: session.page, context: session.context } = session.browser);
  };

  session.close = async () => {
    await session.browser?.close();
    await session.demo?.stop();
  };

  session.showTab = (label) => showTab(session.page, label);

  session.openEditor = async (node) => {
    const { page } = session;
    await session.showTab(node.tab);
    await page.locator(`[id="${node.id}"] rect.red-ui-flow-node`).dblclick();
    await page.waitForSelector("#node-dialog-ok", { state: "visible" });
    // Its buttons show while the tray still slides in: Node-RED then shows it and focuses its
    // first field (150 ms on). On Node-RED 5 text typed into a field before that was once found
    // in front of the node's own value ("pu" + "lcd-board"): type only into a dialog that is open.
    await page.waitForFunction(() => {
      const tray = [...document.querySelectorAll(".red-ui-tray")].at(-1);
      return (
        !!tray && tray.contains(document.activeElement) && getComputedStyle(tray).right === "0px"
      );
    });
  };

  session.closeEditor = async (button = "#node-dialog-cancel") => {
    await session.page.locator(button).click();
    await session.page.waitForSelector("#node-dialog-ok", { state: "detached" });
  };

  session.clickInject = async (name) => {
    const inject = session.nodes.find((n) => n.type === "inject" && n.name === name);
    await session.showTab(inject.tab);
    await session.page.locator(`[id="${inject.id}"] .red-ui-flow-node-button`).click();
  };

  /**
   * Shows a sidebar tab by its button, as a user does. Node-RED 4 has a bar of link buttons
   * (#red-ui-tab-<id>-link-button, its tab then .active), and a click always shows the tab.
   * Node-RED 5 rebuilt the sidebar into bars of icon buttons (button[data-tab-id="<id>"], .selected
   * while its tab shows), and a click on the button of a tab already showing hides it: the debug
   * tab shows from the start there, under the info tab. So the button is clicked only when its
   * tab is not showing.
   */
  session.showSidebar = async (name) => {
    const { page } = session;
    const v5 = `button[data-tab-id="${name}"]`;
    const showing = `#red-ui-tab-${name}.active, ${v5}.selected`;
    if ((await page.locator(showing).count()) === 0)
      await page.locator(`#red-ui-tab-${name}-link-button, ${v5}`).first().click();
    await page.waitForSelector(showing);
  };

  /** The debug sidebar's messages: the node each came from, and whether it is a warning. */
  session.debugShown = () =>
    session.page.evaluate(() =>
      [...document.querySelectorAll(".red-ui-debug-msg")].map((m) => ({
        name: (m.querySelector(".red-ui-debug-msg-name")?.textContent ?? "")
          .replace(/^node: /, "")
          .trim(),
        warning: m.classList.contains("red-ui-debug-msg-level-30"),
        text: m.innerText,
      })),
    );

  /**
   * Clicks every inject button of the examples, one at a time, each with the debug sidebar
   * cleared first; each must show exactly the messages that answer it, nothing else.
   */
  session.clickEveryButton = async () => {
    const { page } = session;
    // Each button, and the debug nodes (by name, a warning by its node's name) that answer it.
    const answers = [
      ["read", ["state"], /Hello/],
      ["replace: two lines", ["replaced state"], /Replaced/],
      ["merge: second line", ["merged state"], /merged at the second line/],
      ["text → complete", ["complete", "sent event"]],
      ["unknown resource → fault", ["fault", "sent event"]],
      // The warning example 02's comment announces: its ttl (10 s) is longer than 5 ms.
      ["5 ms wait → timed out", ["await its result (warning)", "sent event", "timed out"]],
      ["page by page", ["one page", "one page", "one page"]],
      ["all at once", ["all events"]],
      ["one per event", [...Array(5).fill("each event"), "joined"]],
      ["set LCD text", ["inbox events"]],
      ["text, ttl 5 s", ["complete"]],
      // Example 07: one message per unit of the fleet npm start runs, then the report.
      ["roll out: shift target", [...Array(12).fill("each device"), "report"]],
      ["dry run", ["report"]],
    ];
    const injects = session.nodes.filter((n) => n.type === "inject").map((n) => n.name);
    assert.deepEqual(answers.map((a) => a[0]).sort(), injects.sort(), "every inject button");

    for (const [button, expected, content] of answers) {
      await page.locator("#red-ui-sidebar-debug-clear").click();
      await page.waitForFunction(() => document.querySelectorAll(".red-ui-debug-msg").length === 0);
      await session.clickInject(button);
      await page
        .waitForFunction(
          (n) => document.querySelectorAll(".red-ui-debug-msg").length >= n,
          expected.length,
          { timeout: 60000 },
        )
        .catch(async (err) => {
          throw new Error(
            `${button}: ${JSON.stringify(await session.debugShown())}: ${err.message}`,
          );
        });
      // Longer than example 05's telemetry period (3 s): a message it still printed, or a late
      // second answer, would be in the sidebar by then.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const shown = await session.debugShown();
      assert.deepEqual(
        shown.map((m) => (m.warning ? `${m.name} (warning)` : m.name)).sort(),
        [...expected].sort(),
        `${button}: ${JSON.stringify(shown.map((m) => m.text))}`,
      );
      if (content) assert.match(shown.map((m) => m.text).join("\n"), content, button);
    }
  };

  /** Polls the admin API until `pick(flows)` finds something. */
  session.waitForFlows = async (pick) => {
    const deadline = Date.now() + wait;
    for (;;) {
      const flows = await fetch(`${session.demo.editorUrl}flows`).then((r) => r.json());
      const found = pick(flows);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("the deploy did not reach the runtime");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  return session;
}

module.exports = { editorSession };
