// nodes/lib/node-red/intake.ts: the messages a node holds until its account can send them, and
// what becomes of one that arrives: started, held in order, or refused because the queue is full.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { Intake } = lib("node-red/intake");

describe("unit: node-red/intake", function () {
  it("should start every message when no limit is known", function () {
    const intake = new Intake();
    intake.running = 1000;
    assert.equal(intake.admit(undefined), "start");
  });

  it("should start while places are free and nothing waits, then hold, then refuse", function () {
    const intake = new Intake();
    const limit = { running: 2, waiting: 1 };
    assert.equal(intake.admit(limit), "start");
    intake.running = 2;
    assert.equal(intake.admit(limit), "hold");
    intake.hold("m1", "s1", "d1");
    assert.equal(intake.admit(limit), "full");
  });

  it("should hold, not refuse, a message that arrives after a place freed and before the held start", function () {
    const intake = new Intake();
    const limit = { running: 1, waiting: 1 };
    intake.running = 1;
    intake.hold("m1", "s1", "d1");
    // The running message ends: its place is free, but the held one starts a turn later.
    intake.running = 0;
    assert.equal(intake.admit(limit), "hold", "a newcomer must wait behind the held message");
    intake.hold("m2", "s2", "d2");
    assert.equal(intake.admit(limit), "full");
  });

  it("should hand out held messages first in, first out, with when each arrived", function () {
    const intake = new Intake();
    for (let i = 0; i < 3; i++) intake.hold(`m${i}`, `s${i}`, `d${i}`);
    const got = [];
    intake.next((msg, send, done, arrived) => got.push([msg, send, done, typeof arrived]));
    intake.drain((msg, send, done) => got.push([msg, send, done]));
    assert.deepEqual(got, [
      ["m0", "s0", "d0", "number"],
      ["m1", "s1", "d1"],
      ["m2", "s2", "d2"],
    ]);
    assert.equal(intake.waiting, 0);
  });
});
