// The items of the unclaimed-markers unit specs (unclaimed-markers*.spec.js in test/unit/commands/):
// one module, so that the shape of an item the store holds is written once.
"use strict";
const { lib } = require("./lib");

const { markerOf } = lib("commands/markers");

/**
 * `item(elems, { date, readAt, named })`: an unclaimed marker of an event holding `elems`, with ids
 * "e" and 24 decimal digits counted up from 1 (each call of itemsOf counts on its own, so each spec
 * file keeps its ids); `refs(items)`: the `ref` of each item's event.
 */
function itemsOf() {
  let serial = 0;
  function item(elems, { date = 1000, readAt = 0, named = false } = {}) {
    const event = { id: `e${String(++serial).padStart(24, "0")}`, creationDate: date, elems };
    return { marker: markerOf(event), date, readAt, named, claimed: false, lengths: new Set() };
  }
  const refs = (items) => items.map((i) => i.marker.event.elems.ref);
  return { item, refs };
}

module.exports = { itemsOf };
