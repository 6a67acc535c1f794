// nodes/lib/events/known-dates.ts: the first date of each event of a watched stream, kept for the
// process (a redeploy keeps it), told apart from an event that reuses its id by its elems, and
// bounded per stream and in streams.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { knownDatesOf, forgetKnownDates } = lib("events/known-dates");

describe("unit: events/known-dates", function () {
  it("should give an event its first date again, in a stream looked up again after a redeploy", function () {
    const dates = knownDatesOf("http://a id:s1");
    assert.equal(
      dates.first("e1", 1000, () => '{"n":1}'),
      1000,
    );
    assert.equal(
      knownDatesOf("http://a id:s1").first("e1", 5000, () => '{"n":1}'),
      1000,
    );
    assert.equal(
      knownDatesOf("http://b id:s1").first("e1", 5000, () => '{"n":1}'),
      5000,
      "another server",
    );
  });

  it("should take an id listed with other elems for another event, and date it as listed", function () {
    const dates = knownDatesOf("http://a id:s2");
    dates.first("7", 1000, () => '{"n":7}');
    assert.equal(
      dates.first("7", 9000, () => '{"n":1}'),
      9000,
    );
    assert.equal(
      dates.first("7", 9500, () => '{"n":1}'),
      9000,
    );
  });

  it("should keep the newest 1,000 events of a stream", function () {
    const dates = knownDatesOf("http://a id:s3");
    for (let i = 0; i <= 1000; i++) dates.first(`e${i}`, i, () => "{}");
    assert.equal(
      dates.first("e1", 99_999, () => "{}"),
      1,
      "kept",
    );
    assert.equal(
      dates.first("e0", 99_999, () => "{}"),
      99_999,
      "forgotten, so dated as listed",
    );
  });

  it("should keep 1,000 streams, the least recently read forgotten first", function () {
    forgetKnownDates();
    knownDatesOf("s-0").first("e", 1, () => "{}");
    knownDatesOf("s-1").first("e", 1, () => "{}");
    for (let i = 2; i < 1000; i++) knownDatesOf(`s-${i}`);
    // 1,000 streams; s-0 read again just before the 1,001st: s-1 is the one forgotten.
    knownDatesOf("s-0");
    knownDatesOf("s-1001");
    assert.equal(
      knownDatesOf("s-0").first("e", 2, () => "{}"),
      1,
    );
    assert.equal(
      knownDatesOf("s-1").first("e", 2, () => "{}"),
      2,
    );
  });

  it("should forget every stream when asked", function () {
    knownDatesOf("http://a id:s4").first("e1", 1, () => "{}");
    forgetKnownDates();
    assert.equal(
      knownDatesOf("http://a id:s4").first("e1", 2, () => "{}"),
      2,
    );
  });
});
