// lib/account/in-flight.ts alone: the sidebar's list of pending waits, from the sets the await
// nodes keep, bounded however many waits; cancels by row id or by device.
"use strict";
const assert = require("node:assert/strict");
const {
  registerAwait,
  pendingOf,
  cancelWaits,
  MAX_ROWS,
  MAX_DEVICES,
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
    cancel() {
      this.cancelled = true;
    },
  };
}

function source(accountId, nodeId, waits) {
  const set = new Set(waits);
  const logged = [];
  const src = {
    nodeId,
    accountId,
    bySignal: new Map([[new AbortController().signal, set]]),
    log: (t) => logged.push(t),
  };
  return { src, set, logged, unregister: registerAwait(src) };
}

describe("lib/account/in-flight", function () {
  const unregister = [];
  afterEach(function () {
    for (const u of unregister.splice(0)) u();
  });

  it("lists the oldest MAX_ROWS waits under their devices, devices oldest first, and counts all", function () {
    const waits = [];
    for (let i = 0; i < 10_000; i++) {
      waits.push(
        wait({ commandId: `c${i}`, device: `d${i % 300}`, startedAt: 10_000 - i, elems: { i } }),
      );
    }
    const s = source("acc", "n1", waits);
    unregister.push(s.unregister);
    const list = pendingOf("acc", redact);
    assert.equal(list.total, 10_000);
    assert.equal(list.devices.length, MAX_DEVICES);
    const rows = list.devices.flatMap((d) => d.rows);
    assert.equal(rows.length, MAX_ROWS);
    // The youngest index is the oldest wait: c9999 started at 1.
    assert.equal(list.devices[0].rows[0].commandId, "c9999");
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
  });
});
