// nodes/lib/node-red/render.ts: mustache against the msg, without HTML escaping, and escaped as
// JSON string content inside JSON text.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { render, renderJson } = lib("node-red/render");

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
});
