// The steps a schedule of the restart property is drawn from, as fast-check model commands: a
// command (send -> await), a hand-built command reference, a fleet job, a command whose answer
// comes late or never (the device runs it at once), a pause, and a stop
// (SIGINT) or a crash (SIGKILL) of Node-RED after a short delay. The model only counts what
// bounds a schedule (restarts); what must hold is checked after it, against the server.
"use strict";
const fc = require("fast-check");
const { sleep } = require("../support/simulator");
const { DEVICES } = require("./restart-world");
const { Pause } = require("./pause");

/** Restarts in one schedule: each is a Node-RED start (1-2 s on two cores). */
const MAX_RESTARTS = 2;

class Command {
  constructor(device) {
    this.device = device;
  }
  check() {
    return true;
  }
  async run(model, world) {
    await world.command("cmd", this.device);
  }
  toString() {
    return `command(${this.device})`;
  }
}

class HandBuiltRef {
  constructor(device, shape) {
    this.device = device;
    this.shape = shape;
  }
  check() {
    return true;
  }
  async run(model, world) {
    await world.command("ref", this.device, this.shape);
  }
  toString() {
    return `handBuiltRef(${this.device}, ${this.shape})`;
  }
}

class FleetJob {
  constructor(devices) {
    this.devices = devices;
  }
  check() {
    return true;
  }
  async run(model, world) {
    await world.fleet(this.devices);
  }
  toString() {
    return `fleetJob(${this.devices.join(",")})`;
  }
}

class AnswerFault {
  constructor(kind) {
    this.kind = kind;
  }
  check() {
    return true;
  }
  async run(model, world) {
    world.answerFault(this.kind);
  }
  toString() {
    return this.kind === "late" ? "lateAnswer()" : "lostAnswer()";
  }
}

class Restart {
  constructor(how, afterMs, downMs) {
    this.how = how;
    this.afterMs = afterMs;
    this.downMs = downMs;
  }
  check(model) {
    return model.restarts < MAX_RESTARTS;
  }
  async run(model, world) {
    model.restarts++;
    await sleep(this.afterMs);
    await world.restart(this.how, this.downMs);
  }
  toString() {
    return `${this.how === "SIGKILL" ? "crash" : "restart"}(after ${this.afterMs} ms, down ${this.downMs} ms)`;
  }
}

const device = fc.constantFrom(...DEVICES);

/** The arbitrary of a schedule of at most `maxSteps` steps. */
function scheduleArb(maxSteps) {
  const restart = fc
    .tuple(
      fc.constantFrom("SIGINT", "SIGKILL"),
      fc.integer({ min: 0, max: 1500 }),
      fc.integer({ min: 0, max: 1000 }),
    )
    .map(([how, after, down]) => new Restart(how, after, down));
  // Inputs weigh most: a stop finds something pending only when inputs came before it.
  return fc.array(
    fc.oneof(
      { arbitrary: device.map((d) => new Command(d)), weight: 3 },
      {
        arbitrary: fc
          .tuple(device, fc.constantFrom("none", "iso", "null"))
          .map(([d, shape]) => new HandBuiltRef(d, shape)),
        weight: 2,
      },
      {
        arbitrary: fc.subarray(DEVICES, { minLength: 2 }).map((devices) => new FleetJob(devices)),
        weight: 3,
      },
      {
        arbitrary: fc.constantFrom("late", "lost").map((kind) => new AnswerFault(kind)),
        weight: 1,
      },
      { arbitrary: fc.integer({ min: 50, max: 1200 }).map((ms) => new Pause(ms)), weight: 1 },
      { arbitrary: restart, weight: 2 },
    ),
    // fc.commands draws mostly empty schedules at this size; a schedule needs a few inputs before
    // its stops. An array of commands runs in fc.asyncModelRun all the same, and shrinks.
    { minLength: 3, maxLength: maxSteps },
  );
}

/** The stop or crash that ends a schedule that drew none: every schedule restarts at least once. */
const lastRestart = fc
  .tuple(fc.constantFrom("SIGINT", "SIGKILL"), fc.integer({ min: 0, max: 1500 }))
  .map(([how, after]) => new Restart(how, after, 0));

module.exports = {
  scheduleArb,
  lastRestart,
  MAX_RESTARTS,
  steps: { Command, HandBuiltRef, FleetJob, AnswerFault, Pause, Restart },
};
