// A run's transcript (issue 36): everything the server logged (requests, commands executed,
// markers written, events of the watched stream, transport faults), every transport event of
// the simulated network, and every message the flow put out or Node-RED dropped, with its
// virtual time. Two runs of one seed and path give the same text, byte for byte
// (determinism.spec.js); that is what "a failure replays" means.
"use strict";

/**
 * JSON of a message: errors by name, code and text (JSON.stringify gives `{}` for them), with no
 * stack.
 */
function replacer(key, value) {
  // A stack names the caller's file and line: where the run was started from, not what it did.
  if (key === "stack") return undefined;
  if (value instanceof Error)
    return { error: value.name, code: value.code, message: value.message, ...value };
  if (typeof value === "bigint") return `${value}n`;
  return value;
}

/** The transcript of the last schedule `server` (a simulated one) ran. */
function transcriptOf(server) {
  const rec = server.lastRecord ?? {};
  const outputs = (rec.outputs ?? []).map(({ sink, n, t, msg }) => ({ sink, n, t, msg }));
  const dropped = (rec.dropped ?? []).map(({ sink, n, t, sentBefore, midway }) => ({
    sink,
    n,
    t,
    sentBefore,
    midway,
  }));
  return JSON.stringify(
    {
      log: server.log,
      network: server.network.log,
      outputs,
      dropped,
      watch: rec.watch,
      tabCancels: rec.tabCancels,
    },
    replacer,
    1,
  );
}

module.exports = { transcriptOf };
