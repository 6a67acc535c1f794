// The "edge devices" sidebar's admin routes and comms messages in a real Node-RED under adminAuth
// (nodes/edge-account/sidebar.ts): who may read and cancel, that no piece of the token is in
// anything they send, and that 10,000 pending waits give a bounded snapshot of the page asked.
"use strict";
const assert = require("node:assert/strict");
const WebSocket = require("ws");
const { start } = require("../../dist/simulator");
const {
  startNodeRed,
  adminAuth,
  login,
  deployFlows,
  accountNode,
} = require("../support/node-red-process");
const { capture } = require("../support/capture");
const { waitFor } = require("../support/simulator");

const WAITS = 10_000;
/** What a snapshot of any number of waits stays under (a page of 50 rows under their devices). */
const MAX_BYTES = 64 * 1024;

/** Every piece of `token` of 8 characters, at every offset: none may be in `text`. */
function assertNoTokenPiece(text, token, where) {
  for (let i = 0; i + 8 <= token.length; i++) {
    const piece = token.slice(i, i + 8);
    assert.ok(!text.includes(piece), `${where} holds "${piece}" of the token (offset ${i})`);
  }
}

/**
 * A comms socket of the editor logged in with `token`, subscribed to the sidebar's topic unless
 * told not to; `got` collects the sidebar's messages it receives.
 */
async function openComms(redUrl, token, { subscribe = true } = {}) {
  const ws = new WebSocket(`${redUrl.replace(/^http/, "ws")}/comms`);
  const got = [];
  let authed = false;
  ws.on("message", (d) => {
    // An array of messages, or one object ({auth: "ok"}).
    for (const m of [JSON.parse(String(d))].flat()) {
      if (m.auth === "ok") authed = true;
      if (m.topic === "edgewire/sidebar") got.push(m);
    }
  });
  await new Promise((resolve) => ws.on("open", resolve));
  ws.send(JSON.stringify({ auth: token }));
  // Node-RED closes a socket that subscribes before its login is checked.
  await waitFor(() => authed, { what: "the login" });
  if (subscribe) ws.send(JSON.stringify({ subscribe: "edgewire/sidebar" }));
  return { ws, got };
}

describe("reliability: the edge devices sidebar under adminAuth", function () {
  this.timeout(60000);
  let red;
  let sim;
  let admin;
  let reader;
  const users = [
    { username: "admin", password: "admin-pass", permissions: "*" },
    { username: "reader", password: "reader-pass", permissions: "read" },
    { username: "flows", password: "flows-pass", permissions: ["flows.read"] },
    // Admitted to the editor's comms (status.read), but not to the account.
    { username: "status", password: "status-pass", permissions: ["status.read"] },
  ];
  const json = { "content-type": "application/json" };
  const get = (token) =>
    fetch(`${red.url}/edge-account/sidebar`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const post = (path, token, body = {}, headers = {}) =>
    fetch(`${red.url}/edge-account/sidebar/${path}`, {
      method: "POST",
      headers: { ...json, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: JSON.stringify(body),
    });
  const pendingTotal = async () => (await (await get(admin)).json()).accounts[0]?.pending?.total;

  before(async function () {
    sim = await start({ port: 0, quiet: true, commandDelayMs: 5 });
    red = await startNodeRed({ settings: adminAuth(users) });
    admin = await login(red, "admin", "admin-pass");
    reader = await login(red, "reader", "reader-pass", "read");
    await deployFlows(
      red.url,
      [
        { id: "t1", type: "tab", label: "sidebar" },
        accountNode(sim),
        {
          id: "go",
          z: "t1",
          type: "inject",
          once: true,
          onceDelay: 0.1,
          repeat: "",
          topic: "",
          // The token in the elems: the sidebar must show them redacted.
          payload: JSON.stringify({ count: WAITS, note: `${sim.token} in the elems` }),
          payloadType: "json",
          props: [{ p: "payload" }],
          wires: [["many"]],
        },
        {
          id: "many",
          z: "t1",
          type: "function",
          func: [
            "const now = Date.now();",
            "for (let i = 0; i < msg.payload.count; i++) {",
            "  node.send({",
            "    command: { id: 'cmd-' + i, creationDate: now, device: 'dev-' + (i % 300) },",
            "    payload: { elems: { note: msg.payload.note, i } },",
            "  });",
            "}",
            "return null;",
          ].join("\n"),
          outputs: 1,
          wires: [["aw"]],
        },
        {
          id: "aw",
          z: "t1",
          type: "edge-await-command",
          account: "acc",
          // The devices do not exist: every wait stays pending (its inbox answers 404 only once
          // polled; a long interval keeps that past the test).
          inbox: "/demo/devices/lcd-board/:inbox",
          timeout: "3600000",
          interval: "3600000",
          wires: [[], [], []],
        },
        {
          id: "watch",
          z: "t1",
          type: "edge-watch-events",
          account: "acc",
          stream: "/demo/telemetry",
          start: "new",
          interval: "1000",
          wires: [[]],
        },
      ],
      { headers: { authorization: `Bearer ${admin}` } },
    );
    await waitFor(async () => (await pendingTotal()) === WAITS, {
      timeoutMs: 30000,
      intervalMs: 200,
      what: `${WAITS} pending waits`,
    });
  });

  after(async function () {
    await red?.stop();
    await sim?.close();
  });

  it("gives a read-only user a bounded snapshot of 10,000 waits, with no piece of the token", async function () {
    const res = await get(reader);
    assert.equal(res.status, 200);
    const text = await res.text();
    capture("sidebar snapshot", text);
    assert.ok(text.length < MAX_BYTES, `${text.length} bytes for ${WAITS} waits`);
    const account = JSON.parse(text).accounts[0];
    assert.equal(account.id, "acc");
    assert.equal(account.pending.total, WAITS);
    const rows = account.pending.devices.flatMap((d) => d.rows);
    assert.equal(rows.length, 50);
    assert.equal(account.pending.offset, 0);
    assert.ok(account.pending.devices.length <= 50);
    assert.equal(
      account.pending.devices.reduce((n, d) => n + d.count, 0) <= WAITS,
      true,
      "device counts",
    );
    assert.deepEqual(account.jobs, { total: 0, rows: [] });
    const row = rows[0];
    assert.equal(row.node, "aw");
    assert.match(row.commandId, /^cmd-\d+$/);
    assert.match(row.elems, /in the elems/);
    assert.ok(row.elems.length <= 80, row.elems);
    assert.equal(row.restored, false);
    assert.ok(row.deadline - row.startedAt === 3600000);
    assert.equal(typeof account.health.perSecond, "number");
    assert.equal(account.health.tokenRefused, false);
    await waitFor(
      async () =>
        (await (await get(reader)).json()).accounts[0].watches.rows.some(
          (w) => w.stream === "/demo/telemetry" && w.nodes.includes("watch") && w.lastRead,
        ),
      { timeoutMs: 10000, intervalMs: 200, what: "the watch listed after its first read" },
    );
    assertNoTokenPiece(text, sim.token, "the snapshot");
  });

  it("lists the page of 10,000 waits that GET or a subscribe asks for, and publishes it marked with its view", async function () {
    const first = (await (await get(reader)).json()).accounts[0].pending;
    const firstIds = new Set(first.devices.flatMap((d) => d.rows).map((r) => r.id));
    const lastFirst = Math.max(...first.devices.flatMap((d) => d.rows).map((r) => r.startedAt));

    const res = await fetch(`${red.url}/edge-account/sidebar?account=acc&offset=5000`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    const text = await res.text();
    assert.ok(text.length < MAX_BYTES, `${text.length} bytes for the page at 5,000`);
    const page = JSON.parse(text).accounts[0].pending;
    assert.equal(page.total, WAITS);
    assert.equal(page.offset, 5000);
    const rows = page.devices.flatMap((d) => d.rows);
    assert.equal(rows.length, 50);
    assert.ok(!rows.some((r) => firstIds.has(r.id)), "rows of the first page again");
    assert.ok(
      rows.every((r) => r.startedAt >= lastFirst),
      "a row older than the first page's",
    );
    assertNoTokenPiece(text, sim.token, "the page at 5,000");

    // The last page, from an offset past the end.
    const end = (await (await get(reader)).json()).accounts[0].pending.total;
    const past = await fetch(`${red.url}/edge-account/sidebar?account=acc&offset=${end + 999}`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    const last = (await past.json()).accounts[0].pending;
    assert.equal(last.offset, Math.floor((end - 1) / 50) * 50);

    // A subscribe with the page answers its snapshot, and comms carries it with its view.
    const { ws, got } = await openComms(red.url, reader);
    try {
      const sub = await (
        await post("subscribe", reader, {
          client: "paging-test",
          pages: { acc: 100 },
          snapshot: true,
        })
      ).json();
      assert.equal(typeof sub.view, "string");
      assert.equal(sub.snapshot.view, sub.view);
      assert.equal(sub.snapshot.accounts[0].pending.offset, 100);
      assert.ok(JSON.stringify(sub).length < MAX_BYTES);
      await waitFor(() => got.some((m) => m.data.view === sub.view), {
        timeoutMs: 5000,
        what: "the page published with its view",
      });
      const mine = got.find((m) => m.data.view === sub.view);
      assert.equal(mine.data.accounts[0].pending.offset, 100);
      assert.ok(JSON.stringify(mine).length < MAX_BYTES);
    } finally {
      ws.close();
    }
  });

  it("answers nothing without a login or to a user without read permission on the account", async function () {
    assert.equal((await get(undefined)).status, 401);
    const flowsOnly = await login(red, "flows", "flows-pass", "flows.read");
    assert.equal((await get(flowsOnly)).status, 401);
    assert.equal((await post("subscribe", undefined)).status, 401);
    assert.equal((await post("subscribe", flowsOnly)).status, 401);
  });

  it("does not let a read-only user cancel, and lets an admin cancel one wait and a device's", async function () {
    const snap = await (await get(admin)).json();
    const device = snap.accounts[0].pending.devices[0];
    const wait = device.rows[0];
    const denied = await post("cancel", reader, { account: "acc", wait: wait.id });
    assert.equal(denied.status, 401);
    assert.equal(await pendingTotal(), WAITS);

    const one = await post("cancel", admin, { account: "acc", wait: wait.id });
    assert.deepEqual(await one.json(), { ok: true, cancelled: 1 });
    assert.equal(await pendingTotal(), WAITS - 1);
    const after = (await (await get(admin)).json()).accounts[0].pending.devices;
    assert.ok(!after.flatMap((d) => d.rows).some((r) => r.id === wait.id), "the wait is gone");
    await waitFor(() => red.output().includes(`command ${wait.commandId} on ${device.device}`), {
      what: "the cancel in the log",
    });

    const all = await (
      await post("cancel", admin, { account: "acc", device: device.device })
    ).json();
    assert.equal(all.cancelled, device.count - 1);
    assert.equal(await pendingTotal(), WAITS - device.count);
  });

  it("refuses a cancel or a subscribe from a page of another site, or not as JSON", async function () {
    const foreign = await post(
      "cancel",
      admin,
      { account: "acc", device: "dev-1" },
      {
        origin: "http://evil.example",
      },
    );
    assert.equal(foreign.status, 403);
    const form = await fetch(`${red.url}/edge-account/sidebar/subscribe`, {
      method: "POST",
      headers: { "content-type": "text/plain", authorization: `Bearer ${reader}` },
      body: "{}",
    });
    assert.equal(form.status, 415);
  });

  it("publishes bounded snapshots without the token over comms to a subscribed reader, and nothing to an anonymous socket", async function () {
    const wsUrl = `${red.url.replace(/^http/, "ws")}/comms`;
    const anonymous = new WebSocket(wsUrl);
    const anonymousGot = [];
    anonymous.on("message", (d) => anonymousGot.push(String(d)));
    await new Promise((resolve) => anonymous.on("open", resolve));
    anonymous.send(JSON.stringify({ subscribe: "edgewire/sidebar" }));

    const { ws, got } = await openComms(red.url, reader);
    try {
      assert.equal((await post("subscribe", reader)).status, 200);
      await waitFor(() => got.length > 0, { timeoutMs: 5000, what: "a published snapshot" });
      const text = JSON.stringify(got[0]);
      capture("sidebar comms", text);
      assert.ok(text.length < MAX_BYTES, `${text.length} bytes`);
      assert.ok(got[0].data.accounts[0].pending.total > 9000);
      assertNoTokenPiece(text, sim.token, "the comms message");
      // Anonymous: Node-RED refuses the socket under adminAuth; nothing of ours reaches it.
      assert.ok(!anonymousGot.some((m) => m.includes("edgewire/sidebar")), anonymousGot.join("\n"));
    } finally {
      ws.close();
      anonymous.close();
    }
  });

  it("publishes nothing to a comms connection whose user may not read the account", async function () {
    const statusOnly = await login(red, "status", "status-pass", "status.read");
    assert.equal((await get(statusOnly)).status, 401);
    const outsider = await openComms(red.url, statusOnly);
    const insider = await openComms(red.url, reader);
    try {
      assert.equal((await post("subscribe", reader)).status, 200);
      // A change, so that a snapshot is published while both are connected.
      const row = (await (await get(admin)).json()).accounts[0].pending.devices[0].rows[0];
      await post("cancel", admin, { account: "acc", wait: row.id });
      await waitFor(() => insider.got.some((m) => m.data.accounts[0].pending.total < 9990), {
        timeoutMs: 5000,
        what: "the reader's snapshot after the cancel",
      });
      assert.deepEqual(outsider.got, []);
    } finally {
      outsider.ws.close();
      insider.ws.close();
    }
  });

  it("stops publishing once the subscribes stop", async function () {
    const { ws, got } = await openComms(red.url, reader, { subscribe: false });
    try {
      // The last subscribe was in the test before; the runtime publishes for 15 s after it.
      await waitFor(
        async () => {
          got.length = 0;
          const row = (await (await get(admin)).json()).accounts[0].pending.devices[0].rows[0];
          await post("cancel", admin, { account: "acc", wait: row.id });
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return got.length === 0;
        },
        { timeoutMs: 30000, intervalMs: 0, what: "no snapshot published after a change" },
      );
      // And a subscribe starts it again.
      assert.equal((await post("subscribe", reader)).status, 200);
      await waitFor(() => got.length > 0, { timeoutMs: 5000, what: "a snapshot again" });
    } finally {
      ws.close();
    }
  });
});
