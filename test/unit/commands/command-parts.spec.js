// The small parts of sending and awaiting a command: the times a wait may take (command-time.ts),
// what the account learns of its devices' answer times (answer-times.ts), the registry of this
// runtime's commands (sent-commands.ts: reused ids, the bound) and one command's send (send.ts).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const time = lib("commands/command-time");
const { AnswerTimes, MAX_ANSWER_MS } = lib("commands/answer-times");
const { SentCommands, idReused } = lib("commands/sent-commands");
const { commandRefOf, metadataOf, sendToDevice, deviceNameOf } = lib("commands/send");
const { EdgeError } = lib("api/errors");
const { DeviceNames } = lib("device/names");

const NOW = Date.UTC(2026, 0, 15, 12);
const DAY = 24 * 3600_000;

describe("unit: commands/command-time", function () {
  it("should tell a command's date from a wait's start by a day at most", function () {
    assert.equal(time.datesApart(NOW - DAY, NOW), false);
    assert.equal(time.datesApart(NOW + DAY, NOW), false);
    assert.equal(time.datesApart(NOW - DAY - 1, NOW), true);
    assert.equal(time.datesApart(NOW + DAY + 1, NOW), true);
    assert.equal(time.datesApart(NaN, NOW), true);
  });

  it("should let a command with an id wait from any date, and one without from the last hour", function () {
    assert.equal(time.sinceFits(0, NOW, true), true);
    assert.equal(time.sinceFits(NaN, NOW, true), false);
    assert.equal(time.sinceFits(NOW - 3600_000, NOW, false), true);
    assert.equal(time.sinceFits(NOW - 3600_001, NOW, false), false);
    assert.equal(time.sinceFits(NOW + 1000, NOW, false), true);
    assert.equal(time.sinceFits(NOW + DAY + 1, NOW, false), false);
    assert.equal(time.sinceFits(Infinity, NOW, false), false);
  });

  it("should read a command's date as ms, ISO text or a Date", function () {
    assert.equal(time.dateOf(NOW), NOW);
    assert.equal(time.dateOf(new Date(NOW).toISOString()), NOW);
    assert.equal(time.dateOf(new Date(NOW)), NOW);
    for (const v of ["soon", NaN, Infinity, null, undefined, {}, new Date(NaN), true])
      assert.equal(time.dateOf(v), undefined, String(v));
  });

  it("should wait from the command's date, less the skew without an id, else from its arrival", function () {
    assert.equal(time.sinceOf(NOW - 10, true, NOW), NOW - 10);
    assert.equal(time.sinceOf(NOW - 10, false, NOW), NOW - 10 - 5000);
    assert.equal(time.sinceOf(undefined, true, NOW), NOW - 5000);
    assert.equal(time.sinceOf(undefined, false, NOW), undefined);
    assert.equal(time.sinceOf(NOW - 2 * DAY, false, NOW), undefined);
    assert.equal(time.sinceOf(NOW - 2 * DAY, true, NOW), NOW - 2 * DAY);
  });

  it("should refuse for its clock a command without an id dated a day away, not one without a date", function () {
    assert.equal(time.tooFarForDates(NOW - 2 * DAY, false, NOW), true);
    assert.equal(time.tooFarForDates(NOW - 2 * DAY, true, NOW), false);
    assert.equal(time.tooFarForDates(undefined, false, NOW), false);
    assert.equal(time.tooFarForDates(NOW - 1000, false, NOW), false);
  });

  it("should say how far apart the clocks are, and that the command may have run", function () {
    const err = time.clockApart(NOW - 25 * 3600_000, NOW);
    assert.equal(err.code, "clock-apart");
    assert.deepEqual(err.params, { date: new Date(NOW - 25 * 3600_000).toISOString(), hours: 25 });
    assert.equal(err.mayHaveBeenSent, true);
    assert.equal(time.clockApart(NOW + 30 * 3600_000, NOW).params.hours, 30);
    assert.deepEqual(time.clockApart("whenever", NOW).params, { date: "whenever", hours: "?" });
  });
});

describe("unit: commands/answer-times", function () {
  it("should learn a device's answer time smoothed, and the account's over every device", function () {
    const a = new AnswerTimes();
    assert.equal(a.account, undefined);
    assert.equal(a.of("d1"), undefined);
    a.learn("d1", 100);
    assert.equal(a.of("d1"), 100);
    assert.equal(a.account, 100);
    a.learn("d1", 200);
    assert.equal(a.of("d1"), 130);
    a.learn("d2", 1000);
    assert.equal(a.of("d2"), 1000);
    assert.equal(Math.round(a.account * 10), Math.round((130 + 0.3 * (1000 - 130)) * 10));
    assert.equal(a.size, 2);
  });

  it("should not learn an answer time that is no pace: negative, not a number, past 10 minutes", function () {
    const a = new AnswerTimes();
    for (const ms of [-1, NaN, Infinity, MAX_ANSWER_MS + 1, "5"]) a.learn("d", ms);
    assert.equal(a.size, 0);
    assert.equal(a.account, undefined);
    a.learn("d", MAX_ANSWER_MS);
    a.learn("e", 0);
    assert.equal(a.size, 2);
    assert.equal(MAX_ANSWER_MS, 600_000);
  });

  it("should forget the device heard from longest ago past 10,000 devices", function () {
    const a = new AnswerTimes();
    for (let i = 0; i < 10_000; i++) a.learn(`d${i}`, 10);
    a.learn("d0", 20);
    a.learn("new", 30);
    assert.equal(a.size, 10_000);
    assert.equal(a.of("d1"), undefined, "heard from longest ago");
    assert.equal(a.of("d0"), 13);
    assert.equal(a.of("new"), 30);
  });

  it("should start from an account's prior alone", function () {
    const a = AnswerTimes.withAccount(250);
    assert.equal(a.account, 250);
    assert.equal(a.size, 0);
  });
});

describe("unit: commands/sent-commands, reused ids", function () {
  const path = "/co/devices/pump/:command";

  it("should end a second command answered with the id of an earlier one, and tell the earlier's waits", function () {
    const sent = new SentCommands();
    const told = [];
    const watcher = { idReused: (err) => told.push(err) };
    assert.equal(sent.claim("http://a", path, "c1"), undefined);
    const watch = sent.watchReuse("http://a", path, "c1", watcher);
    assert.ok("key" in watch);
    const err = sent.claim("http://a", path, "c1");
    assert.equal(err.code, "id-reused");
    assert.deepEqual(err.params, { id: "c1", device: "pump", method: "POST", path });
    assert.equal(err.mayHaveBeenSent, true);
    assert.deepEqual(
      told.map((e) => e.code),
      ["id-reused"],
    );
    const later = sent.watchReuse("http://a", path, "c1", watcher);
    assert.equal(later.reused.code, "id-reused", "a wait that starts later is told at once");
    assert.equal(sent.claim("http://b", path, "c1"), undefined, "another server's ids are its own");
    assert.equal(sent.claim("http://a", "/co/devices/other/:command", "c1"), undefined);
  });

  it("should tell a wait that stopped watching nothing", function () {
    const sent = new SentCommands();
    const told = [];
    const a = { idReused: (err) => told.push(["a", err.code]) };
    const b = { idReused: (err) => told.push(["b", err.code]) };
    sent.claim("o", path, "c1");
    const ka = sent.watchReuse("o", path, "c1", a).key;
    const kb = sent.watchReuse("o", path, "c1", b).key;
    sent.unwatchReuse(ka, a);
    sent.unwatchReuse(ka, a);
    sent.claim("o", path, "c1");
    assert.deepEqual(told, [["b", "id-reused"]]);
    sent.unwatchReuse(kb, b);
    sent.unwatchReuse("nothing", b);
  });

  it("should count a command found again on its stream as made here", function () {
    const sent = new SentCommands();
    sent.found("o", path, "c9");
    assert.equal(sent.claim("o", path, "c9").code, "id-reused");
  });

  it("should name the path as it is when it is no command stream", function () {
    assert.equal(idReused("c", "x", "/odd").params.device, "x");
    const sent = new SentCommands();
    sent.claim("o", "/odd/path", "c");
    assert.equal(sent.claim("o", "/odd/path", "c").params.device, "/odd/path");
  });

  it("should remember the newest 100,000 commands, the oldest forgotten first", function () {
    const sent = new SentCommands();
    for (let i = 0; i <= 100_000; i++) sent.remember(path, `c${i}`, "job", i + 1);
    assert.equal(sent.senderOf(path, "c0"), undefined);
    assert.equal(sent.createdAt("c0"), undefined);
    assert.equal(sent.senderOf(path, "c1"), "job");
    assert.equal(sent.createdAt("c1"), 2);
    assert.equal(sent.createdAt("c100000"), 100_001);
    sent.remember(path, "c1", "again", 5);
    sent.remember(path, "x", "late", 6);
    assert.equal(sent.senderOf(path, "c1"), "again", "remembered anew, not the oldest");
    assert.equal(sent.createdAt("c1"), 5);
    assert.equal(sent.senderOf(path, "c2"), undefined);
    sent.remember(path, "nodate", "s", NaN);
    assert.equal(sent.createdAt("nodate"), undefined);
    assert.equal(sent.senderOf(path, "nodate"), "s");
  });

  it("should remember the newest 100,000 ids made, the oldest forgotten first", function () {
    const sent = new SentCommands();
    for (let i = 0; i <= 100_000; i++) sent.claim("o", path, `c${i}`);
    assert.equal(sent.claim("o", path, "c0"), undefined, "forgotten");
    assert.equal(sent.claim("o", path, "c100000").code, "id-reused");
  });

  it("should end a request's time on the wire once, however often it is told", function () {
    const sent = new SentCommands();
    const a = sent.leaving(path);
    const b = sent.leaving(path);
    a();
    a();
    assert.equal(sent.busy(path), true, "b is still on the wire");
    b();
    assert.equal(sent.busy(path), false);
  });
});

describe("unit: commands/send", function () {
  it("should make a command's reference from the created event, else from what the send knew", function () {
    const facts = { sentAt: 5000, ttl: 30, device: "pump", path: "/co/devices/pump/:command" };
    assert.deepEqual(
      commandRefOf({ id: "c1", streamId: "s1", path: "/p", creationDate: 4000 }, facts),
      {
        id: "c1",
        streamId: "s1",
        path: "/p",
        creationDate: 4000,
        device: "pump",
        ttl: 30,
        sentAt: 5000,
      },
    );
    assert.deepEqual(commandRefOf(null, { sentAt: 5000, ttl: undefined, streamId: "s2" }), {
      id: undefined,
      streamId: "s2",
      path: undefined,
      creationDate: 5000,
      device: undefined,
      ttl: undefined,
      sentAt: 5000,
    });
    const fromPath = commandRefOf(
      { id: "c", path: "/co/devices/valve-2/:command", creationDate: "x" },
      { sentAt: 7, ttl: undefined },
    );
    assert.equal(fromPath.device, "valve-2");
    assert.equal(fromPath.creationDate, 7, "a date that is no number is the send's");
    assert.equal(
      commandRefOf({ path: "/co/devices/valve/:inbox" }, { sentAt: 1 }).device,
      undefined,
    );
  });

  it("should send a TTL as metadata, and none without one", function () {
    assert.deepEqual(metadataOf(60), { ttl: 60 });
    assert.deepEqual(metadataOf(0), { ttl: 0 });
    assert.equal(metadataOf(undefined), undefined);
  });

  /** A client with one device `pump` (id `dpump…`), that answers POSTs with `answer`. */
  function fakeClient(answer) {
    const c = {
      origin: "http://edge.test",
      posts: [],
      gets: [],
      streamPath: (name, stream) => `/co/devices/${name}/${stream}`,
      async createEventByPath(path, elems, metadata, call) {
        await call.beforeSend?.();
        c.posts.push({ path, elems, metadata });
        return answer(path);
      },
      async getDevice(ref) {
        c.gets.push(ref);
        if (ref === "pump" || ref === `d${"a".repeat(24)}`)
          return { id: `d${"a".repeat(24)}`, name: "pump" };
        throw new EdgeError("not-found", {}, { status: 404 });
      },
      async list() {
        return [];
      },
    };
    return c;
  }

  it("should send to a device's command stream and remember the command as this runtime's", async function () {
    let n = 0;
    const client = fakeClient(() => ({ id: `cmd-${++n}-${Date.now()}`, creationDate: 1234 }));
    const names = new DeviceNames(client);
    const before = [];
    const sent = await sendToDevice(
      client,
      names,
      `d${"a".repeat(24)}`,
      { "/x": 1 },
      30,
      {},
      {
        sender: "job",
        beforeSend: () => before.push(true),
      },
    );
    assert.deepEqual(client.posts[0], {
      path: "/co/devices/pump/:command",
      elems: { "/x": 1 },
      metadata: { ttl: 30 },
    });
    assert.equal(before.length, 1);
    assert.equal(sent.command.device, "pump");
    assert.equal(sent.command.creationDate, 1234);
    assert.equal(sent.command.ttl, 30);
    const { sentCommands } = lib("commands/sent-commands");
    assert.equal(sentCommands.senderOf("/co/devices/pump/:command", sent.event.id), "job");
    assert.equal(sentCommands.createdAt(sent.event.id), 1234);
    assert.equal(
      sentCommands.busy("/co/devices/pump/:command"),
      false,
      "off the wire once answered",
    );
  });

  it("should refuse a command the server answered with an earlier command's id", async function () {
    const id = `reused-${Date.now()}`;
    const client = fakeClient(() => ({ id, creationDate: 1 }));
    const names = new DeviceNames(client);
    await sendToDevice(client, names, "pump", {}, undefined, {});
    await assert.rejects(sendToDevice(client, names, "pump", {}, undefined, {}), {
      code: "id-reused",
    });
  });

  /**
   * A client of its own origin whose first POST to `pump` loses its answer after the server made
   * the command; the second is answered with `id`; its :command stream is listed by `list`.
   */
  function afterLostAnswer(id, list) {
    let posts = 0;
    const c = fakeClient(() => {
      if (++posts === 1)
        throw new EdgeError("reset-uncertain", {}, { method: "POST", mayHaveBeenSent: true });
      return { id, creationDate: 2 };
    });
    c.origin = `http://lost-${id}.test`;
    c.reads = [];
    c.listEventsByPath = async (path, query, call) => {
      c.reads.push({ path, query, call });
      return list();
    };
    return c;
  }

  it("should end id-reused when, after a send whose answer was lost, its id is on its stream twice", async function () {
    const id = `twice-${Date.now()}`;
    const client = afterLostAnswer(id, () => [{ id }, { id: "other" }, { id }]);
    const names = new DeviceNames(client);
    await assert.rejects(sendToDevice(client, names, "pump", {}, undefined, {}), {
      code: "reset-uncertain",
    });
    await assert.rejects(sendToDevice(client, names, "pump", {}, undefined, {}), {
      code: "id-reused",
      mayHaveBeenSent: true,
    });
    assert.deepEqual(
      client.reads.map((r) => [r.path, r.query.limit]),
      [["/co/devices/pump/:command", 100]],
    );
  });

  it("should keep a send whose id is on its stream once after a lost answer", async function () {
    const id = `once-${Date.now()}`;
    const client = afterLostAnswer(id, () => [{ id }, { id: "lost" }]);
    const names = new DeviceNames(client);
    await assert.rejects(sendToDevice(client, names, "pump", {}, undefined, {}));
    const sent = await sendToDevice(client, names, "pump", {}, undefined, {});
    assert.equal(sent.command.id, id);
  });

  it("should end id-unchecked, the command made, when its stream cannot be read after a lost answer; the read has a budget of its own", async function () {
    // The fault harness (people, seed 9, path 89): the read, counted in the send's budget, was
    // spent behind the rate limit, the send was taken as its id's own, and its wait took the
    // lost command's COMPLETE.
    const id = `unread-${Date.now()}`;
    const client = afterLostAnswer(id, () => {
      throw new Error("GET out of budget");
    });
    const names = new DeviceNames(client);
    const call = { since: 5, deadline: { at: 7 }, retries: 2 };
    await assert.rejects(sendToDevice(client, names, "pump", {}, undefined, call));
    const err = await sendToDevice(client, names, "pump", {}, undefined, call).then(
      () => assert.fail("the send was taken as its id's own"),
      (e) => e,
    );
    assert.equal(err.code, "id-unchecked");
    assert.equal(err.mayHaveBeenSent, true);
    assert.deepEqual([err.params.id, err.params.device], [id, "pump"]);
    assert.equal(err.params.detail, "GET out of budget");
    const [read] = client.reads;
    assert.deepEqual(
      [read.call.since, read.call.deadline, read.call.retries],
      [undefined, undefined, 2],
      "the read counts its budget from its own start, retries included",
    );
  });

  /**
   * A client of its own origin whose first POST to `pump` stays on the wire until `lose()`, then
   * fails as an answer lost after the server made the command; the second is answered at once
   * with `id`. Its :command stream is listed by `list`, once `listed` is resolved.
   */
  function lostWhileAnswered(id, list) {
    let posts = 0;
    let lose;
    const lost = new Promise((resolve) => (lose = resolve));
    const c = fakeClient(async () => {
      if (++posts > 1) return { id, creationDate: 2 };
      await lost;
      throw new EdgeError("reset-uncertain", {}, { method: "POST", mayHaveBeenSent: true });
    });
    c.origin = `http://overlap-${id}.test`;
    c.lose = lose;
    c.reads = [];
    c.listEventsByPath = async (path, query) => {
      c.reads.push({ path, query });
      return list();
    };
    return c;
  }

  /** Sends twice to `pump` on `client`, the first lost after the second was answered. */
  async function answeredBeforeTheLoss(client) {
    const names = new DeviceNames(client);
    const first = sendToDevice(client, names, "pump", {}, undefined, {}).then(
      () => assert.fail("the lost send was answered"),
      (e) => e,
    );
    const second = await sendToDevice(client, names, "pump", {}, undefined, {});
    const { sentCommands } = lib("commands/sent-commands");
    const told = [];
    const watched = sentCommands.watchReuse(client.origin, second.command.path, second.command.id, {
      idReused: (err) => told.push(err),
    });
    assert.ok("key" in watched, "no reuse known before the loss");
    // A wait that got its marker holds it till the stream is quiet (command-wait.ts).
    const toldWhenQuiet = sentCommands.quiet(second.command.path).then(() => told.length);
    client.lose();
    assert.equal((await first).code, "reset-uncertain");
    return { second, told, sentCommands, toldWhenQuiet };
  }

  it("should end the wait of a send answered while an earlier one was on the wire, when that one's answer is lost and the id is on the stream twice", async function () {
    // The fault harness (people, seed 224, path 316, and seed 223, path 156 with an answer later
    // than the Timeout): the server gave the lost command's id to the next send, answered before
    // the loss was known, so it never looked; its wait took the lost command's marker.
    const id = `overlap-${Date.now()}`;
    const client = lostWhileAnswered(id, () => [{ id }, { id: "other" }, { id }]);
    const { second, told, sentCommands, toldWhenQuiet } = await answeredBeforeTheLoss(client);
    assert.equal(second.command.id, id);
    const path = "/co/devices/pump/:command";
    assert.equal(await toldWhenQuiet, 1, "quiet before the wait was told: a held marker was taken");
    assert.deepEqual(
      client.reads.map((r) => [r.path, r.query.limit]),
      [[path, 100]],
    );
    assert.deepEqual(
      told.map((e) => [e.code, e.params.id, e.params.device, e.mayHaveBeenSent]),
      [["id-reused", id, "pump", true]],
    );
    const later = sentCommands.watchReuse(client.origin, path, id, { idReused: () => {} });
    assert.equal(later.reused.code, "id-reused", "a wait that starts later ends too");
  });

  it("should keep a throw of a wait it ends from becoming an unhandled rejection", async function () {
    // Nothing awaits that look-up: an unhandled rejection ends Node's process, Node-RED with it.
    const id = `throws-${Date.now()}`;
    const client = lostWhileAnswered(id, () => [{ id }, { id }]);
    const names = new DeviceNames(client);
    const rejections = [];
    const onRejection = (err) => rejections.push(err);
    process.on("unhandledRejection", onRejection);
    try {
      const first = sendToDevice(client, names, "pump", {}, undefined, {}).catch((e) => e);
      const second = await sendToDevice(client, names, "pump", {}, undefined, {});
      const { sentCommands } = lib("commands/sent-commands");
      sentCommands.watchReuse(client.origin, second.command.path, id, {
        idReused: () => {
          throw new Error("a wait's end threw");
        },
      });
      client.lose();
      await first;
      await sentCommands.quiet(second.command.path);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(rejections, []);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  it("should end that wait id-unchecked when the stream cannot be read, and leave it when its id is there once", async function () {
    const id = `unread-overlap-${Date.now()}`;
    const unread = lostWhileAnswered(id, () => {
      throw new Error("GET out of budget");
    });
    const first = await answeredBeforeTheLoss(unread);
    await first.toldWhenQuiet;
    assert.deepEqual(
      first.told.map((e) => [e.code, e.params.detail]),
      [["id-unchecked", "GET out of budget"]],
    );
    const once = lostWhileAnswered(`${id}-once`, () => [{ id: `${id}-once` }, { id: "lost" }]);
    const second = await answeredBeforeTheLoss(once);
    await second.toldWhenQuiet;
    assert.equal(once.reads.length, 1);
    assert.deepEqual(second.told, []);
  });

  it("should remember nothing of an answer without an event", async function () {
    const client = fakeClient(() => null);
    const sent = await sendToDevice(client, new DeviceNames(client), "pump", {}, undefined, {});
    assert.equal(sent.event, null);
    assert.equal(sent.command.id, undefined);
    assert.equal(sent.command.path, "/co/devices/pump/:command");
  });

  it("should report an unknown device's own 404 when its command stream is not found", async function () {
    const notFound = new EdgeError("not-found", { what: "stream" }, { status: 404 });
    const client = fakeClient(() => {
      throw notFound;
    });
    const names = new DeviceNames(client);
    await assert.rejects(sendToDevice(client, names, "ghost", {}, undefined, {}), (err) => {
      assert.notEqual(err, notFound);
      assert.equal(err.status, 404);
      return true;
    });
    assert.deepEqual(client.gets, ["ghost"], "one read of the device");
    // The device exists: the stream's own error stands.
    await assert.rejects(
      sendToDevice(client, names, "pump", {}, undefined, {}),
      (err) => err === notFound,
    );
  });

  it("should keep any other error of the send as it is, and read no device", async function () {
    const refused = new EdgeError("api", {}, { status: 500 });
    const client = fakeClient(() => {
      throw refused;
    });
    await assert.rejects(
      sendToDevice(client, new DeviceNames(client), "pump", {}, undefined, {}),
      (err) => err === refused,
    );
    assert.deepEqual(client.gets, []);
    const odd = new Error("odd");
    const c2 = fakeClient(() => {
      throw odd;
    });
    await assert.rejects(
      sendToDevice(c2, new DeviceNames(c2), "pump", {}, undefined, {}),
      (err) => err === odd,
    );
  });

  it("should keep the stream's error when the device cannot be read otherwise", async function () {
    const notFound = new EdgeError("not-found", {}, { status: 404 });
    const client = fakeClient(() => {
      throw notFound;
    });
    client.getDevice = async () => {
      throw new EdgeError("timeout", {});
    };
    await assert.rejects(
      sendToDevice(client, new DeviceNames(client), "pump", {}, undefined, {}),
      (err) => err === notFound,
    );
    const unknown = fakeClient(() => {
      throw notFound;
    });
    unknown.getDevice = async () => {
      throw new EdgeError("device-unknown", {});
    };
    await assert.rejects(
      sendToDevice(unknown, new DeviceNames(unknown), "pump", {}, undefined, {}),
      {
        code: "device-unknown",
      },
    );
  });

  it("should name a device without a request when it is a name", async function () {
    const client = fakeClient(() => null);
    const names = new DeviceNames(client);
    assert.equal(await deviceNameOf(names, "pump", {}), "pump");
    assert.equal(await deviceNameOf(names, `d${"a".repeat(24)}`, {}), "pump");
    assert.deepEqual(client.gets, [`d${"a".repeat(24)}`]);
  });
});
