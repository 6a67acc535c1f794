// nodes/lib/node-red/status.ts: a busy node's status updates coalesced to one per interval (the
// latest wins), an update that matters shown at once. No timing is asserted: the specs wait for
// the coalesced update to arrive.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const fs = require("node:fs");
const path = require("node:path");

const { StatusThrottle, errorStatus, MAX_STATUS_CHARS } = lib("node-red/status");
const { EdgeError } = lib("api/errors");
const { translator } = lib("node-red/i18n");

const LOCALES = path.join(__dirname, "..", "..", "..", "locales");
/** The nodes whose every status goes through the shared handler and its length limit. */
const NODES = ["edge-device-state", "edge-send-command", "edge-list-events", "edge-await-command"];
/** Values as large as a status meets: counts, times and HTTP statuses. */
const WORST = {
  count: 10000,
  keys: 250,
  start: 1000,
  elapsed: 30000,
  attempt: 10,
  s: 60,
  status: 401,
  apiStatus: 500,
  what: "msg.payload",
  reason: "auth",
};
/**
 * The columns a status takes under a node: a kana, kanji or full-width character is as wide as two
 * Latin letters, so a Japanese status has half the characters of an English one.
 */
const width = (text) =>
  [...text].reduce(
    (n, ch) =>
      n +
      (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(
        ch,
      )
        ? 2
        : 1),
    0,
  );
const LANGS = ["en-US", "de", "ja"];
const fill = (text) => text.replace(/__(\w+)__/g, (w, n) => (n in WORST ? String(WORST[n]) : w));
const catalog = (lang, name) =>
  JSON.parse(fs.readFileSync(path.join(LOCALES, lang, `${name}.json`), "utf8"));

function recordingNode() {
  const shown = [];
  const waiters = [];
  return {
    shown,
    status(s) {
      shown.push(s);
      for (const w of waiters.splice(0)) w();
    },
    /** Resolves once `n` statuses have been shown. */
    async until(n) {
      const deadline = Date.now() + 10000;
      while (shown.length < n) {
        if (Date.now() > deadline) throw new Error(`only ${shown.length} statuses shown`);
        await new Promise((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
  };
}

describe("unit: node-red/status", function () {
  it("should show the first update at once and coalesce the rest to the latest", async function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.soon({ text: "1" });
    s.soon({ text: "2" });
    s.soon(() => ({ text: "3" }));
    assert.deepEqual(node.shown, [{ text: "1" }]);
    await node.until(2);
    assert.deepEqual(node.shown, [{ text: "1" }, { text: "3" }]);
  });

  it("should show an update that matters at once and drop the coalesced one due", async function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.soon({ text: "busy 1" });
    s.soon({ text: "busy 2" });
    s.now(() => ({ text: "idle" }));
    assert.deepEqual(node.shown.at(-1), { text: "idle" });
    const count = node.shown.length;
    // Another update, coalesced behind "idle", proves the dropped one never came.
    s.soon({ text: "later" });
    await node.until(count + 1);
    assert.deepEqual(
      node.shown.map((x) => x.text),
      ["busy 1", "idle", "later"],
    );
  });

  it("should clear the status and anything still due", async function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.soon({ text: "a" });
    s.soon({ text: "b" });
    s.clear();
    s.soon({ text: "c" });
    await node.until(3);
    assert.deepEqual(node.shown, [{ text: "a" }, {}, { text: "c" }]);
  });

  it("should keep every status text of the nodes and the account to about 25 columns, in every language", function () {
    const long = [];
    for (const lang of LANGS) {
      const shared = catalog(lang, "edge-account").edge;
      const texts = [
        ...Object.entries(shared.status),
        ...Object.entries(shared.short),
        ...Object.entries(shared.health),
        ...NODES.flatMap((n) =>
          Object.entries(catalog(lang, n)[n].status).map(([k, v]) => [`${n}.${k}`, v]),
        ),
      ];
      for (const [key, text] of texts) {
        const shown = fill(text);
        if (width(shown) > MAX_STATUS_CHARS) long.push(`${lang} ${key}: "${shown}"`);
      }
    }
    assert.deepEqual(long, []);
  });

  it("should keep the fleet node's statuses, one count with its word, to 25 columns in every language", function () {
    const long = [];
    for (const lang of LANGS) {
      const status = catalog(lang, "edge-fleet-command")["edge-fleet-command"].status;
      const put = (text, params) => text.replace(/__(\w+)__/g, (w, n) => String(params[n] ?? w));
      // Running or done: up to hundreds of devices; stopped: up to 99, the stop word before.
      const running = put(status.progressFailed, { complete: 120, total: 999, failed: 99 });
      const counts = put(status.progress, { complete: 12, total: 99 });
      const texts = [
        running,
        ...["cancelled", "aborted"].map((k) => put(status[k], { progress: counts })),
      ];
      for (const text of texts) if (width(text) > MAX_STATUS_CHARS) long.push(`${lang}: "${text}"`);
    }
    assert.deepEqual(long, []);
  });

  it("should show an error as a few words while the error keeps the whole sentence", function () {
    const RED = { _: (key) => key };
    const t = translator(RED, "edge-device-state");
    const auth = new EdgeError(
      "auth",
      { status: 401, detail: "Invalid X-Auth-Token" },
      { status: 401 },
    );
    assert.equal(errorStatus(t, auth), "401 unauthorized");
    assert.match(auth.message, /refused the credentials \(HTTP 401\): Invalid X-Auth-Token/);
    const late = new EdgeError("timeout", { timeout: 10000, method: "GET", path: "/v5.0/x" });
    assert.equal(errorStatus(t, late), "timed out");
    const nested = new EdgeError("bad-value", {
      what: 'Elems at "a/very/long/resource/path/that/goes/on"',
      key: "x",
      type: "an array",
    });
    assert.equal(errorStatus(t, nested), "invalid input");
    assert.equal(errorStatus(t, new Error("anything at all")), "failed");
  });

  it("should show the account's status over the node's own and the node's own again after it", function () {
    const node = recordingNode();
    const s = new StatusThrottle(node);
    s.now({ text: "sent" });
    s.account({ fill: "red", shape: "ring", text: "401 unauthorized" });
    // A result while the account is unwell is kept, not shown...
    s.now({ text: "sent again" });
    assert.deepEqual(node.shown.at(-1), { fill: "red", shape: "ring", text: "401 unauthorized" });
    // ...and shown when the account is well again.
    s.account(undefined);
    assert.deepEqual(node.shown.at(-1), { text: "sent again" });
  });
});
