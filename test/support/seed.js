// The simulator's seed data (simulator/seed.json), named once for every spec: a spec says
// SEED.lcd.id rather than repeating "d5f3c1a2b0000000000000001". Read from the file, so a changed
// seed changes every spec with it.
"use strict";
const path = require("node:path");

const seed = require(path.join(__dirname, "..", "..", "simulator", "seed.json"));

function device(name) {
  const d = seed.devices.find((x) => x.name === name);
  if (!d) throw new Error(`no device ${name} in simulator/seed.json`);
  return {
    name: d.name,
    id: d.id,
    company: d.company,
    commandStream: d.commandStreamId,
    inboxStream: d.inboxStreamId,
    commandPath: `/${d.company}/devices/${d.name}/:command`,
    inboxPath: `/${d.company}/devices/${d.name}/:inbox`,
    resources: d.resources,
    state: d.state,
  };
}

function stream(streamPath) {
  const s = seed.streams.find((x) => x.path === streamPath);
  if (!s) throw new Error(`no stream ${streamPath} in simulator/seed.json`);
  return { path: s.path, id: s.id };
}

const SEED = {
  lcd: device("lcd-board"),
  sensorHub: device("sensor-hub"),
  pump: device("pump-3"),
  otherBoard: device("other-board"),
  telemetry: stream("/demo/telemetry"),
};

module.exports = { SEED, device, stream };
