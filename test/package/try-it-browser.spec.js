// The README's Try it in a real browser (Debian's chromium through playwright-core), against what
// `npm start` runs: every inject button of the examples clicked in turn, each answered in the
// debug sidebar with exactly its messages, and example 05's telemetry turned on from its debug
// node. A file of its own, with a demo of its own, so that mocha's parallel pass runs it beside
// the other browser specs: it waits 4 s after each of the 13 buttons, about a minute, and in
// browser.spec.js it and the Import > Examples test kept one worker busy for about 200 s.
"use strict";
/* global document -- these run inside the editor page */
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { editorSession } = require("../support/editor-page");

const ROOT = path.join(__dirname, "..", "..");

describe("the editor in a browser: every button of the Try-it examples", function () {
  this.timeout(180000);
  const session = editorSession();
  const { nodes, showTab, showSidebar, clickEveryButton } = session;
  before(session.open);
  after(session.close);

  /** The seed's events of a stream in the simulator, read through its control interface. */
  const streamCount = async (streamPath) => {
    const res = await fetch(
      `${session.demo.simUrl}/_sim/streams?path=${encodeURIComponent(streamPath)}`,
    );
    const { count } = await res.json();
    assert.equal(typeof count, "number", `no count for ${streamPath}`);
    return count;
  };

  it("should answer each inject button of the Try-it examples in the debug sidebar with exactly its answer", async function () {
    // The README's Try it on the npm start set-up: every example is deployed on its own tab,
    // example 05 runs from the start (sensor-hub reports every 3 s), and the debug sidebar shows
    // the messages of every tab. A newcomer clicks one button and must see its answer and
    // nothing else: no telemetry of example 05, no warning nobody announced.
    const { page } = session;
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const tryIt = /^## Try it\n([\s\S]*?)^## /m.exec(readme)[1];
    const listed = [...tryIt.matchAll(/^\| `(\d\d-[\w-]+)` \|/gm)].map((m) => `${m[1]}.json`);
    const files = fs.readdirSync(path.join(ROOT, "examples")).filter((f) => f.endsWith(".json"));
    assert.deepEqual(listed, files.sort(), "the README's Try it table lists every example");

    await showSidebar("debug");
    // Example 05 writes into /demo/telemetry all along; example 03 lists another stream.
    const telemetryAtStart = await streamCount("/demo/telemetry");
    await clickEveryButton();
    assert.ok(
      (await streamCount("/demo/telemetry")) > telemetryAtStart,
      "sensor-hub reported while the buttons were clicked",
    );

    // Example 05 is quiet until asked: its telemetry debug node's button turns it on.
    const telemetry = nodes.find((n) => n.type === "debug" && n.name === "telemetry");
    await page.locator("#red-ui-sidebar-debug-clear").click();
    await showTab(telemetry.tab);
    const toggle = page.locator(`[id="${telemetry.id}"] .red-ui-flow-node-button`);
    await toggle.click();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll(".red-ui-debug-msg-name")].some((n) =>
          /telemetry/.test(n.textContent),
        ),
      undefined,
      { timeout: 30000 },
    );
    await toggle.click();
  });

  it("should have logged no error in the browser console", function () {
    assert.deepEqual(session.browser.errors, []);
  });
});
