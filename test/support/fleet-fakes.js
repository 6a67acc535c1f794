// The stand-in node of the fleet-job unit specs (fleet-job.spec.js, fleet-job-ends.spec.js and
// fleet-job-resume.spec.js in test/unit/fleet/): a job
// started with the real client, inbox poller and device names, and hooks that record what the
// node would hear. One module for the three specs, so that a change to what the hooks do is made
// once; each spec asks, by its options, for the little it does differently.
"use strict";
const { lib } = require("./lib");

const { FleetJob } = lib("fleet/fleet-job");
const { InboxPoller } = lib("commands/inbox-poller");
const { DeviceNames } = lib("device/names");

/**
 * Starts `job` (a saved record, test/support/saved-jobs.js) on `client` with a poller of its own;
 * `fromStore` says it was read back from a store. Returns the job as `fleet` and what its hooks
 * heard as `heard`: `saves` and `progress` counted, `devices` each device's message (its markers
 * copied as they were heard), `poller`, and `ended`, which resolves with `heard` at the job's
 * end. `onDevice(message, fleet)` stands in for the node's hook of a device's message, after it
 * is heard; `describe` for the sentence of an error. The poller is closed at the job's end.
 */
function startJob(
  client,
  job,
  { onDevice = () => {}, describe = (err) => err.message, fromStore } = {},
) {
  const poller = new InboxPoller(client);
  const heard = { saves: 0, progress: 0, devices: [], poller };
  let fleet;
  heard.ended = new Promise((resolve) => {
    fleet = new FleetJob(
      job,
      { client, names: new DeviceNames(client), poller },
      {},
      {
        save: async () => {
          heard.saves++;
        },
        device: (r) => {
          heard.devices.push({ ...r, markers: [...r.markers] });
          onDevice(r, fleet);
        },
        progress: () => heard.progress++,
        end: () => {
          poller.close();
          resolve(heard);
        },
        describe,
      },
      undefined,
      fromStore,
    );
  });
  fleet.start();
  return { fleet, heard };
}

module.exports = { startJob };
