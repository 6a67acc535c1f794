// Flows users saved with an earlier release keep working: each flows-<version>.json in
// test/fixtures/ holds what that release's editor exported (the examples as they were, and one tab
// with every node and every property at a value other than its default; credentials are never
// exported). Each is deployed on the current code and checked to do what its property values say,
// through its messages, its status and the simulator's request log, not only to deploy.
//
// When a node gains a property, the fixture gains it too, at a value other than its default, with
// a check here of what the value does (the first two tests fail until it does). When a property
// is renamed or changes meaning, the fixture stays as it was saved: the node then migrates the old
// value, at its start and in the editor, and this spec shows the saved flow still behaving.
// edge-send-command's Command (elemsFrom) came after 0.1.0, when a typed Elems began to win over
// an object msg.payload: a node saved without it keeps 0.1.0's rule (example 02's fault case
// relies on it) and says so once.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { Agent, fetch: tlsFetch } = require("undici");
const { start } = require("../../dist/simulator");
const { editorForms } = require("../support/editor-forms");
const { exampleRuns, run } = require("../support/example-runs");
const { helper, statuses, withRed } = require("../support/red");
const { makeCertificates, hasOpenssl } = require("../support/certificates");
const { sleep, waitFor } = require("../support/simulator");

const FIXTURES = path.join(__dirname, "..", "fixtures");
const FIXTURE = "flows-0.1.0.json";
const TYPES = Object.keys(require("../../package.json")["node-red"].nodes);

/** The examples of 0.1.0 by their file name then, and the id of the tab each file held. */
const EXAMPLE_TABS = {
  "01-device-state-read-replace-merge.json": "e5a1d51a00000001",
  "02-send-command-and-await-result.json": "e5a1c0d000000001",
  "03-list-events-page-by-page-and-all.json": "e5a1e7e000000001",
  "04-set-lcd-text-await-read-events.json": "e5a1c4a100000001",
  "05-watch-telemetry-threshold-command.json": "e5a1c0d500000001",
  "06-command-ttl-within-timeout.json": "e5a1c0d600000001",
};
/** The tab with every node and every property at a value other than its default. */
const EVERY_PROPERTY = "9c7e2b05d1a304e1";
/**
 * Node types made after the last release, which no user can have saved yet. The release that
 * ships one exports a flows-<version>.json holding it (edge-fleet-command: the first release
 * after 0.1.0), with its checks here, and takes it off this list.
 */
const NOT_RELEASED = ["edge-fleet-command"];
/** The context store the await and watch nodes of that tab name, declared in Node-RED's settings. */
const STORE = "saved";

/** The keys a node holds in a context store. */
function storeKeys(node, store) {
  return new Promise((resolve, reject) => {
    node.context().keys(store, (err, keys) => (err ? reject(err) : resolve(keys)));
  });
}

function readFixture(file) {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, file), "utf8"));
}

function fixtureFiles() {
  return fs.readdirSync(FIXTURES).filter((f) => /^flows-\d+\.\d+\.\d+\.json$/.test(f));
}

/** One tab of a saved export, as an import of it gives: the tab, its nodes, the config they use. */
function tabOf(flows, tabId) {
  const tab = flows.find((n) => n.id === tabId && n.type === "tab");
  assert.ok(tab, `no tab ${tabId} in the fixture`);
  const onTab = flows.filter((n) => n.z === tabId);
  const used = new Set(onTab.flatMap((n) => Object.values(n)).filter((v) => typeof v === "string"));
  const configs = flows.filter((n) => n.type !== "tab" && n.z === undefined && used.has(n.id));
  // A config node uses others in turn (the account its tls-config).
  const more = new Set(
    configs.flatMap((n) => Object.values(n)).filter((v) => typeof v === "string"),
  );
  const nested = flows.filter((n) => n.z === undefined && more.has(n.id) && !used.has(n.id));
  return [tab, ...configs, ...nested, ...onTab];
}

/** The properties a node's editor saves (its defaults), by type, from the .html files. */
function savedProperties() {
  const { definitions } = editorForms();
  return Object.fromEntries(TYPES.map((t) => [t, definitions[t].defaults]));
}

describe("saved flows", function () {
  describe("the fixtures", function () {
    it("should hold every node type of the package, but those no release has saved yet", function () {
      const saved = new Set(fixtureFiles().flatMap((f) => readFixture(f).map((n) => n.type)));
      for (const type of TYPES)
        assert.ok(
          saved.has(type) || NOT_RELEASED.includes(type),
          `${type} is in no flows-<version>.json of test/fixtures/: add one for the version that ` +
            "brings it, with a tab of every property at a value other than its default",
        );
      // The list empties as fixtures come: a type saved in one, or gone, leaves it.
      for (const type of NOT_RELEASED) {
        assert.ok(TYPES.includes(type), `${type} is no node of the package`);
        assert.ok(!saved.has(type), `${type} is in a fixture now: take it off NOT_RELEASED`);
      }
    });

    it("should hold every property the editor saves at a value other than its default, on one tab", function () {
      // A property added after 0.1.0 goes on this tab only: the examples' tabs stay as they were
      // saved, without it, as users' flows are.
      const properties = savedProperties();
      const tab = tabOf(readFixture(FIXTURE), EVERY_PROPERTY);
      for (const [type, defaults] of Object.entries(properties)) {
        const nodes = tab.filter((n) => n.type === type);
        if (nodes.length === 0) continue; // a node of a later version: the test above asks for it
        for (const [key, d] of Object.entries(defaults)) {
          const set = nodes.some(
            (n) => key in n && JSON.stringify(n[key]) !== JSON.stringify(d.value),
          );
          assert.ok(
            set,
            `${type}.${key} is missing or at its default (${JSON.stringify(d.value)}) on the ` +
              `every-property tab of ${FIXTURE}: set it there to another value and check in ` +
              "this spec what that value does",
          );
        }
      }
    });

    it("should hold the six examples of 0.1.0 and nothing an export leaves out", function () {
      const flows = readFixture(FIXTURE);
      for (const tabId of Object.values(EXAMPLE_TABS)) tabOf(flows, tabId);
      assert.deepEqual(
        flows.filter((n) => n.credentials !== undefined).map((n) => n.id),
        [],
      );
      assert.doesNotMatch(JSON.stringify(flows.filter((n) => n.type !== "comment")), /demo-token/);
      // As the editor exports: tabs first, then config nodes, then the nodes of the tabs.
      const kinds = flows.map((n) => (n.type === "tab" ? 0 : n.z === undefined ? 1 : 2));
      assert.deepEqual(
        kinds,
        [...kinds].sort((a, b) => a - b),
      );
      const ids = flows.map((n) => n.id);
      assert.equal(new Set(ids).size, ids.length, "an id is used twice");
    });
  });

  describe("the examples as 0.1.0 saved them, run on this version", function () {
    const flows = readFixture(FIXTURE);
    exampleRuns((file) => {
      assert.ok(EXAMPLE_TABS[file], `no example ${file} in ${FIXTURE}`);
      return tabOf(flows, EXAMPLE_TABS[file]);
    });
  });

  describe("every property at a value other than its default, run on this version", function () {
    const flows = readFixture(FIXTURE);
    const tab = tabOf(flows, EVERY_PROPERTY);
    const byName = (type, name) => {
      const n = tab.find((x) => x.type === type && (name === undefined || x.name === name));
      assert.ok(n, `no ${type} ${name ?? ""} on the every-property tab`);
      return n;
    };
    const accountDef = byName("edge-account");
    const deviceStateDef = byName("edge-device-state");
    const sendDef = byName("edge-send-command");
    const awaitDef = byName("edge-await-command");
    const listDef = byName("edge-list-events");
    const watchDef = byName("edge-watch-events");
    let certs;
    let agent;
    let sim;
    let original;

    before(function () {
      if (!hasOpenssl()) this.skip();
      certs = makeCertificates();
      agent = new Agent({ connect: { ca: fs.readFileSync(certs.ca) } });
      // The saved await and watch nodes name a context store "saved": Node-RED's settings.js
      // declares it. The test helper loads no context store of the settings on its own, so it is
      // loaded before each deploy, as Node-RED's runtime does at start.
      helper.settings({
        contextStorage: { default: { module: "memory" }, [STORE]: { module: "memory" } },
      });
      const nodes = helper._redNodes;
      original = nodes.loadFlows;
      nodes.loadFlows = async function (...args) {
        await nodes.loadContextsPlugin();
        return original.apply(this, args);
      };
    });
    after(async function () {
      if (original) helper._redNodes.loadFlows = original;
      helper.settings({});
      await agent?.close();
      if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
    });
    withRed();
    beforeEach(async function () {
      sim = await start({ port: 0, quiet: true, commandDelayMs: 20, tls: certs.signed });
    });
    afterEach(async function () {
      await sim?.close();
      sim = undefined;
    });

    /** The simulator's control interface, over TLS with the private CA the saved flow trusts. */
    async function control(method, route, body) {
      const res = await tlsFetch(`${sim.url}/_sim${route}`, {
        method,
        dispatcher: agent,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await res.json();
      assert.ok(res.status < 300, `${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    }

    /**
     * The requests the simulator answered or holds, with `line` ("METHOD /path?query") and
     * `stream` (the path a read of events by path names); the watch node's reads of its stream go
     * on all along, and are left out unless `watch` is set.
     */
    async function requests({ watch = false } = {}) {
      const list = await control("GET", "/requests?limit=10000");
      return list
        .map((r) => ({
          ...r,
          line: `${r.method} ${r.url}`,
          stream: new URL(r.url, sim.url).searchParams.get("path"),
        }))
        .filter((r) => watch || r.stream !== watchDef.stream);
    }

    /** The saved tab, deployed as saved but for the simulator's address and the CA's file. */
    async function deploy() {
      const flow = tab.map((n) => (n.type === "tls-config" ? { ...n, ca: certs.ca } : n));
      const started = await run(flow, sim);
      const get = (def) => helper.getNode(def.id);
      return { ...started, get };
    }

    const inject = (running, def) =>
      running.inject(tab.find((n) => n.wires?.[0]?.[0] === def.id && n.type === "inject").name);

    it("account: reaches the server over TLS with the tls-config's CA, as the company, with its limits, past its http proxy for the hosts it bypasses", async function () {
      assert.equal(accountDef.useTls, true);
      // The proxy (nothing listens on its port) lists the simulator's host to bypass: a request
      // sent to it would fail with proxy-refused.
      const proxyDef = tab.find((n) => n.id === accountDef.proxy);
      assert.equal(proxyDef.type, "http proxy");
      assert.deepEqual(proxyDef.noproxy, ["127.0.0.1"]);
      const running = await deploy();
      inject(running, deviceStateDef);
      await running.debugged("state");
      const log = await requests();
      assert.ok(log.length > 0);
      for (const r of log) assert.match(r.pathname, /^\/v5\.0\/demo\//, r.line);
      const res = await helper.request().get("/edge-account/sidebar").expect(200);
      const account = res.body.accounts.find((a) => a.id === accountDef.id);
      assert.equal(account.name, "every property");
      assert.equal(account.health.limit, Number(accountDef.rate));
      assert.equal(account.health.concurrent, Number(accountDef.concurrency));
      assert.equal(account.health.queueMax, Number(accountDef.queue));
      // Polls/s is not shown in the sidebar: the account's limiter holds it.
      const limits = running.get(accountDef).services.client.limiter.limits;
      assert.equal(limits.pollPerSecond, Number(accountDef.pollRate));
    });

    it("account: sends at most Concurrency requests at once", async function () {
      const running = await deploy();
      // The next eight reads of events (the list's, and the watch's of its stream) are answered
      // 600 ms late, so requests pile up unless the account holds them back.
      await control("POST", "/faults", {
        method: "GET",
        path: "/event",
        answerDelayMs: 600,
        count: 8,
      });
      for (let i = 0; i < 4; i++) inject(running, listDef);
      // Requests of the account the simulator holds, sampled until every event is out: never
      // more than Concurrency (2; the default 8 would let all four lists read at once).
      let most = 0;
      const done = running.debugged("event", 12, 20000);
      let finished = false;
      done.then(
        () => (finished = true),
        () => (finished = true),
      );
      while (!finished) {
        const held = (await requests({ watch: true })).filter((r) => r.status === null).length;
        most = Math.max(most, held);
        await sleep(50);
      }
      assert.equal((await done).length, 12);
      assert.equal(most, Number(accountDef.concurrency));
    });

    it("account: holds at most Queue messages beyond those in flight, and refuses the rest", async function () {
      const running = await deploy();
      // Ten listings at once: Concurrency (2) start, Queue (4) wait, four are refused at once.
      for (let i = 0; i < 10; i++) inject(running, listDef);
      const refused = await running.debugged("error", 4);
      for (const m of refused)
        assert.match(m.error.message, /^Too many requests waiting for this account \(4 queued\)/);
      await running.debugged("event", 18);
      await sleep(500);
      assert.equal(running.seen.event.length, 18);
      assert.equal(running.seen.error.length, 4);
    });

    it("account: starts at most Requests/s requests in any second", async function () {
      const running = await deploy();
      // Four waves of six listings of two pages each: 48 reads, more than one second's 40, each
      // wave within what the account holds (Concurrency 2 and Queue 4).
      for (let wave = 1; wave <= 4; wave++) {
        for (let i = 0; i < 6; i++) inject(running, listDef);
        await running.debugged("event", 18 * wave, 10000);
      }
      const starts = (await requests())
        .filter((r) => r.stream === listDef.stream)
        .map((r) => r.time)
        .sort((x, y) => x - y);
      assert.equal(starts.length, 48);
      /** The most reads the simulator received in any window of `ms` from one of them on. */
      const most = (ms) =>
        Math.max(...starts.map((t) => starts.filter((u) => u >= t && u < t + ms).length));
      // Requests/s 40: the account starts no more in any second, so the simulator, which
      // receives each a little later than it started, sees no more in 800 ms; and more than 30 in
      // some second, which the default 20 would not let through.
      assert.ok(most(800) <= Number(accountDef.rate), `${most(800)} in 800 ms`);
      assert.ok(most(1000) > 30, `${most(1000)} in a second`);
    });

    it("account: times out a request after Timeout and tries it again Retries times", async function () {
      const running = await deploy();
      const device = `/device/${deviceStateDef.device}`;
      // One read held 4 s: over the 3 s Timeout (not the default 10 s), so it is tried again.
      await control("POST", "/faults", { method: "GET", path: device, delayMs: 4000, count: 1 });
      const t0 = Date.now();
      inject(running, deviceStateDef);
      await running.debugged("state", 1, 15000);
      assert.ok(Date.now() - t0 >= Number(accountDef.timeout), "answered before the timeout");
      const reads = (await requests()).filter(
        (r) => r.method === "GET" && r.pathname.endsWith(device),
      );
      assert.equal(reads.length, 2, reads.map((r) => r.line).join("\n"));
      // 503 on every read: one retry (Retries 1, not the default 3), then the error.
      await control("DELETE", "/requests");
      await control("POST", "/faults", { method: "GET", path: device, status: 503, count: 10 });
      inject(running, deviceStateDef);
      const [caught] = await running.debugged("error", 1, 15000);
      assert.match(caught.error.message, /failed with HTTP 503/);
      const again = (await requests()).filter(
        (r) => r.method === "GET" && r.pathname.endsWith(device),
      );
      assert.equal(again.length, Number(accountDef.retries) + 1);
    });

    it("account: refuses a body over Max payload before sending it, and an answer over Max answer", async function () {
      const running = await deploy();
      const node = running.get(deviceStateDef);
      node.receive({ payload: { "/lcd/txt1": "x".repeat(Number(accountDef.maxPayload)) } });
      const [tooBig] = await running.debugged("error");
      assert.match(tooBig.error.message, /over the account's limit of 2048 bytes/);
      assert.equal((await requests()).length, 0, "a request was sent");
      // Two readings larger than Max answer, the newest: the first page from Start (1) holds one.
      for (let i = 0; i < 2; i++)
        await control("POST", "/events", {
          path: listDef.stream,
          elems: { note: "y".repeat(Number(accountDef.maxAnswer)) },
        });
      running.get(listDef).receive({ payload: "" });
      const [, tooLarge] = await running.debugged("error", 2);
      assert.match(tooLarge.error.message, /over the account's Max answer of 20000 bytes/);
    });

    it("edge-device-state: merges into the saved device's state", async function () {
      assert.equal(deviceStateDef.mode, "merge");
      const running = await deploy();
      inject(running, deviceStateDef);
      const [state] = await running.debugged("state");
      // Merged: the pump's own key stays beside the one the message sets (get would change
      // nothing, replace would drop /app/enable/value).
      assert.deepEqual(state.payload, {
        "/app/enable/value": false,
        "/lcd/txt1": "merged by a saved flow",
      });
      const lines = (await requests()).map((r) => `${r.method} ${r.pathname}`);
      assert.deepEqual(lines, ["GET /v5.0/demo/device/pump-3", "PUT /v5.0/demo/device/pump-3"]);
    });

    it("edge-send-command and edge-await-command: the stream by id, the ttl, the inbox by id, complete", async function () {
      const running = await deploy();
      const lcdBefore = await control("GET", "/devices/lcd-board");
      inject(running, sendDef);
      const [complete] = await running.debugged("complete");
      assert.match(JSON.stringify(complete.payload.elems), /COMMAND_COMPLETE/);
      assert.equal(complete.command.streamId, sendDef.stream);
      assert.equal(complete.command.ttl, Number(sendDef.ttl));
      const log = await requests();
      // Target stream: the event goes to the stream's id (Device, lcd-board, is not used).
      const posts = log.filter((r) => r.method === "POST");
      assert.deepEqual(
        posts.map((r) => r.pathname),
        [`/v5.0/demo/event/${sendDef.stream}`],
      );
      assert.equal(JSON.parse(posts[0].body).metadata.ttl, Number(sendDef.ttl));
      const lcdAfter = await control("GET", "/devices/lcd-board");
      assert.equal(lcdAfter.streams.command.count, lcdBefore.streams.command.count);
      assert.deepEqual(JSON.parse(posts[0].body).elems, { "/app/enable/value": true });
      // Command msg.payload: an object msg.payload is the command, in place of the Elems.
      assert.equal(sendDef.elemsFrom, "payload");
      running.get(sendDef).receive({ payload: { "/app/enable/value": false } });
      await running.debugged("complete", 2);
      const sent = (await requests()).filter((r) => r.method === "POST");
      assert.deepEqual(JSON.parse(sent[1].body).elems, { "/app/enable/value": false });
      const sendNode = running.get(sendDef);
      assert.deepEqual(
        sendNode.warn.getCalls().filter((c) => c.thisValue === sendNode),
        [],
      );
      // The inbox as saved, by id, not the path the command's device would give.
      const reads = log.filter(
        (r) => r.method === "GET" && r.pathname.startsWith("/v5.0/demo/event"),
      );
      assert.ok(reads.length > 0);
      for (const r of reads) assert.equal(r.pathname, `/v5.0/demo/event/${awaitDef.inbox}`, r.line);
    });

    it("edge-await-command: times out after its Timeout, before the ttl ends, reading every Interval, its wait in its store", async function () {
      const running = await deploy();
      await control("PUT", "/devices/pump-3/online", { online: false });
      const awaitNode = running.get(awaitDef);
      const t0 = Date.now();
      inject(running, sendDef);
      // The pending wait is kept in the store the node names, not in the default store.
      await waitFor(async () => (await storeKeys(awaitNode, STORE)).length > 0, {
        timeoutMs: 5000,
        what: "the wait in the saved store",
      });
      assert.deepEqual(await storeKeys(awaitNode, "default"), []);
      // Timeout 1.5 s: timed out. Blank, the timeout would be the command's ttl (2 s), and the
      // simulator's "ttl expired" fault for the offline pump would end the wait on the fault output.
      const [timedOut] = await running.debugged("timed out", 1, 10000);
      const waited = Date.now() - t0;
      assert.equal(timedOut.payload, null);
      assert.ok(waited >= Number(awaitDef.timeout), `timed out after ${waited} ms`);
      assert.equal(running.seen.complete.length + running.seen.fault.length, 0);
      const warned = awaitNode.warn.getCalls().map((c) => String(c.args[0]));
      assert.ok(
        warned.some((w) =>
          /ttl \(2000 ms\) is longer than this node's timeout \(1500 ms\)/.test(w),
        ),
        JSON.stringify(warned),
      );
      const inbox = `/v5.0/demo/event/${awaitDef.inbox}`;
      const reads = (await requests()).filter((r) => r.pathname === inbox);
      // An Interval of 300 ms reads the inbox about five times in 1.5 s; the default 1 s, twice.
      assert.ok(reads.length >= 4, `${reads.length} reads of the inbox`);
    });

    it("edge-list-events: one message per event from Start, Limit a page, at most Max events", async function () {
      const running = await deploy();
      inject(running, listDef);
      const events = await running.debugged("event", 3);
      await sleep(300);
      assert.equal(running.seen.event.length, Number(listDef.maxEvents));
      assert.equal(events.at(-1).parts.count, 3);
      const pages = (await requests())
        .filter((r) => r.stream === listDef.stream)
        .map((r) => new URL(r.url, sim.url).searchParams);
      assert.deepEqual(
        pages.map((q) => [q.get("limit"), q.get("start")]),
        [
          ["2", "1"],
          ["2", "3"],
        ],
      );
      // The stream's events, newest first, from the second (Start 1) on.
      const listed = await tlsFetch(
        `${sim.url}/v5.0/demo/event?path=${encodeURIComponent(listDef.stream)}&start=1&limit=3`,
        { dispatcher: agent, headers: { "x-auth-token": sim.token, "x-auth-user": sim.user } },
      ).then((r) => r.json());
      assert.deepEqual(
        events.map((m) => m.payload.id),
        listed.body.map((e) => e.id),
      );
      assert.equal(running.seen.error.length, 0);
    });

    it("edge-watch-events: starts with the last 2 events, reads every Interval, keeps its position in its store", async function () {
      const running = await deploy();
      const watch = running.get(watchDef);
      const shown = statuses(watch);
      const [first, second] = await running.debugged("watched", 2, 10000);
      const page = await tlsFetch(
        `${sim.url}/v5.0/demo/event?path=${encodeURIComponent(watchDef.stream)}&limit=2`,
        { dispatcher: agent, headers: { "x-auth-token": sim.token, "x-auth-user": sim.user } },
      ).then((r) => r.json());
      assert.deepEqual(
        [first.payload.id, second.payload.id].sort(),
        page.body.map((e) => e.id).sort(),
      );
      await sleep(500);
      assert.equal(running.seen.watched.length, 2, "more than the last 2 at the start");
      await control("POST", "/events", { path: watchDef.stream, elems: { temperature: 30 } });
      const [, , third] = await running.debugged("watched", 3, 10000);
      assert.equal(third.payload.elems.temperature, 30);
      // Its position is kept in the store it names, not in the default store.
      assert.deepEqual(await storeKeys(watch, STORE), ["position"]);
      assert.deepEqual(await storeKeys(watch, "default"), []);
      // Reads of the stream in 2 s: about five at an Interval of 400 ms, none at the default 5 s.
      const t0 = Date.now();
      await sleep(2000);
      const reads = (await requests({ watch: true })).filter(
        (r) => r.stream === watchDef.stream && r.time >= t0,
      );
      assert.ok(reads.length >= 3, `${reads.length} reads in 2 s`);
      assert.ok(shown.length > 0);
    });
  });
});
