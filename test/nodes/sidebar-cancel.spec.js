// A wait cancelled from the editor's "edge devices" sidebar (POST /edge-account/sidebar/cancel)
// ends with the error `cancelled` that a Catch node gets (no output, the saved wait forgotten, a
// line in the log): the README promises one output or one error per input, and a flow that joins
// on the outcome hung when the click ended it silently (issue 35). The node's other waits stay, and
// its status says what the cancel left. Permissions are in test/reliability/sidebar.spec.js.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor } = require("../support/simulator");
const { helper, withRedAndSimulator, collect, noMessage, caughtCode } = require("../support/red");
const { startFlow, sendCommand, awaitCommand } = require("../support/flow");

const COMPLETE_NODE = require("@node-red/nodes/core/common/24-complete.js");

async function start(sim) {
  const { get } = await startFlow(
    sim,
    [
      sendCommand("send", { wires: [["a1"]] }),
      ...awaitCommand({ timeout: 60000 }),
      { id: "done1", type: "complete", scope: ["a1"], uncaught: false, wires: [["completed"]] },
      { id: "completed", type: "helper" },
    ],
    { account: { rate: 0, concurrency: 16 }, extraTypes: [COMPLETE_NODE] },
  );
  return Object.fromEntries(
    ["send", "a1", "ok", "fault", "late", "completed", "caught"].map((id) => [id, get(id)]),
  );
}

const saved = (node) =>
  node
    .context()
    .keys()
    .filter((k) => k.startsWith("edgewire-await-"));

async function snapshot() {
  const res = await helper.request().get("/edge-account/sidebar").expect(200);
  assert.equal(res.body.accounts.length, 1);
  return res.body.accounts[0];
}

describe("edge devices sidebar: cancelling waits", function () {
  const env = withRedAndSimulator({ commandDelayMs: 20 });

  it("ends one wait with one error `cancelled` to a Catch node and no output, forgets it, and leaves the other", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1, ok, fault, late, completed, caught } = await start(env.sim);
    const logged = [];
    a1.on("call:log", (call) => logged.push(String(call.args[0])));
    send.receive({ payload: { "/lcd/txt1": "first" } });
    send.receive({ payload: { "/lcd/txt1": "second" } });
    await waitFor(() => saved(a1).length === 2, { what: "two saved waits" });
    const account = await snapshot();
    assert.equal(account.pending.total, 2);
    const [group] = account.pending.devices;
    assert.equal(group.device, "lcd-board");
    const [first, second] = group.rows;
    assert.ok(first.startedAt <= second.startedAt, "oldest first");
    assert.match(first.elems, /first/);

    const res = await helper
      .request()
      .post("/edge-account/sidebar/cancel")
      .set("content-type", "application/json")
      .send({ account: account.id, wait: first.id })
      .expect(200);
    assert.deepEqual(res.body, { ok: true, cancelled: 1 });
    // One error, the message's own, with the command it was waiting for; no output at all.
    const [err] = await collect(caught, 1);
    assert.equal(caughtCode(err), "cancelled");
    assert.equal(err.edgeError.mayHaveBeenSent, true, "the command was sent");
    assert.equal(err.command.id, first.commandId);
    assert.match(err.error.message, /lcd-board/);
    assert.ok(err.error.message.includes(first.commandId), err.error.message);
    assert.equal(ok.received.length + fault.received.length + late.received.length, 0);
    await noMessage(completed, 0);
    assert.equal(saved(a1).length, 1);
    assert.ok(
      logged.some((l) => l.includes(first.commandId) && l.includes("lcd-board")),
      logged.join("\n"),
    );
    const after = await snapshot();
    assert.equal(after.pending.total, 1);
    assert.equal(after.pending.devices[0].rows[0].id, second.id);

    // The device back online: the other wait still completes.
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: true });
    await collect(ok, 1, 10000);
    await noMessage(late, 50);
    // Nothing more was caught: the cancelled message ended once.
    assert.equal(caught.received.length, 0);
  });

  it("shows the cancel in the await node's status: what is left waiting, then none", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1 } = await start(env.sim);
    const statuses = [];
    a1.on("call:status", (call) => statuses.push(call.args[0]));
    for (const text of ["a", "b", "c"]) send.receive({ payload: { "/lcd/txt1": text } });
    await waitFor(() => saved(a1).length === 3, { what: "three saved waits" });
    await waitFor(() => /waiting/.test(statuses.at(-1)?.text ?? ""), { what: "waiting shown" });
    const account = await snapshot();
    const cancel = (body) =>
      helper
        .request()
        .post("/edge-account/sidebar/cancel")
        .set("content-type", "application/json")
        .send({ account: account.id, ...body })
        .expect(200);
    const from = statuses.length;
    await cancel({ wait: account.pending.devices[0].rows[0].id });
    // Set as the cancel is made; the next read of the inbox says "waiting (2)" again, which is true.
    const after = statuses.slice(from);
    const told = after.findIndex((st) => /cancelled/.test(st.text));
    assert.deepEqual(after[told], { fill: "blue", shape: "ring", text: "1 cancelled in tab" });
    assert.ok(!after.slice(told).some((st) => /\(3\)/.test(st.text)), JSON.stringify(after));
    await cancel({ device: "lcd-board" });
    assert.deepEqual(statuses.at(-1), {
      fill: "grey",
      shape: "ring",
      text: "2 cancelled in tab",
    });
    // And it stays so: no "waiting" comes after it for the waits that are gone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(statuses.at(-1).text, "2 cancelled in tab");
  });

  it("cancels all of a device's waits", async function () {
    await control(env.sim, "PUT", "/devices/lcd-board/online", { online: false });
    const { send, a1, completed, caught } = await start(env.sim);
    for (const text of ["a", "b", "c"]) send.receive({ payload: { "/lcd/txt1": text } });
    await waitFor(() => saved(a1).length === 3, { what: "three saved waits" });
    const res = await helper
      .request()
      .post("/edge-account/sidebar/cancel")
      .set("content-type", "application/json")
      .send({ account: (await snapshot()).id, device: "lcd-board" })
      .expect(200);
    assert.equal(res.body.cancelled, 3);
    const errors = await collect(caught, 3);
    assert.deepEqual(
      errors.map((e) => caughtCode(e)),
      ["cancelled", "cancelled", "cancelled"],
    );
    assert.equal(new Set(errors.map((e) => e.command.id)).size, 3, "one error per wait");
    await noMessage(completed, 0);
    assert.deepEqual(saved(a1), []);
    assert.equal((await snapshot()).pending.total, 0);
  });
});
