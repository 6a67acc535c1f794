// nodes/lib/records/persistent-store.ts: whether a node's context store survives a restart, read
// from settings as Node-RED resolves a store name.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { isPersistentStore } = lib("records/persistent-store");

const FILE = { module: "localfilesystem" };
const MEMORY = { module: "memory" };

describe("unit: records/persistent-store", function () {
  const cases = [
    ["Node-RED's shipped settings (no contextStorage)", {}, "", false],
    ["no settings at all", undefined, "", false],
    ["an empty contextStorage", { contextStorage: {} }, "", false],
    ["a memory default", { contextStorage: { default: MEMORY } }, "", false],
    ["a file default", { contextStorage: { default: FILE } }, "", true],
    ["the file store named", { contextStorage: { default: MEMORY, file: FILE } }, "file", true],
    [
      "the memory default beside a file store",
      { contextStorage: { default: MEMORY, file: FILE } },
      "",
      false,
    ],
    [
      "a default that names the file store",
      { contextStorage: { default: "file", file: FILE } },
      "",
      true,
    ],
    [
      "a default that names a memory store",
      { contextStorage: { default: "mem", mem: MEMORY, file: FILE } },
      "",
      false,
    ],
    [
      "no default: the first store listed",
      { contextStorage: { file: FILE, mem: MEMORY } },
      "",
      true,
    ],
    ["no default, memory first", { contextStorage: { mem: MEMORY, file: FILE } }, "", false],
    [
      "an unknown name: the default",
      { contextStorage: { default: MEMORY, file: FILE } },
      "nope",
      false,
    ],
    ["an unknown name, file default", { contextStorage: { default: FILE } }, "nope", true],
    [
      "a store of its own module",
      { contextStorage: { default: { module: { get() {} } } } },
      "",
      true,
    ],
    ["a store without module", { contextStorage: { default: {} } }, "", false],
    ["Node-RED's reserved name", { contextStorage: { _: FILE } }, "_", false],
  ];
  for (const [what, settings, store, persistent] of cases) {
    it(`should say ${persistent ? "persistent" : "not persistent"} for ${what}`, function () {
      assert.equal(isPersistentStore(settings, store || undefined), persistent);
    });
  }
});
