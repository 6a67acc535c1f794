// An editor with the "edge devices" sidebar tab open, for the benchmarks: an editor connection
// announced as the runtime's comms announce one (the bench runtime has no editor), the runtime's
// admin app served on a port of its own (the bench runtime serves no HTTP), and a subscribe every
// 5 s as the editor sends it, so the runtime builds and publishes its snapshots all through a run.
"use strict";
const http = require("node:http");

const BEAT_MS = 5000;

/** Subscribes as an open sidebar tab does; resolves with the function that closes it. */
async function openSidebar(RED) {
  const session = "bench-editor";
  RED.events.emit("comms:connection-added", { session, user: undefined });
  const server = http.createServer(RED.httpAdmin);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/edge-account/sidebar/subscribe`;
  const beat = async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    if (res.status !== 200) throw new Error(`sidebar subscribe: ${res.status}`);
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch((err) => process.stderr.write(`${err}\n`));
  }, BEAT_MS);
  return async () => {
    clearInterval(timer);
    RED.events.emit("comms:connection-removed", { session });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}

module.exports = { openSidebar };
