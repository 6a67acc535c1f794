// nodes/lib/events/pager.ts: a stream read page by page with `start`, skipping events pushed into
// the next page by new ones at the top, and stopping at a short page or at the maximum.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { pages, maxPagesFor } = lib("events/pager");

/** A stream of `n` events, newest first, served by `start` and `limit` as a server would. */
function stream(n) {
  const events = Array.from({ length: n }, (_, i) => ({
    id: `e${String(n - i).padStart(24, "0")}`,
    creationDate: 1000 + (n - i),
  }));
  const requests = [];
  const fetch = async ({ limit, start }) => {
    requests.push({ limit, start });
    return events.slice(start, start + limit);
  };
  return { events, fetch, requests };
}

async function all(iterator) {
  const out = [];
  for await (const page of iterator) out.push(page);
  return out;
}

describe("unit: events/pager", function () {
  it("should read page after page until a short one", async function () {
    const s = stream(7);
    const read = await all(pages(s.fetch, { limit: 3, start: 0 }, 100));
    assert.deepEqual(
      read.map((p) => [p.start, p.received, p.full, p.events.length]),
      [
        [0, 3, true, 3],
        [3, 3, true, 3],
        [6, 1, false, 1],
      ],
    );
    assert.deepEqual(
      read.flatMap((p) => p.events),
      s.events,
    );
  });

  it("should ask once more after a full last page and stop at an empty one", async function () {
    const s = stream(4);
    const read = await all(pages(s.fetch, { limit: 2, start: 0 }, 100));
    assert.deepEqual(
      s.requests.map((r) => r.start),
      [0, 2, 4],
    );
    assert.equal(read.at(-1).received, 0);
  });

  it("should begin at start and stop at the maximum number of events", async function () {
    const s = stream(10);
    const read = await all(pages(s.fetch, { limit: 3, start: 2 }, 4));
    const got = read.flatMap((p) => p.events);
    assert.deepEqual(got, s.events.slice(2, 6));
    assert.equal(s.requests.length, 2);
  });

  it("should skip events that new ones pushed into the next page", async function () {
    const s = stream(6);
    let calls = 0;
    const shifting = async (page) => {
      calls += 1;
      // After the first page, two new events land at the top and shift the rest down.
      if (calls === 2)
        s.events.unshift(
          { id: "e".padEnd(25, "b"), creationDate: 3000 },
          { id: "e".padEnd(25, "a"), creationDate: 2999 },
        );
      return s.fetch(page);
    };
    const read = await all(pages(shifting, { limit: 3, start: 0 }, 100));
    const ids = read.flatMap((p) => p.events).map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, "an event came twice");
    assert.ok(!ids.includes("e".padEnd(25, "a")), "a newer event was read mid-stream");
    assert.equal(ids.length, 6);
  });

  it("should end at the second full page with nothing new from a server that ignores start", async function () {
    const s = stream(20);
    const ignoring = async (page) => s.fetch({ ...page, start: 0 });
    const read = await all(pages(ignoring, { limit: 20, start: 0 }, 1000));
    assert.deepEqual(
      s.requests.map((r) => r.start),
      [0, 0, 0],
    );
    assert.equal(read.flatMap((p) => p.events).length, 20);
    assert.deepEqual(
      read.map((p) => p.stopped),
      [undefined, undefined, "no-progress"],
    );
    assert.equal(read.at(-1).full, true);
  });

  it("should go on past one full page with nothing new (events pushed down by as many new ones)", async function () {
    const s = stream(9);
    let calls = 0;
    const shifting = async (page) => {
      calls += 1;
      // Three new events land at the top after the first page: the second repeats the first.
      if (calls === 2)
        for (let i = 0; i < 3; i++) s.events.unshift({ id: `new-${i}`, creationDate: 5000 + i });
      return s.fetch(page);
    };
    const read = await all(pages(shifting, { limit: 3, start: 0 }, 100));
    assert.equal(read.flatMap((p) => p.events).length, 9);
    assert.equal(read.at(-1).stopped, undefined);
  });

  it("should bound the pages of a server that hands out one new event per full page", async function () {
    let n = 0;
    const requests = [];
    const trickle = async ({ limit, start }) => {
      requests.push(start);
      n += 1;
      // The same nine old events and one new, older one, every time.
      return [
        ...Array.from({ length: limit - 1 }, (_, i) => ({ id: `old-${i}`, creationDate: 1000 })),
        { id: `new-${n}`, creationDate: 1000 - n },
      ];
    };
    const read = await all(pages(trickle, { limit: 10, start: 0 }, 100));
    assert.equal(requests.length, maxPagesFor(100, 10));
    assert.equal(requests.length, 22);
    assert.equal(read.at(-1).stopped, "max-pages");
  });
});
