// A node context with two stores, as Node-RED's with contextStorage `a` and `b`: for the unit
// specs of saved records (waits, fleet jobs) that move between stores when a deploy changes a
// node's Store. Only the callback forms that lib/records/saved-records.ts uses.
"use strict";

/** Returns {node, stores}: `node.context()` over the two Maps in `stores.a` and `stores.b`. */
function twoStores() {
  const stores = { a: new Map(), b: new Map() };
  const context = {
    keys: (store, cb) => cb(null, [...stores[store].keys()]),
    get: (key, store, cb) => cb(null, stores[store].get(key)),
    set(key, value, store, cb) {
      if (value === undefined) stores[store].delete(key);
      else stores[store].set(key, value);
      cb(null);
    },
  };
  return { node: { context: () => context }, stores };
}

module.exports = { twoStores };
