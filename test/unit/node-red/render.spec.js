// nodes/lib/node-red/render.ts: mustache against the msg, without HTML escaping, and escaped as
// JSON string content inside JSON text.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { render, renderJson, checkTemplate } = lib("node-red/render");

describe("unit: node-red/render", function () {
  it("should fill tags from the msg and leave text without tags as it is", function () {
    assert.equal(render("dev-{{topic}}", { topic: "a&b" }), "dev-a&b");
    assert.equal(render("{{{payload.name}}}", { payload: { name: "<x>" } }), "<x>");
    assert.equal(render("{{missing}}", {}), "");
    assert.equal(render("plain {text}", {}), "plain {text}");
  });

  it("should escape values as JSON string content in JSON text", function () {
    const text = renderJson('{"/lcd/txt1": "{{payload}}"}', { payload: 'say "hi"\n' });
    assert.deepEqual(JSON.parse(text), { "/lcd/txt1": 'say "hi"\n' });
    assert.equal(renderJson('{"n": {{payload}}}', { payload: 5 }), '{"n": 5}');
    assert.equal(renderJson('{"a": 1}', {}), '{"a": 1}');
  });

  it("should report a template mustache cannot read as bad-template, naming the property", function () {
    const unclosed = '{"/lcd/txt1": {{payload}';
    for (const fill of [renderJson, render]) {
      assert.throws(
        () => fill(unclosed, { payload: 1 }, "Elems"),
        (err) => {
          assert.equal(err.name, "EdgeError");
          assert.equal(err.code, "bad-template");
          assert.match(err.message, /^Elems is not a valid mustache template: Unclosed tag at \d+/);
          return true;
        },
      );
    }
    assert.throws(() => checkTemplate("{{#a}}x", "device"), { code: "bad-template" });
    assert.throws(
      () => render("{{{x}}", {}),
      (err) => {
        assert.deepEqual(err.params, { what: "template", detail: "Unclosed tag at 6" });
        return true;
      },
    );
    checkTemplate("no tags at all {", "device");
    checkTemplate("{{{deviceId}}}", "device");
  });

  it("should leave a throw while rendering to the msg it came from, not call it the template's", function () {
    const msg = {
      get payload() {
        throw new TypeError("not ready");
      },
    };
    assert.throws(() => render("{{payload}}", msg), { name: "TypeError", message: "not ready" });
  });
});
