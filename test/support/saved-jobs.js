// A fleet job as edge-fleet-command saves it in its context store (lib/records/saved-jobs.ts), for
// the specs that put one there themselves or start a job from one: the unit specs of the saved
// jobs and of the fleet job, and the restart spec that writes jobs an edited store file could hold.
"use strict";

/**
 * The saved record of job `name`: started at `startedAt`, `settings` over a valid set (5 s
 * timeout, 50 ms interval, no rate, 10 in flight, no failure limit), `devices` as saved, and the
 * message it started with (`msg`, serialised as the node saves it).
 */
function savedJob(name, { startedAt = Date.now(), settings = {}, devices = [], msg = {} } = {}) {
  return {
    v: 1,
    job: name,
    startedAt,
    settings: {
      elems: { "/lcd/txt1": "x" },
      timeoutMs: 5000,
      intervalMs: 50,
      rate: 0,
      concurrency: 10,
      maxFailures: 0,
      ...settings,
    },
    devices,
    msg: JSON.stringify(msg),
  };
}

module.exports = { savedJob };
