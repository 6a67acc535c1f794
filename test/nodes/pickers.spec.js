// The editor's device and stream pickers: the hosted service's lists (GET /device, GET /stream)
// in the simulator, and the admin route that reads them with the deployed or the typed account,
// a page at a time, cached briefly, and says when a server lists nothing.
"use strict";
const assert = require("node:assert/strict");
const { startSim, api, waitFor } = require("../support/simulator");
const { load, account, helper } = require("../support/red");
const { startRestricted } = require("../support/restricted-server");
const {
  startNodeRed,
  adminAuth,
  login,
  deployFlows,
  accountNode,
} = require("../support/node-red-process");
const { unload } = require("../support/red");

const SEED = require("../../simulator/seed.json");

/** The seed with `n` more devices of company demo, dev-000 to dev-<n-1>. */
function bigSeed(n) {
  const seed = structuredClone(SEED);
  for (let i = 0; i < n; i++)
    seed.devices.push({ name: `dev-${String(i).padStart(3, "0")}`, company: "demo" });
  return seed;
}

describe("GET /device and GET /stream in the simulator", function () {
  let sim;
  before(async function () {
    sim = await startSim({ seed: bigSeed(150) });
  });
  after(async function () {
    await sim.close();
  });

  it("pages the company's devices with limit and start, oldest first", async function () {
    const first = await api(sim, "GET", "/device?limit=100&start=0");
    assert.equal(first.status, 200);
    assert.equal(first.json.body.length, 100);
    assert.equal(first.json.body[0].name, "lcd-board");
    const rest = await api(sim, "GET", "/device?limit=100&start=100");
    // 3 seeded demo devices and 150 more; other-board belongs to another company.
    assert.equal(rest.json.body.length, 53);
    assert.ok(!rest.json.body.some((d) => d.name === "other-board"));
    assert.equal((await api(sim, "GET", "/device")).json.body.length, 20);
  });

  it("keeps only the fields of `only` and the devices `filter` matches", async function () {
    const res = await api(
      sim,
      "GET",
      `/device?only=id,name&filter=${encodeURIComponent('name=="pump-3"')}`,
    );
    assert.deepEqual(res.json.body, [{ id: "d5f3c1a2b0000000000000003", name: "pump-3" }]);
    const both = await api(
      sim,
      "GET",
      `/device?limit=1000&only=name&filter=${encodeURIComponent('name>="dev-148" && name<"dev-2" && name EXISTS')}`,
    );
    assert.deepEqual(
      both.json.body.map((d) => d.name),
      ["dev-148", "dev-149"],
    );
  });

  it("answers 400 for a filter it cannot read", async function () {
    const res = await api(sim, "GET", `/device?filter=${encodeURIComponent("name ~ pump")}`);
    assert.equal(res.status, 400);
    assert.match(res.json.head.errors[0], /Invalid filter expression/);
  });

  it("lists the company's streams, the devices' own included", async function () {
    const res = await api(sim, "GET", "/stream?limit=1000&only=id,path");
    const paths = res.json.body.map((s) => s.path);
    assert.ok(paths.includes("/demo/telemetry"));
    assert.ok(paths.includes("/demo/devices/lcd-board/:inbox"));
    assert.ok(!paths.some((p) => p.startsWith("/other/")));
  });
});

describe("the picker route (POST /edge-account/directory)", function () {
  let sim;
  before(function (done) {
    helper.startServer(done);
  });
  after(function (done) {
    helper.stopServer(done);
  });
  beforeEach(async function () {
    sim = await startSim({ seed: bigSeed(150) });
  });
  afterEach(async function () {
    await unload();
    await sim.close();
  });

  async function deploy(target = sim) {
    const acc = account(target);
    await load([acc.node], acc.credentials);
  }

  async function ask(body) {
    const res = await helper.request().post("/edge-account/directory").send(body).expect(200);
    return res.body;
  }

  it("lists the deployed account's devices with their ids, and at most 50 at once", async function () {
    await deploy();
    const all = await ask({ account: "acc", kind: "devices" });
    assert.equal(all.items.length, 50);
    assert.equal(all.truncated, true);
    assert.deepEqual(all.items[0], { value: "lcd-board", detail: "d5f3c1a2b0000000000000001" });
    // A search reaches past the first page of 100 devices.
    const found = await ask({ account: "acc", kind: "devices", search: "DEV-14" });
    assert.deepEqual(
      found.items.map((i) => i.value),
      Array.from({ length: 10 }, (_, i) => `dev-14${i}`),
    );
    assert.equal(found.truncated, false);
    const byId = await ask({ account: "acc", kind: "devices", search: "0000000000003" });
    assert.deepEqual(byId.items, [{ value: "pump-3", detail: "d5f3c1a2b0000000000000003" }]);
  });

  it("lists a device's :command and :inbox and the streams the server lists", async function () {
    await deploy();
    const both = await ask({ account: "acc", kind: "streams", search: "lcd-board" });
    assert.deepEqual(
      both.items.map((i) => i.value),
      ["/demo/devices/lcd-board/:command", "/demo/devices/lcd-board/:inbox"],
    );
    assert.equal(both.items[1].detail, "s5f3c1a2b0000000000000012");
    const inbox = await ask({ account: "acc", kind: "streams", stream: ":inbox", search: "pump" });
    assert.deepEqual(
      inbox.items.map((i) => i.value),
      ["/demo/devices/pump-3/:inbox"],
    );
    const free = await ask({ account: "acc", kind: "streams", search: "tele" });
    assert.deepEqual(free.items, [
      { value: "/demo/telemetry", detail: "s5f3c1a2b0000000000000101" },
    ]);
  });

  it("lists the data streams first, then the devices' :command and :inbox (153 devices)", async function () {
    await deploy();
    const all = await ask({ account: "acc", kind: "streams" });
    const values = all.items.map((i) => i.value);
    const device = (v) => /\/devices\/[^/]+\/:(command|inbox)$/.test(v);
    const firstDevice = values.findIndex(device);
    assert.ok(firstDevice > 0, values.join(", "));
    assert.ok(values.slice(firstDevice).every(device), values.join(", "));
    assert.ok(values.slice(0, firstDevice).includes("/demo/telemetry"), values.join(", "));
    assert.equal(all.items.length, 50);
    assert.equal(all.truncated, true);
    assert.equal(values[firstDevice], "/demo/devices/lcd-board/:command");
  });

  it("reads each page once while it is fresh", async function () {
    await deploy();
    await ask({ account: "acc", kind: "devices", search: "dev-1" });
    const before = sim.stats().total;
    await ask({ account: "acc", kind: "devices", search: "dev-12" });
    assert.equal(sim.stats().total, before);
  });

  for (const status of [404, 405]) {
    it(`says the server lists no devices when it answers ${status}`, async function () {
      const server = await startRestricted(sim, { noList: status });
      try {
        await deploy(server);
        assert.deepEqual(await ask({ account: "acc", kind: "devices", search: "x" }), {
          unsupported: true,
        });
        assert.deepEqual(await ask({ account: "acc", kind: "streams" }), { unsupported: true });
      } finally {
        await server.close();
      }
    });
  }

  it("reads with typed values before the account is deployed, and says so when it cannot", async function () {
    assert.deepEqual(await ask({ account: "new", kind: "devices" }), { needsDeploy: true });
    const typed = { baseUrl: sim.url, company: "demo", user: sim.user, token: sim.token };
    const listed = await ask({ account: "new", kind: "devices", search: "pump", typed });
    assert.deepEqual(
      listed.items.map((i) => i.value),
      ["pump-3"],
    );
    const wrong = await ask({
      account: "new",
      kind: "devices",
      typed: { ...typed, token: "not-the-token" },
    });
    assert.match(wrong.error, /refused the credentials \(HTTP 401\)/);
  });

  it("never sends the stored token to a URL typed in the dialog", async function () {
    await deploy();
    const other = await startSim();
    try {
      const before = other.stats().total;
      // An unchanged password field: the deployed account reads, with its own URL.
      const answer = await ask({
        account: "acc",
        kind: "devices",
        search: "pump",
        typed: { baseUrl: other.url, company: "demo", token: "__PWRD__" },
      });
      assert.deepEqual(
        answer.items.map((i) => i.value),
        ["pump-3"],
      );
      assert.equal(other.stats().total, before);
    } finally {
      await other.close();
    }
  });
});

describe("the picker route with adminAuth on, in a real Node-RED", function () {
  this.timeout(60000);
  let red;
  let sim;
  before(async function () {
    sim = await startSim();
    red = await startNodeRed({
      settings: adminAuth([
        { username: "viewer", password: "password", permissions: "read" },
        { username: "admin", password: "admin-pass", permissions: "*" },
      ]),
    });
    const admin = await login(red, "admin", "admin-pass");
    await deployFlows(red.url, [accountNode(sim)], {
      headers: { authorization: `Bearer ${admin}` },
    });
    // Node-RED answers a deploy before the new flows have started.
    await waitFor(() => (red.output().match(/\] Started flows/g) ?? []).length >= 2, {
      timeoutMs: 10000,
      what: "the deployed flows to start",
    });
  });
  after(async function () {
    await red?.stop();
    await sim?.close();
  });

  const typedBody = () =>
    JSON.stringify({
      account: "new",
      kind: "devices",
      typed: { baseUrl: sim.url, company: "demo", token: sim.token },
    });

  it("refuses a caller who is not logged in", async function () {
    const res = await fetch(`${red.url}/edge-account/directory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typedBody(),
    });
    assert.equal(res.status, 401);
  });

  it("lists a deployed account's devices to a caller with read permission (edge-account.read), and refuses it typed values", async function () {
    const bearer = await login(red, "viewer", "password", "read");
    const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
    const res = await fetch(`${red.url}/edge-account/directory`, {
      method: "POST",
      headers,
      body: JSON.stringify({ account: "acc", kind: "devices" }),
    });
    assert.equal(res.status, 200);
    assert.ok((await res.json()).items.some((i) => i.value === "lcd-board"));
    const typed = await fetch(`${red.url}/edge-account/directory`, {
      method: "POST",
      headers,
      body: typedBody(),
    });
    // Typed values need edge-account.write: Node-RED answers 401 to a user without it.
    assert.equal(typed.status, 401);
  });
});
