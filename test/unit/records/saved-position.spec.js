// nodes/lib/records/saved-position.ts: the watch node's saved position read back from a context
// store, checked field by field.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { checkSavedPosition } = lib("records/saved-position");

const NOW = 1_750_000_000_000;
const good = (extra = {}) => ({
  stream: "/demo/telemetry",
  date: NOW - 5000,
  ids: ["e1", "e2"],
  ...extra,
});

describe("unit: records/saved-position", function () {
  it("should accept a position as the watch node saves it, and that of an empty stream", function () {
    assert.deepEqual(checkSavedPosition(good(), NOW), { ok: true, saved: good() });
    const empty = good({ date: null, ids: [] });
    assert.deepEqual(checkSavedPosition(empty, NOW), { ok: true, saved: empty });
  });

  const cases = [
    ["null", null, "record"],
    ["a string", "position", "record"],
    ["an array", [good()], "record"],
    ["no stream", good({ stream: undefined }), "stream"],
    ["an empty stream", good({ stream: "" }), "stream"],
    ["a date as text", good({ date: String(NOW) }), "date"],
    ["a date that is not finite", good({ date: NaN }), "date"],
    ["a date far ahead, which would hold back every event", good({ date: 9e15 }), "date"],
    ["a negative date", good({ date: -1 }), "date"],
    ["ids that are not a list", good({ ids: "e1" }), "ids"],
    ["ids that are numbers", good({ ids: [1, 2] }), "ids"],
    ["an empty id", good({ ids: [""] }), "ids"],
    ["ids without a date", good({ date: null, ids: ["e1"] }), "ids"],
    [
      "more ids than one read holds",
      good({ ids: Array.from({ length: 10001 }, (_, i) => `e${i}`) }),
      "ids",
    ],
  ];
  for (const [what, value, field] of cases) {
    it(`should refuse ${what}, naming ${field}`, function () {
      assert.deepEqual(checkSavedPosition(value, NOW), { ok: false, field });
    });
  }
});
