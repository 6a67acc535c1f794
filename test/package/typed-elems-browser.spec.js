// Issue 37's first finding as a person met it, in a real browser (Debian's chromium through
// playwright-core) against what `npm start` runs: watch events → switch → send command, the send
// node's Elems typed in its dialog with a tag that reads the event, deployed with the Deploy
// button. A watch node's output is an object, and the command sent was once that whole event (id,
// streamId, path, elems, ...), status `sent`, no warning. The command the simulator received must
// be the typed Elems, filled in. (The fleet count after a cancel, the second finding, is
// seen in the node's status and the tab by sidebar-actions-browser.spec.js.)
"use strict";
/* global document, RED, monaco -- these run inside the editor page */
const assert = require("node:assert/strict");
const { startDemo } = require("../support/demo");
const { deployInEditor, openEditorPage, requireChromium, showTab } = require("../support/browser");

const WAIT = 20000;
const ACCOUNT = "e5a1c0de00000001";
const TAB = "typed Elems";
const SEND = "7e1e5000000000a3";
const ELEMS = '{"/lcd/txt2": "hot {{payload.elems.temperature}}"}';

/** What a person builds: a watch of the telemetry, a switch above 25 °C, a send to lcd-board. */
const FLOW = [
  { id: "7e1e5000000000a0", type: "tab", label: TAB, disabled: false, info: "" },
  {
    id: "7e1e5000000000a1",
    type: "edge-watch-events",
    z: "7e1e5000000000a0",
    name: "",
    account: ACCOUNT,
    stream: "/demo/telemetry",
    interval: "1000",
    start: "new",
    last: "10",
    store: "",
    x: 160,
    y: 80,
    wires: [["7e1e5000000000a2"]],
  },
  {
    id: "7e1e5000000000a2",
    type: "switch",
    z: "7e1e5000000000a0",
    name: "",
    property: "payload.elems.temperature",
    propertyType: "msg",
    rules: [{ t: "gt", v: "25", vt: "num" }],
    checkall: "true",
    repair: false,
    outputs: 1,
    x: 380,
    y: 80,
    wires: [[SEND]],
  },
  {
    id: SEND,
    type: "edge-send-command",
    z: "7e1e5000000000a0",
    name: "",
    account: ACCOUNT,
    target: "device",
    device: "lcd-board",
    stream: "",
    elems: "",
    elemsFrom: "elems",
    ttl: "",
    x: 600,
    y: 80,
    wires: [[]],
  },
];

describe("a watch wired to a send with typed Elems, in a browser", function () {
  this.timeout(180000);
  let demo;
  let browser;
  let page;

  const sim = (method, p, body) =>
    fetch(`${demo.simUrl}/_sim${p}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => {
      assert.ok(r.ok, `${method} ${p}: ${r.status}`);
      return r.json();
    });

  /** The commands the simulator was asked to send to lcd-board, their bodies parsed. */
  async function commandsSent() {
    const requests = await sim("GET", "/requests?limit=1000");
    return requests
      .filter((r) => r.method === "POST" && r.pathname === "/v5.0/demo/event")
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.path === "/demo/devices/lcd-board/:command");
  }

  before(async function () {
    requireChromium(this);
    demo = await startDemo();
    browser = await openEditorPage(demo.editorUrl, { wait: WAIT });
    ({ page } = browser);
  });

  after(async function () {
    await browser?.close();
    await demo?.stop();
  });

  it("sends the Elems typed in the send node's dialog, filled from the event, not the event itself", async function () {
    // Pasted as menu > Import would add it, on a tab of its own.
    await page.evaluate((flow) => {
      RED.nodes.import(flow);
      RED.nodes.dirty(true);
      RED.view.redraw(true);
    }, FLOW);
    await showTab(page, TAB);
    // The Elems typed in the dialog, through its code editor's own API.
    await page.locator(`[id="${SEND}"] rect.red-ui-flow-node`).dblclick();
    await page.waitForSelector("#node-dialog-ok", { state: "visible" });
    await page.waitForSelector("#node-input-elems-editor", { state: "visible" });
    await page.evaluate((text) => {
      const host = document.querySelector("#node-input-elems-editor");
      const editor = monaco.editor.getEditors().find((e) => host.contains(e.getDomNode()));
      editor.setValue(text);
    }, ELEMS);
    await page.locator("#node-dialog-ok").click();
    await page.waitForSelector("#node-dialog-ok", { state: "detached" });
    assert.equal(await page.evaluate((id) => RED.nodes.node(id).elems, SEND), ELEMS);

    await deployInEditor(page);
    const deadline = Date.now() + WAIT;
    for (;;) {
      const flows = await fetch(`${demo.editorUrl}flows`).then((r) => r.json());
      if (flows.some((n) => n.id === SEND && n.elems === ELEMS)) break;
      assert.ok(Date.now() < deadline, "the deploy did not reach the runtime");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The watch starts with new events: wait for it, then a hot reading as sensor-hub writes one.
    await page.waitForFunction(
      (id) =>
        /watching|events/.test(
          document.querySelector(`[id="${id}"] .red-ui-flow-node-status-label`)?.textContent ?? "",
        ),
      "7e1e5000000000a1",
      { timeout: WAIT },
    );
    await sim("DELETE", "/requests");
    await sim("POST", "/events", {
      path: "/demo/telemetry",
      elems: { temperature: 31.5, humidity: 40 },
    });
    await page.waitForFunction(
      (id) =>
        /sent/.test(
          document.querySelector(`[id="${id}"] .red-ui-flow-node-status-label`)?.textContent ?? "",
        ),
      SEND,
      { timeout: WAIT },
    );
    let sent = [];
    const until = Date.now() + WAIT;
    while (!sent.some((b) => b.elems?.["/lcd/txt2"] === "hot 31.5")) {
      assert.ok(Date.now() < until, `no command "hot 31.5": ${JSON.stringify(sent)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      sent = await commandsSent();
    }
    // Every command the wiring sent is the typed Elems: one key, text filled from the event.
    for (const body of sent) {
      assert.deepEqual(Object.keys(body.elems), ["/lcd/txt2"], JSON.stringify(body));
      assert.match(body.elems["/lcd/txt2"], /^hot \d+(\.\d+)?$/);
    }
  });

  it("should have logged no error in the browser console", function () {
    assert.deepEqual(browser.errors, []);
  });
});
