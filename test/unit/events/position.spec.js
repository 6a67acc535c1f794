// nodes/lib/events/position.ts and event-id.ts: which listed events a watch has not handled yet,
// whether a listing reaches back to its position (else a gap), and where the watch stands after.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { isAfter, reaches, chronological, advance, headOf } = lib("events/position");
const { eventIdOf } = lib("events/event-id");

const ev = (id, creationDate) => ({ id, creationDate });

/** A listing of `events` (newest first), as a read builds it. */
function listing(events, ended = false) {
  const dates = events.map((e) => e.creationDate);
  return {
    events,
    oldest: Math.min(Infinity, ...dates),
    newest: Math.max(-Infinity, ...dates),
    ended,
  };
}

describe("unit: events/position", function () {
  describe("isAfter", function () {
    it("should take every event when the stream was empty at the start", function () {
      assert.equal(isAfter(ev("a", 1), { date: null, ids: [] }, new Set()), true);
    });

    it("should take a later event, and one at the same date not handled yet", function () {
      const pos = { date: 100, ids: ["a"] };
      const ids = new Set(pos.ids);
      assert.equal(isAfter(ev("b", 101), pos, ids), true);
      assert.equal(isAfter(ev("b", 100), pos, ids), true);
      assert.equal(isAfter(ev("a", 100), pos, ids), false);
      assert.equal(isAfter(ev("c", 99), pos, ids), false);
    });
  });

  describe("reaches", function () {
    it("should need the stream's end when the watch had an empty stream", function () {
      const pos = { date: null, ids: [] };
      assert.equal(reaches(listing([ev("a", 5)], true), pos, new Set()), true);
      assert.equal(reaches(listing([ev("a", 5)], false), pos, new Set()), false);
    });

    it("should see no gap when an older event or a handled one is listed", function () {
      const pos = { date: 100, ids: ["a"] };
      const ids = new Set(pos.ids);
      assert.equal(reaches(listing([ev("b", 101), ev("z", 99)]), pos, ids), true);
      assert.equal(reaches(listing([ev("b", 101), ev("a", 100)]), pos, ids), true);
    });

    it("should see a gap when the listing stops after the position", function () {
      const pos = { date: 100, ids: ["a"] };
      const ids = new Set(pos.ids);
      assert.equal(reaches(listing([ev("b", 101), ev("c", 100)]), pos, ids), false);
      assert.equal(reaches(listing([ev("b", 101)], true), pos, ids), false);
    });
  });

  describe("chronological", function () {
    it("should put events oldest first, and one date's events in the listing's order reversed", function () {
      const listed = [ev("d", 3), ev("c", 2), ev("b", 2), ev("a", 1)];
      assert.deepEqual(
        chronological(listed).map((e) => e.id),
        ["a", "b", "c", "d"],
      );
      assert.deepEqual(
        listed.map((e) => e.id),
        ["d", "c", "b", "a"],
        "the listing itself is left as it was",
      );
    });

    it("should sort by date when the server lists out of order", function () {
      assert.deepEqual(
        chronological([ev("a", 1), ev("c", 3), ev("b", 2)]).map((e) => e.id),
        ["a", "b", "c"],
      );
    });
  });

  describe("advance", function () {
    it("should stand at the newest handled date with every listed id of that date", function () {
      const l = listing([ev("c", 5), ev("b", 5), ev("a", 4)]);
      assert.deepEqual(advance({ date: 1, ids: ["x"] }, [ev("a", 4), ev("b", 5)], l), {
        date: 5,
        ids: ["c", "b"],
      });
    });

    it("should keep the old ids when the date did not move", function () {
      const l = listing([ev("b", 5)]);
      const got = advance({ date: 5, ids: ["a"] }, [ev("b", 5)], l);
      assert.deepEqual({ date: got.date, ids: got.ids.sort() }, { date: 5, ids: ["a", "b"] });
    });

    it("should stay where it was when nothing was handled", function () {
      assert.deepEqual(advance({ date: 7, ids: ["a"] }, [], listing([])), {
        date: 7,
        ids: ["a"],
      });
      assert.deepEqual(advance(null, [], listing([])), { date: null, ids: [] });
      assert.deepEqual(advance({ date: null, ids: [] }, [], listing([])), { date: null, ids: [] });
    });
  });

  describe("headOf", function () {
    it("should stand at the newest listed date with its ids", function () {
      assert.deepEqual(headOf(listing([ev("c", 9), ev("b", 9), ev("a", 3)])), {
        date: 9,
        ids: ["c", "b"],
      });
    });

    it("should stand at an empty stream when nothing is listed", function () {
      assert.deepEqual(headOf(listing([])), { date: null, ids: [] });
    });
  });
});

describe("unit: events/event-id", function () {
  it("should keep a text id as it is, even an empty one", function () {
    assert.equal(eventIdOf("e1"), "e1");
    assert.equal(eventIdOf(""), "");
  });

  it("should take a whole number above 0 as its digits", function () {
    assert.equal(eventIdOf(7), "7");
    assert.equal(eventIdOf(1), "1");
  });

  it("should place no other id", function () {
    for (const id of [0, -3, 1.5, Number.MAX_SAFE_INTEGER + 2, NaN, null, undefined, {}, true])
      assert.equal(eventIdOf(id), undefined, String(id));
  });
});
