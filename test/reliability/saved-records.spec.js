// Malformed records in a persistent context store: a real Node-RED process with a
// `localfilesystem` store, stopped, its context file edited as a user, a copied install or a
// half-written disk would leave it, and started again. One record whose saved message was `null`
// used to kill the runtime at every start (issue 19); others ended as `internal`, sent arrays as
// messages or claimed an old, unrelated COMMAND_COMPLETE. Each bad record must be dropped with a
// warning naming the node, and the good one must still resume.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { control, waitFor, sleep } = require("../support/simulator");
const {
  withRestarts,
  deployFlows,
  accountNode,
  postNode,
  commandFlow,
  pressInject,
} = require("../support/node-red-process");

const WAIT = 30000;
/** Reads of an inbox or a stream, by path or id. */
const INBOX_GETS = "GET /v5.0/demo/event";
const EVENT_GETS = INBOX_GETS;

/** The restart flow (test/support/node-red-process.js), store "file". */
const commandFlows = (sim, sink) =>
  commandFlow(sim, sink, {
    label: "records",
    text: "records",
    fields: "id: msg.command && msg.command.id, isArray: Array.isArray(msg.payload)",
    awaitProps: { store: "file" },
  });

/** Bad records made from the good one: the field each must be dropped for, and its value. */
function badRecords(good) {
  const without = (key) => {
    const copy = { ...good };
    delete copy[key];
    return copy;
  };
  return {
    "msg-null": ["msg", { ...good, msg: "null" }],
    "msg-number": ["msg", { ...good, msg: "42" }],
    "msg-string": ["msg", { ...good, msg: '"text"' }],
    "msg-array": ["msg", { ...good, msg: '[{"payload":1}]' }],
    "msg-not-json": ["msg", { ...good, msg: "{" }],
    "msg-missing": ["msg", without("msg")],
    "record-null": ["record", null],
    "record-number": ["record", 7],
    "record-array": ["record", [good]],
    version: ["v", { ...good, v: 2 }],
    "inbox-empty": ["inbox", { ...good, inbox: {} }],
    "inbox-string": ["inbox", { ...good, inbox: "/demo/devices/lcd-board/:inbox" }],
    "inbox-relative": ["inbox", { ...good, inbox: { path: "devices/lcd-board/:inbox" } }],
    // An empty or foreign id matches any marker: each would take the old COMMAND_COMPLETE.
    "id-empty": ["commandId", { ...good, commandId: "" }],
    "id-number": ["commandId", { ...good, commandId: 17 }],
    // No id, and markers looked for since 1970: the first command's COMMAND_COMPLETE, still in
    // the inbox, would complete it.
    "claims-old-marker": ["since", { ...without("commandId"), since: 0 }],
    "since-null": ["since", { ...good, since: null }],
    "started-null": ["startedAt", { ...good, startedAt: null }],
    "started-future": ["startedAt", { ...good, startedAt: Date.now() + 10 * 86400000 }],
    // The docs say a start is not in the future: an hour ahead was taken (issue 28).
    "started-hour-ahead": [
      "startedAt",
      {
        ...good,
        startedAt: Date.now() + 3600000,
        since: Date.now() + 3600000,
        deadline: Date.now() + 3600000 + good.timeoutMs,
      },
    ],
    "timeout-negative": ["timeoutMs", { ...good, timeoutMs: -5 }],
    "timeout-huge": ["timeoutMs", { ...good, timeoutMs: 1e300 }],
    "deadline-other": ["deadline", { ...good, deadline: good.deadline + 1 }],
    "deadline-string": ["deadline", { ...good, deadline: "soon" }],
    "interval-zero": ["intervalMs", { ...good, intervalMs: 0 }],
    "ttl-string": ["ttl", { ...good, ttl: "5000" }],
  };
}

describe("malformed records in a persistent context store, at a restart", function () {
  this.timeout(180000);
  const env = withRestarts("/out", "/error", "/event");
  let sim;
  let sink;

  beforeEach(function () {
    ({ sim, sink } = env);
  });

  const commandsSent = async () =>
    (await control(sim, "GET", "/devices/lcd-board")).json.streams.command.count;

  const inject = (red) => pressInject(red, WAIT);

  it("should drop each bad saved wait with a warning naming the node, keep running, and resume the good one", async function () {
    const posted = sink.got["/out"];
    const outputs = (n) =>
      waitFor(() => posted.length >= n, {
        timeoutMs: WAIT,
        intervalMs: 50,
        what: `${n} outputs (got ${JSON.stringify(posted)}, errors ${JSON.stringify(sink.got["/error"])})`,
      });
    let red = await env.startRed();
    await deployFlows(red.url, commandFlows(sim, sink));
    // A first command completes: its COMMAND_COMPLETE stays in the inbox, old and unrelated.
    await inject(red);
    await outputs(1);
    assert.equal(posted[0].output, 0);
    const first = posted[0].id;
    // A second one waits for a device that went offline.
    await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
    await inject(red);
    await waitFor(async () => (await commandsSent()) === 2, { timeoutMs: WAIT, what: "cmd 2" });
    const polls = sim.stats().byRoute[INBOX_GETS] ?? 0;
    await waitFor(() => (sim.stats().byRoute[INBOX_GETS] ?? 0) > polls, {
      timeoutMs: WAIT,
      what: "an inbox poll",
    });
    await env.stopRed();

    const file = path.join(env.userDir, "context", "t1", "a1.json");
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    const keys = Object.keys(saved).filter((k) => k.startsWith("edgewire-await-"));
    assert.equal(keys.length, 1, JSON.stringify(saved));
    const good = saved[keys[0]];
    assert.notEqual(good.commandId, first);
    const bad = badRecords(good);
    for (const [name, [, value]] of Object.entries(bad))
      saved[`edgewire-await-bad-${name}`] = value;
    fs.writeFileSync(file, JSON.stringify(saved));

    red = await env.startRed();
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(2);
    await sleep(1500);
    // The good wait, once; nothing from the bad ones: no false complete, no array as a message.
    assert.equal(posted.length, 2, JSON.stringify(posted));
    assert.equal(posted[1].output, 0);
    assert.equal(posted[1].restored, true);
    assert.equal(posted[1].id, good.commandId);
    assert.deepEqual(sink.got["/error"], []);
    // Node-RED is still running and answering.
    assert.equal(red.child.exitCode, null);
    assert.equal((await fetch(`${red.url}/flows`)).status, 200);
    const log = red.output();
    assert.doesNotMatch(log, /TypeError|Cannot set properties/);
    for (const [name, [field]] of Object.entries(bad)) {
      const line =
        `[warn] [edge-await-command:a1] A saved wait (edgewire-await-bad-${name}) ` +
        `is not valid (field ${field}) and was dropped`;
      assert.ok(log.includes(line), `no warning for ${name}:\n${log}`);
    }
    // Dropped from the store too: the next start does not warn again.
    await env.stopRed();
    const after = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.deepEqual(
      Object.keys(after).filter((k) => k.startsWith("edgewire-await-")),
      [],
      JSON.stringify(after),
    );
  });

  it("should drop a bad saved watch position with a warning naming the node, and watch new events", async function () {
    const events = sink.got["/event"];
    const res = await control(sim, "POST", "/streams", { path: `/${sim.company}/records` });
    assert.equal(res.status, 201, res.text);
    const stream = res.json;
    const add = (round, count) =>
      control(sim, "POST", "/events", { streamId: stream.id, elems: { round }, count });
    const nodes = [
      { id: "t1", type: "tab", label: "records" },
      accountNode(sim),
      {
        id: "w1",
        type: "edge-watch-events",
        z: "t1",
        account: "acc",
        stream: stream.path,
        interval: 300,
        start: "resume",
        last: 10,
        store: "file",
        wires: [["f1"]],
      },
      {
        id: "f1",
        type: "function",
        z: "t1",
        func: "msg.payload = { seq: msg.payload.elems.seq, round: msg.payload.elems.round };\nreturn msg;",
        outputs: 1,
        wires: [["p1"]],
      },
      postNode("p1", "t1", `${sink.url}/event`),
    ];
    const readsNow = () => sim.stats().byRoute[EVENT_GETS] ?? 0;
    /** Waits for a read of the stream answered after `count` reads. */
    const readAfter = (count) =>
      waitFor(() => readsNow() > count, { timeoutMs: WAIT, what: "a read of the stream" });
    let red = await env.startRed();
    const first = readsNow();
    await deployFlows(red.url, nodes);
    await readAfter(first);
    await add("first", 1);
    await waitFor(() => events.length === 1, { timeoutMs: WAIT, what: "the first event" });
    await env.stopRed();
    const file = path.join(env.userDir, "context", "t1", "w1.json");
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.equal(saved.position.stream, stream.path);

    const variants = [
      // A date in the far future would hold back every event for good.
      ["date", { ...saved.position, date: 9e15 }],
      ["record", "position"],
      ["ids", { ...saved.position, ids: [1, 2] }],
    ];
    for (const [i, [field, value]] of variants.entries()) {
      fs.writeFileSync(file, JSON.stringify({ ...saved, position: value }));
      await add(`while down ${i}`, 2);
      red = await env.startRed();
      const line = `[warn] [edge-watch-events:w1] The saved position is not valid (field ${field})`;
      await waitFor(() => red.output().includes(line), {
        timeoutMs: WAIT,
        what: `the warning for ${field}\n${red.output()}`,
      });
      // The warning comes before the watch starts: a read answered after it is the start's.
      await readAfter(readsNow());
      // As "new events only": what arrived while down is not sent, what arrives now is.
      const before = events.length;
      await add(`after ${i}`, 1);
      await waitFor(() => events.length > before, {
        timeoutMs: WAIT,
        what: `the event after restart ${i} (${JSON.stringify(events)})`,
      });
      assert.equal(red.child.exitCode, null);
      await env.stopRed();
    }
    assert.deepEqual(
      events.map((e) => `${e.round}#${e.seq}`),
      ["first#0", "after 0#0", "after 1#0", "after 2#0"],
    );
  });
});
