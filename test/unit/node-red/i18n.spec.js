// nodes/lib/node-red/i18n.ts: texts from the runtime's catalogs, `edge.*` keys from the account's,
// the shipped English catalog when the runtime has none, each key translated once.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { translator, errorText, interpolate, MODULE } = lib("node-red/i18n");
const { EdgeError } = lib("api/errors");

/** A runtime whose RED._ answers from `texts` (keyed by full key) and counts its calls. */
function runtime(texts = {}) {
  const calls = [];
  return {
    calls,
    _: (key, params) => {
      calls.push(key);
      const text = texts[key];
      return text === undefined
        ? key
        : text.replace(/__(\w+)__/g, (w, n) => (n in params ? String(params[n]) : w));
    },
  };
}

describe("unit: node-red/i18n", function () {
  it("should fill __name__ placeholders and leave unknown ones", function () {
    assert.equal(interpolate("a __x__ b __y__", { x: 1 }), "a 1 b __y__");
    assert.equal(interpolate("no placeholders", { x: 1 }), "no placeholders");
  });

  it("should read a node's key from its catalog and an edge.* key from the account's", function () {
    const RED = runtime({
      [`${MODULE}/edge-send-command:label.x`]: "Gesendet",
      [`${MODULE}/edge-account:edge.status.retrying`]: "Versuch __attempt__",
    });
    const t = translator(RED, "edge-send-command");
    assert.equal(t("label.x"), "Gesendet");
    assert.equal(t("edge.status.retrying", { attempt: 2 }), "Versuch 2");
  });

  it("should fall back to the shipped English catalog when the runtime returns the key", function () {
    const t = translator(runtime(), "edge-account");
    assert.equal(
      t("edge.errors.queue-full", { max: 3 }),
      new EdgeError("queue-full", { max: 3 }).message,
    );
    assert.equal(t("no.such.key"), "no.such.key");
  });

  it("should translate a key once and fill its parameters on every call", function () {
    const RED = runtime({ [`${MODULE}/edge-account:edge.status.retrying`]: "retry __attempt__" });
    const t = translator(RED, "edge-account");
    assert.equal(t("edge.status.retrying", { attempt: 1 }), "retry 1");
    assert.equal(t("edge.status.retrying", { attempt: 2 }), "retry 2");
    assert.equal(RED.calls.length, 1);
  });

  it("should give an error's sentence in the runtime's language", function () {
    const RED = runtime({
      [`${MODULE}/edge-account:edge.errors.no-account`]: "Kein Konto",
    });
    assert.equal(
      errorText(translator(RED, "edge-device-state"), new EdgeError("no-account")),
      "Kein Konto",
    );
  });

  it("should say 1 key and 2 keys, in the shipped catalog and through i18next as Node-RED sets it up", async function () {
    const fallback = translator(runtime(), "edge-device-state");
    assert.equal(fallback("edge-device-state.status.get", { count: 1 }), "read, 1 key");
    assert.equal(fallback("edge-device-state.status.get", { count: 2 }), "read, 2 keys");
    assert.equal(fallback("edge-device-state.status.merge", { count: 0 }), "merged, 0 keys");
    const i18next = require("i18next").createInstance();
    const catalog = (lang) => require(`../../../locales/${lang}/edge-device-state.json`);
    const ns = `${MODULE}/edge-device-state`;
    await i18next.init({
      lng: "en-US",
      showSupportNotice: false,
      fallbackLng: "en-US",
      interpolation: { prefix: "__", suffix: "__", escapeValue: false },
      resources: {
        "en-US": { [ns]: catalog("en-US") },
        de: { [ns]: catalog("de") },
        ja: { [ns]: catalog("ja") },
      },
    });
    const t = translator({ _: (key, params) => i18next.t(key, params) }, "edge-device-state");
    assert.equal(t("edge-device-state.status.get", { count: 1 }), "read, 1 key");
    assert.equal(t("edge-device-state.status.get", { count: 3 }), "read, 3 keys");
    assert.equal(t("edge-device-state.status.replace", { count: 1 }), "replaced, 1 key");
    await i18next.changeLanguage("de");
    const de = translator({ _: (key, params) => i18next.t(key, params) }, "edge-device-state");
    assert.equal(de("edge-device-state.status.get", { count: 1 }), "gelesen, 1 Schlüssel");
    // Japanese has one form for every count: i18next reads its _other.
    await i18next.changeLanguage("ja");
    const ja = translator({ _: (key, params) => i18next.t(key, params) }, "edge-device-state");
    assert.equal(ja("edge-device-state.status.get", { count: 1 }), "取得 1 キー");
    assert.equal(ja("edge-device-state.status.merge", { count: 3 }), "マージ 3 キー");
  });
});
