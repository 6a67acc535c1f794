// nodes/lib/events/pager.ts: a stream read page by page with `start`, skipping events pushed into
// the next page by new ones at the top, and stopping at a short page or at the maximum.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { pages } = lib("events/pager");

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
});
