// nodes/lib/commands/inbox-watch.ts, how many pages a read of an inbox asks for and from where: a
// server that ignores `start` (two pages with nothing new end the read, and the next read goes as
// deep again), a server that caps its pages (only an empty page ends a read), a marker that lies
// below one read before (the server's clock stepped back), and the most a read takes (100,000
// events, then an overrun told to the observer).
"use strict";
const assert = require("node:assert/strict");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const fakes = inboxFakes({
  idBase: 0x600000,
  got: (event) => event.id,
  request: (streamId, page) => [page.start, page.limit],
});
const { newId, recorder } = fakes;

/**
 * An inbox served newest first; `ignoresStart` serves every page from the top, `cap` serves at
 * most that many events a page. Each request is recorded as [start, limit]. Its `event()` and
 * `marker()` take the date before the id named.
 */
function fakeClient(serve) {
  const c = fakes.fakeClient(serve);
  const { event, marker } = c;
  c.event = (status, at, ref) => event(status, ref, at);
  c.marker = (status, at, ref) => marker(status, ref, at);
  return c;
}

function observer() {
  const o = { overruns: 0, states: [] };
  o.onOverrun = () => o.overruns++;
  o.onReadState = (err) => o.states.push(err?.code);
  return o;
}

describe("unit: commands/inbox-watch, pages of a read", function () {
  const world = watchWorld(fakes, { client: false, watch: false });
  const { watchOf } = world;

  it("should end a read on a server that ignores start after two pages with nothing new, and read as deep the next time", async function () {
    const client = fakeClient({ ignoresStart: true });
    const o = observer();
    const w = recorder(undefined, { since: T0 - 60_000, observer: o });
    const a = client.marker("COMMAND_START", T0 - 2000);
    const b = client.marker("COMMAND_COMPLETE", T0 - 1000);
    watchOf(client).add(w);
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [
      [0, 100],
      [2, 500],
      [4, 500],
    ]);
    assert.deepEqual(w.got, [a.id, b.id]);
    client.requests.length = 0;
    const c = client.marker("COMMAND_START", T0 + 10);
    await world.clock.tickAsync(1000);
    // Not taken for what it read before: a page that stops above a hole. From the top, a full
    // page, on to two pages with nothing new again.
    assert.deepEqual(client.requests, [
      [0, 100],
      [3, 500],
      [6, 500],
    ]);
    assert.deepEqual(w.got, [a.id, b.id, c.id], "each marker once");
    assert.equal(o.overruns, 0, "a read to what it covered is no overrun");
  });

  it("should read on past pages shorter than asked for, to an empty page", async function () {
    const client = fakeClient({ cap: 3 });
    const o = observer();
    const w = recorder(undefined, { since: T0 - 60_000, observer: o });
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(client.marker("COMMAND_START", T0 - 1000 + i).id);
    watchOf(client).add(w);
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [
      [0, 100],
      [3, 500],
      [6, 500],
      [7, 500],
    ]);
    assert.deepEqual(w.got, ids, "every marker, oldest first");
    client.requests.length = 0;
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [[0, 10]], "the next read stops at what it read");
    assert.equal(o.overruns, 0);
  });

  it("should look through the rest of a page below an event read before, down to 5 s before the newest it read", async function () {
    const client = fakeClient();
    const w = recorder(undefined, { since: T0 - 60_000 });
    const watch = watchOf(client);
    const old = client.marker("COMMAND_START", T0 - 6000);
    const top = client.marker("COMMAND_START", T0 + 1000);
    watch.add(w);
    await world.clock.tickAsync(0);
    assert.deepEqual(w.got, [old.id, top.id]);
    client.requests.length = 0;
    // The server's clock stepped back: two events land below the top one read before, one
    // dated 500 ms before it, one past 5 s before it (below the older one read before).
    const stepped = client.event("COMMAND_COMPLETE", T0 + 500);
    const past = client.event("COMMAND_COMPLETE", T0 - 7000);
    client.events.splice(1, 0, stepped);
    client.events.splice(3, 0, past);
    const fresh = client.marker("COMMAND_START", T0 + 2000);
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [[0, 10]], "one small page, no request more");
    assert.deepEqual(w.got, [old.id, top.id, stepped.id, fresh.id]);
  });

  it("should read deep again after a short first page that answered every wait", async function () {
    // A server that cuts its pages at two events.
    const client = fakeClient({ cap: 2 });
    const watch = watchOf(client);
    const first = recorder(newId(), { since: T0 - 10_000 });
    const h = watch.add(first);
    await world.clock.tickAsync(0);
    client.requests.length = 0;
    const b = newId();
    const bAnswer = client.marker("COMMAND_COMPLETE", T0 + 400, b);
    client.marker("COMMAND_START", T0 + 450, newId());
    client.marker("COMMAND_COMPLETE", T0 + 460, first.commandId);
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [[0, 10]], "one request: its page answered the only wait");
    assert.equal(first.got.length, 1);
    h.stop();
    // A wait whose answer lies past that page starts: its read is not stopped by the page read.
    const second = recorder(b, { since: T0 + 300 });
    watch.add(second);
    client.requests.length = 0;
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [
      [0, 100],
      [2, 500],
      [3, 500],
    ]);
    assert.deepEqual(second.got, [bAnswer.id]);
  });

  it("should start the read after one that found ten new events with a full page", async function () {
    const client = fakeClient();
    const w = recorder(undefined, { since: T0 - 60_000 });
    for (let i = 0; i < 10; i++) client.marker("COMMAND_START", T0 - 1000 + i);
    watchOf(client).add(w);
    await world.clock.tickAsync(0);
    client.requests.length = 0;
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [[0, 100]]);
    client.requests.length = 0;
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [[0, 10]], "after a read with nothing new, a small one");
  });

  it("should start the read after one that found nine new events with a small page", async function () {
    const client = fakeClient();
    const w = recorder(undefined, { since: T0 - 60_000 });
    for (let i = 0; i < 9; i++) client.marker("COMMAND_START", T0 - 1000 + i);
    watchOf(client).add(w);
    await world.clock.tickAsync(0);
    client.requests.length = 0;
    await world.clock.tickAsync(1000);
    assert.deepEqual(client.requests, [[0, 10]]);
  });

  it("should stop a read at the first event dated more than 5 s before the oldest wait's command", async function () {
    const client = fakeClient();
    const w = recorder(newId(), { since: T0 });
    const edge = client.marker("COMMAND_COMPLETE", T0 - 5000, w.commandId);
    for (let i = 0; i < 200; i++) client.events.push(client.event("COMMAND_START", T0 - 6000 - i));
    watchOf(client).add(w);
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [[0, 100]], "one page: the rest is older");
    assert.deepEqual(w.got, [edge.id], "its answer dated 5 s before it is read");
  });

  it("should hand each marker once when events land on top while a read pages", async function () {
    const client = fakeClient();
    const w = recorder(undefined, { since: T0 - 60_000 });
    for (let i = 0; i < 150; i++) client.marker("COMMAND_START", T0 - 1000 + i);
    const list = client.listEvents;
    client.listEvents = async (streamId, page) => {
      const out = await list(streamId, page);
      // Five more land after each page is served: the next page starts with five it read.
      if (client.requests.length === 1)
        for (let i = 0; i < 5; i++) client.marker("COMMAND_START", T0 + i);
      return out;
    };
    watchOf(client).add(w);
    await world.clock.tickAsync(0);
    assert.equal(w.got.length, 150, "the five that landed are left for the next read");
    assert.equal(new Set(w.got).size, 150);
    await world.clock.tickAsync(1000);
    assert.equal(w.got.length, 155);
    assert.equal(new Set(w.got).size, 155);
  });

  it("should read at most 100,000 events in a read, and tell the observer of the overrun", async function () {
    this.timeout(60_000);
    // A stream of 150,000 events, one a millisecond, none of them a marker.
    const requests = [];
    const client = {
      limiter: { hasRoomForEarlyPoll: () => true, queuedIn: () => 0 },
      async listEvents(streamId, page) {
        requests.push([page.start, page.limit]);
        const out = [];
        for (let i = page.start; i < Math.min(150_000, page.start + page.limit); i++) {
          out.push({ id: `g${i}`, creationDate: T0 - i });
        }
        return out;
      },
    };
    const o = observer();
    watchOf(client).add(recorder(undefined, { since: T0 - 200_000, observer: o }));
    await world.clock.tickAsync(0);
    assert.equal(requests.length, 201);
    assert.deepEqual(requests[0], [0, 100]);
    assert.deepEqual(requests[200], [99_600, 500]);
    assert.equal(o.overruns, 1);
  });
});
