// nodes/lib/api/errors.ts: the one error type, its sentence from the texts the node-red layer sets
// (the catalog's), its codes those of the catalogs, and the plain data a flow sees in
// msg.edgeError.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { lib } = require("../../support/lib");

const { EdgeError, ERROR_CODES, setErrorTexts } = lib("api/errors");

const catalog = (lang) =>
  JSON.parse(
    fs.readFileSync(path.join(__dirname, "..", "..", "..", "locales", lang, "edge-account.json")),
  );

describe("unit: api/errors", function () {
  it("should have a catalog sentence for every code and a code for every sentence", function () {
    for (const lang of ["en-US", "de", "ja"])
      assert.deepEqual(
        // A key with an i18next context (`tls_http`, `bad-config_token`) is another sentence of its
        // code.
        Object.keys(catalog(lang).edge.errors)
          .filter((k) => !["refused_probe", "tls_http"].includes(k) && !k.startsWith("bad-config_"))
          .sort(),
        [...ERROR_CODES].sort(),
        lang,
      );
  });

  it("should take its sentence from the texts set, and say the code and parameters without them", function () {
    const seen = [];
    const before = setErrorTexts((code, params) => {
      seen.push([code, params]);
      return code === "queue-full" ? `queued ${params.max}` : undefined;
    });
    try {
      assert.equal(new EdgeError("queue-full", { max: 5 }).message, "queued 5");
      assert.equal(new EdgeError("empty", { what: "Elems" }).message, "empty (what=Elems)");
      assert.equal(new EdgeError("no-account").message, "no-account");
      assert.deepEqual(seen[0], ["queue-full", { max: 5 }]);
    } finally {
      setErrorTexts(before);
    }
  });

  it("should build its message from the catalog's sentence for the code", function () {
    const err = new EdgeError("queue-full", { max: 5 });
    assert.equal(
      err.message,
      "Too many requests waiting for this account (5 queued): the message was not sent",
    );
    assert.equal(String(err), err.message, "toString is the sentence alone, for msg.error");
    assert.equal(err.name, "EdgeError");
    assert.ok(err instanceof Error);
  });

  it("should carry the details and give them to flows as plain data", function () {
    const cause = new Error("socket hang up");
    const err = new EdgeError(
      "reset-uncertain",
      { origin: "http://x", method: "POST", path: "/v5.0/c/event" },
      { method: "POST", path: "/v5.0/c/event", mayHaveBeenSent: true, cause },
    );
    assert.deepEqual(JSON.parse(JSON.stringify(err)), {
      name: "EdgeError",
      code: "reset-uncertain",
      message: err.message,
      errors: [],
      method: "POST",
      path: "/v5.0/c/event",
      mayHaveBeenSent: true,
    });
    assert.equal(err.underlying, cause);
    assert.ok(!Object.keys(err).includes("underlying"), "the cause stays out of copies");
    assert.ok(!Object.keys(err).includes("cause"), "Node-RED would copy a cause into msg.error");
  });

  it("should default to not sent, with no errors", function () {
    const err = new EdgeError("no-account");
    assert.equal(err.mayHaveBeenSent, false);
    assert.deepEqual(err.errors, []);
    assert.equal(err.status, undefined);
  });
});
