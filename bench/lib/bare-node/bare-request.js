// The cheapest Node-RED node that does what edge-send-command does on success: one undici request
// per message over a keep-alive pool, the answer parsed and sent on. No validation, no rate limit,
// no retries, no status, no error mapping. The commands bench runs it as a peer to show how much
// of the gap to the plain undici loop is Node-RED's own per-message work.
"use strict";
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..", "..");

module.exports = function (RED) {
  const { Pool } = require(require.resolve("undici", { paths: [ROOT] }));
  function BareRequestNode(config) {
    RED.nodes.createNode(this, config);
    const pool = new Pool(config.url, { connections: Number(config.connections) || 16 });
    const headers = { ...config.headers, "content-type": "application/json" };
    this.on("input", (msg, send, done) => {
      const body = JSON.stringify({ path: config.streamPath, elems: msg.payload });
      pool
        .request({ method: "POST", path: config.path, headers, body })
        .then((res) => res.body.text())
        .then((text) => {
          msg.payload = JSON.parse(text).body;
          send(msg);
          done();
        })
        .catch((err) => done(err));
    });
    this.on("close", (done) => {
      pool.close().then(
        () => done(),
        () => done(),
      );
    });
  }
  RED.nodes.registerType("bench-bare-request", BareRequestNode);
};
