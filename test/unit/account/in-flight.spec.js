// lib/account/in-flight.ts alone: the sidebar's list of pending waits, from the sets the await
// nodes keep, one bounded page however many waits; walked again only when a node's counter moved;
// cancels by row id or by device.
"use strict";
const assert = require("node:assert/strict");
const {
  registerAwait,
  pendingOf,
  cancelWaits,
  forgetPending,
  PAGE_ROWS,
} = require("../../../dist/nodes/lib/account/in-flight");

const TOKEN = "secret-token-0123456789";
const redact = (text) => text.split(TOKEN).join("[redacted]");

/** A stand-in for a PendingWait: what in-flight.ts calls. */
function wait(props) {
  const view = {
    commandId: "c",
    device: "dev",
    elems: undefined,
    startedAt: 0,
    deadline: 1000,
    ttl: undefined,
    restored: false,
    ...props,
  };
  return {
    cancelled: false,
    started: view.startedAt,
    device: () => view.device,
    describe: () => view,
    cancelFromTab() {
      this.cancelled = true;
    },
  };
}

/** An await node's registration; `changed()` bumps its counter as pending-wait.ts does. */
function source(accountId, nodeId, waits) {
  const set = new Set(waits);
  const logged = [];
  /** The counts its cancelled() was told, one per cancel that ended some of its waits. */
  const told = [];
  let changes = 0;
  const src = {
    nodeId,
    accountId,
    bySignal: new Map([[new AbortController().signal, set]]),
    changes: () => changes,
    log: (t) => logged.push(t),
    cancelled: (count) => told.push(count),
  };
  return { src, set, logged, told, changed: () => changes++, unregister: registerAwait(src) };
}

/** 10,000 waits over 300 devices, wait i started at 10,000 - i: the last made is the oldest. */
function manyWaits() {
  const waits = [];
  for (let i = 0; i < 10_000; i++) {
    waits.push(
      wait({ commandId: `c${i}`, device: `d${i % 300}`, startedAt: 10_000 - i, elems: { i } }),
    );
  }
  return waits;
}

const rowsOf = (list) => list.devices.flatMap((d) => d.rows);

describe("lib/account/in-flight", function () {
  const unregister = [];
  afterEach(function () {
    for (const u of unregister.splice(0)) u();
    forgetPending();
  });

  it("lists the oldest PAGE_ROWS waits under their devices, devices oldest first, and counts all", function () {
    const s = source("acc", "n1", manyWaits());
    unregister.push(s.unregister);
    const list = pendingOf("acc", redact);
    assert.equal(list.total, 10_000);
    assert.equal(list.offset, 0);
    assert.equal(list.pageSize, PAGE_ROWS);
    const rows = rowsOf(list);
    assert.equal(rows.length, PAGE_ROWS);
    // The youngest index is the oldest wait: c9999 started at 1.
    assert.equal(list.devices[0].rows[0].commandId, "c9999");
    // Its device's count is of all its waits, not of the page's.
    assert.equal(list.devices[0].device, "d99");
    assert.equal(list.devices[0].count, 34);
    const oldest = list.devices.map((d) => d.oldest);
    assert.deepEqual(
      oldest,
      [...oldest].sort((a, b) => a - b),
    );
    for (const d of list.devices)
      for (let k = 1; k < d.rows.length; k++)
        assert.ok(d.rows[k - 1].startedAt <= d.rows[k].startedAt);
    assert.ok(JSON.stringify(list).length < 64 * 1024);
  });

  it("lists the page asked, oldest first from its offset, and the last page for an offset past the end", function () {
    const s = source("acc", "n1", manyWaits());
    unregister.push(s.unregister);
    const second = pendingOf("acc", redact, PAGE_ROWS);
    assert.equal(second.offset, PAGE_ROWS);
    assert.deepEqual(
      rowsOf(second)
        .map((r) => r.startedAt)
        .sort((a, b) => a - b),
      Array.from({ length: PAGE_ROWS }, (_, k) => PAGE_ROWS + 1 + k),
    );
    const middle = pendingOf("acc", redact, 5_020);
    assert.equal(middle.offset, 5_000, "an offset inside a page lists the whole page");
    assert.equal(rowsOf(middle).length, PAGE_ROWS);
    assert.equal(Math.min(...rowsOf(middle).map((r) => r.startedAt)), 5_001);
    const past = pendingOf("acc", redact, 1_000_000);
    assert.equal(past.offset, 10_000 - PAGE_ROWS);
    assert.equal(Math.max(...rowsOf(past).map((r) => r.startedAt)), 10_000);
    assert.equal(pendingOf("acc", redact, -5).offset, 0);
    assert.equal(pendingOf("acc", redact, Number.NaN).offset, 0);
    assert.ok(JSON.stringify(middle).length < 64 * 1024);
  });

  it("walks the waits again only when a node's counter moved or a node came or went", function () {
    const s = source("acc", "n1", [wait({ startedAt: 1 })]);
    unregister.push(s.unregister);
    assert.equal(pendingOf("acc", redact).total, 1);
    // A wait joins the set; the node has not counted it yet: the list as it was.
    s.set.add(wait({ startedAt: 2 }));
    assert.equal(pendingOf("acc", redact).total, 1);
    s.changed();
    assert.equal(pendingOf("acc", redact).total, 2);
    // Another node of the account, with no change counted at all.
    const other = source("acc", "n2", [wait({ startedAt: 0, device: "b" })]);
    unregister.push(other.unregister);
    const list = pendingOf("acc", redact);
    assert.equal(list.total, 3);
    assert.equal(list.devices[0].device, "b");
    other.unregister();
    assert.equal(pendingOf("acc", redact).total, 2);
  });

  it("lists only the account's waits", function () {
    const a = source("acc", "n1", [wait({})]);
    const b = source("other", "n2", [wait({}), wait({})]);
    unregister.push(a.unregister, b.unregister);
    assert.equal(pendingOf("acc", redact).total, 1);
    assert.equal(pendingOf("other", redact).total, 2);
    a.unregister();
    assert.equal(pendingOf("acc", redact).total, 0);
  });

  it("shortens the elems to 80 characters after taking the token out of them", function () {
    const long = `${"x".repeat(70)}${TOKEN}${"y".repeat(100)}`;
    const s = source("acc", "n1", [wait({ elems: { note: long }, device: `dev-${TOKEN}` })]);
    unregister.push(s.unregister);
    const [d] = pendingOf("acc", redact).devices;
    const [row] = d.rows;
    assert.equal(row.elems.length, 80);
    assert.ok(row.elems.endsWith("…"));
    assert.ok(!JSON.stringify(d).includes(TOKEN.slice(0, 8)));
    assert.equal(d.device, "dev-[redacted]");
  });

  it("shows 1 MB of elems as their first 80 characters of JSON, reading only their start", function () {
    // 20,000 values of about 50 characters each: every read of one is counted. JSON.stringify
    // of all of it (and a redaction of all of it) at every refresh once cost 150 ms per GET with
    // 50 such waits listed.
    let reads = 0;
    const elems = Array.from({ length: 20_000 }, (_, i) => ({
      get v() {
        reads++;
        return `value ${i} of a command of one megabyte, ${"z".repeat(8)}`;
      },
    }));
    const s = source("acc", "n1", [wait({ elems })]);
    unregister.push(s.unregister);
    const [row] = pendingOf("acc", redact).devices[0].rows;
    assert.equal(row.elems.length, 80);
    assert.equal(row.elems, `${JSON.stringify(elems.slice(0, 3)).slice(0, 79)}…`);
    // What is shown, and what a token there needs to be redacted whole: not the megabyte.
    assert.ok(reads < 200, `${reads} values read`);
  });

  it("lists a wait whose elems cannot be written as JSON", function () {
    const cyclic = {};
    cyclic.self = cyclic;
    const s = source("acc", "n1", [wait({ elems: cyclic })]);
    unregister.push(s.unregister);
    assert.equal(pendingOf("acc", redact).devices[0].rows[0].elems, "…");
  });

  it("cancels the wait a row names, or all of a device's, and logs each", function () {
    const w1 = wait({ device: "a", startedAt: 1 });
    const w2 = wait({ device: "a", startedAt: 2 });
    const w3 = wait({ device: "b", startedAt: 3 });
    const s = source("acc", "n1", [w1, w2, w3]);
    unregister.push(s.unregister);
    const row = pendingOf("acc", redact).devices[0].rows[0];
    assert.equal(
      cancelWaits(
        "acc",
        (id) => id === row.id,
        (v) => `cancelled ${v.device}`,
      ),
      1,
    );
    assert.deepEqual([w1.cancelled, w2.cancelled, w3.cancelled], [true, false, false]);
    assert.deepEqual(s.logged, ["cancelled a"]);
    // A cancelled wait leaves its node's set (pending-wait.ts does it); here by hand.
    s.set.delete(w1);
    s.changed();
    assert.equal(
      cancelWaits(
        "acc",
        (_id, v) => v.device === "a",
        () => "x",
      ),
      1,
    );
    assert.equal(w2.cancelled, true);
    assert.equal(w3.cancelled, false);
    assert.equal(
      cancelWaits(
        "acc",
        (id) => id === "n1:999999",
        () => "x",
      ),
      0,
    );
    // The node heard of each cancel once, with its count, so that its status says so.
    assert.deepEqual(s.told, [1, 1]);
  });
});
