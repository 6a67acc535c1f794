// nodes/lib/fleet/targets.ts: the devices of a fleet job from the node's text, msg.devices and a
// filter on the server's device list; each device once, by name, an id that cannot be looked up
// failed at once with its error. The client is a stand-in with a device list and GET /device/<id>.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { parseDeviceText, checkDeviceList, resolveTargets, MAX_DEVICES } = lib("fleet/targets");
const { EdgeError } = lib("api/errors");
const { DeviceNames } = lib("device/names");

const id = (n) => `d${String(n).padStart(24, "0")}`;

/** Devices `name` with ids id(i); `getDevice` answers an id, `list` pages the filtered list. */
function fakeClient(devices = [], o = {}) {
  const c = {
    lists: [],
    gets: [],
    inFlight: 0,
    maxInFlight: 0,
    limiter: { limits: { concurrent: o.concurrent ?? 4 } },
    budgetMs: () => o.budgetMs ?? 1000,
    async list(kind, query) {
      c.lists.push({ kind, ...query });
      if (o.listError) throw o.listError;
      return devices.slice(query.start, query.start + query.limit);
    },
    async getDevice(ref) {
      c.gets.push(ref);
      c.inFlight++;
      c.maxInFlight = Math.max(c.maxInFlight, c.inFlight);
      await new Promise((r) => setImmediate(r));
      c.inFlight--;
      const err = o.getError?.(ref, c.gets.length);
      if (err) throw err;
      const d = devices.find((x) => x.id === ref);
      if (!d) throw new EdgeError("not-found", {}, { status: 404 });
      return d;
    },
  };
  return c;
}

const describeErr = (err) => `said ${err.code}`;

async function resolve(client, given, filter, call = {}) {
  return resolveTargets(client, new DeviceNames(client), given, filter, call, describeErr);
}

describe("unit: fleet/targets", function () {
  describe("parseDeviceText", function () {
    it("should split the node's Devices at commas and new lines, trimmed, blanks left out", function () {
      assert.deepEqual(parseDeviceText(" a, b\nc\r\n\r\n,, d \n"), ["a", "b", "c", "d"]);
      assert.deepEqual(parseDeviceText(""), []);
      assert.deepEqual(parseDeviceText(" x y "), ["x y"]);
    });
  });

  describe("checkDeviceList", function () {
    it("should take ids and names, and a number as an id written without quotes", function () {
      assert.deepEqual(checkDeviceList([" a ", 12, "b"]), ["a", "12", "b"]);
      assert.deepEqual(checkDeviceList([]), []);
    });

    it("should refuse what is not a list, saying what it was", function () {
      for (const [value, detail] of [
        [undefined, "undefined"],
        ["", "empty"],
        ["  ", "blank"],
        ["a,b", "a string"],
        [{}, "an object"],
        [null, "null"],
      ]) {
        assert.throws(
          () => checkDeviceList(value),
          (err) => err.code === "bad-devices" && err.params.detail === detail,
          String(value),
        );
      }
    });

    it("should refuse a wrong entry with its index", function () {
      for (const [value, detail] of [
        [["a", ""], "[1] empty"],
        [[" "], "[0] blank"],
        [["a", "b", null], "[2] null"],
        [[NaN], "[0] NaN"],
        [[Infinity], "[0] Infinity"],
        [[{}], "[0] an object"],
        [[undefined], "[0] undefined"],
      ]) {
        assert.throws(
          () => checkDeviceList(value),
          (err) => err.code === "bad-devices" && err.params.detail.startsWith(detail),
          detail,
        );
      }
    });

    it("should read no further than one entry past the most devices a job takes", function () {
      const list = Array.from({ length: MAX_DEVICES + 5 }, (_, i) => `n${i}`);
      assert.equal(checkDeviceList(list).length, MAX_DEVICES + 1);
      list[MAX_DEVICES + 2] = null;
      assert.equal(checkDeviceList(list).length, MAX_DEVICES + 1, "a wrong entry past it unread");
    });
  });

  describe("resolveTargets", function () {
    it("should keep names as given and turn ids into names, each device once", async function () {
      const client = fakeClient([
        { id: id(1), name: "pump" },
        { id: id(2), name: "", path: "/co/devices/valve" },
      ]);
      const got = await resolve(client, ["lamp", id(1), "pump", id(2), "lamp"], undefined);
      assert.deepEqual(got, [
        { device: "lamp", state: "pending" },
        { device: "pump", state: "pending" },
        { device: "valve", state: "pending" },
      ]);
      assert.deepEqual(client.gets, [id(1), id(2)]);
      assert.equal(client.lists.length, 0, "no filter, no device list");
    });

    it("should fail a device whose id cannot be looked up, and the others go on", async function () {
      const client = fakeClient([{ id: id(1), name: "pump" }]);
      const got = await resolve(client, [id(9), id(1), id(9)], undefined);
      assert.deepEqual(got, [
        {
          device: id(9),
          state: "ended",
          outcome: "failed",
          error: "not-found",
          message: "said not-found",
        },
        { device: "pump", state: "pending" },
      ]);
    });

    it("should fail with an internal error a look-up that threw something else", async function () {
      const client = fakeClient([], { getError: () => new TypeError("bug") });
      const [r] = await resolve(client, [id(3)], undefined);
      assert.equal(r.error, "internal");
      assert.equal(r.message, "said internal");
    });

    it("should add the filter's devices after the given ones, page by page", async function () {
      const devices = Array.from({ length: 230 }, (_, i) => ({ id: id(i), name: `n${i}` }));
      devices[5] = { id: id(5) };
      devices[6] = { name: 7 };
      const client = fakeClient(devices);
      const got = await resolve(client, ["first", "n3"], 'type=="pump"');
      assert.deepEqual(
        client.lists.map((l) => [l.kind, l.start, l.limit, l.only, l.filter]),
        [
          ["device", 0, 100, "id,name", 'type=="pump"'],
          ["device", 100, 100, "id,name", 'type=="pump"'],
          ["device", 200, 100, "id,name", 'type=="pump"'],
        ],
      );
      const names = got.map((d) => d.device);
      assert.equal(names[0], "first");
      assert.equal(names[1], "n3");
      assert.equal(names.length, 1 + 229, "n3 once, the device without id or name left out");
      assert.ok(names.includes(id(5)), "a device without a name by its id");
      assert.ok(!names.includes("7"));
    });

    it("should say the server has no device list when the filter is answered 404 or 405", async function () {
      for (const status of [404, 405]) {
        const client = fakeClient([], { listError: new EdgeError("api", {}, { status }) });
        await assert.rejects(
          resolve(client, [], "x==1"),
          (err) => err.code === "no-device-list" && err.params.filter === "x==1",
        );
      }
      const other = new EdgeError("api", {}, { status: 500 });
      await assert.rejects(resolve(fakeClient([], { listError: other }), [], "x==1"), other);
    });

    it("should refuse a filter that finds more devices than a job takes", async function () {
      const many = { length: MAX_DEVICES + 100 };
      const client = fakeClient([]);
      client.list = async (kind, q) =>
        Array.from({ length: Math.min(q.limit, many.length - q.start) }, (_, i) => ({
          name: `n${q.start + i}`,
        }));
      await assert.rejects(resolve(client, [], "all"), (err) => err.code === "too-many-devices");
      const exact = fakeClient([]);
      exact.list = async (kind, q) =>
        Array.from({ length: Math.min(q.limit, MAX_DEVICES - 1 - q.start) }, (_, i) => ({
          name: `n${q.start + i}`,
        }));
      assert.equal((await resolve(exact, [], "all")).length, MAX_DEVICES - 1);
    });

    it("should refuse more devices than a job takes, given and filtered together", async function () {
      const client = fakeClient(Array.from({ length: 50 }, (_, i) => ({ name: `f${i}` })));
      const given = Array.from({ length: MAX_DEVICES - 49 }, (_, i) => `g${i}`);
      await assert.rejects(resolve(client, given, "f"), (err) => err.code === "too-many-devices");
      const fits = Array.from({ length: MAX_DEVICES - 50 }, (_, i) => `g${i}`);
      assert.equal((await resolve(client, fits, "f")).length, MAX_DEVICES);
    });

    it("should look ids up no more at once than the account sends at once, at most 8", async function () {
      const devices = Array.from({ length: 20 }, (_, i) => ({ id: id(i), name: `n${i}` }));
      const two = fakeClient(devices, { concurrent: 2 });
      await resolve(
        two,
        devices.map((d) => d.id),
        undefined,
      );
      assert.equal(two.maxInFlight, 2);
      const wide = fakeClient(devices, { concurrent: 50 });
      const got = await resolve(
        wide,
        devices.map((d) => d.id),
        undefined,
      );
      assert.equal(wide.maxInFlight, 8);
      assert.deepEqual(
        got.map((d) => d.device),
        devices.map((d) => d.name),
        "in the order given",
      );
    });

    it("should try a look-up the account's queue refused again, within one request budget", async function () {
      const full = new EdgeError("queue-full", {});
      const client = fakeClient([{ id: id(1), name: "pump" }], {
        getError: (_ref, n) => (n <= 2 ? full : undefined),
        budgetMs: 5000,
      });
      const got = await resolve(client, [id(1)], undefined);
      assert.deepEqual(got, [{ device: "pump", state: "pending" }]);
      assert.equal(client.gets.length, 3);

      const never = fakeClient([{ id: id(1), name: "pump" }], {
        getError: () => full,
        budgetMs: 0,
      });
      const [r] = await resolve(never, [id(1)], undefined);
      assert.equal(r.error, "queue-full");
      assert.equal(never.gets.length, 1, "no budget left: not tried again");
    });

    it("should not retry a look-up on another error", async function () {
      const client = fakeClient([], {
        getError: () => new EdgeError("timeout", {}),
        budgetMs: 5000,
      });
      const [r] = await resolve(client, [id(1)], undefined);
      assert.equal(r.error, "timeout");
      assert.equal(client.gets.length, 1);
    });

    it("should give up at once when the job is stopped during the look-ups", async function () {
      const ac = new AbortController();
      const client = fakeClient([], {
        getError: () => {
          ac.abort();
          return new EdgeError("aborted", {});
        },
      });
      await assert.rejects(resolve(client, [id(1), id(2)], undefined, { signal: ac.signal }), {
        code: "aborted",
      });
    });
  });
});
