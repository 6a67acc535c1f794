// The step that lets time pass, for both the harness's schedules (schedule.js) and the restart
// property's (restart-steps.js): a pause is where a device answers or a store flushes.
"use strict";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Pause {
  constructor(ms) {
    this.ms = ms;
  }
  check() {
    return true;
  }
  async run() {
    await sleep(this.ms);
  }
  toString() {
    return `pause(${this.ms})`;
  }
}

module.exports = { Pause, sleep };
