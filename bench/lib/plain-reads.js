// The peer of a quiet read: the same GETs, at the same pace, made with plain undici in the same
// process (Node-RED running, nothing deployed), and its CPU time per request. A node's quiet read
// cannot cost less than the HTTP request it makes, so "runtime CPU per quiet read" is read beside
// this figure, measured in the same run on the same machine.
"use strict";
const { Agent, request } = require("undici");
const { performance } = require("node:perf_hooks");
const { sleep } = require("./stats");

/**
 * Reads each of `urls` (paths of sim.url, with their query) once per `intervalMs`, spread evenly
 * over the interval, for `ms`; the body is read as text and parsed, as any client must. Resolves
 * with the CPU microseconds per read and the number of reads.
 */
async function plainQuietReads(sim, urls, { intervalMs = 1000, ms = 4000 } = {}) {
  const agent = new Agent();
  const headers = { "x-auth-token": sim.token, "x-auth-user": sim.user };
  const read = async (path) => {
    const res = await request(`${sim.url}${path}`, { headers, dispatcher: agent });
    JSON.parse(await res.body.text());
  };
  try {
    // Warm the connections, unmeasured.
    await Promise.all(urls.map(read));
    const step = intervalMs / urls.length;
    const rounds = Math.max(1, Math.round(ms / intervalMs));
    const pending = new Set();
    let reads = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    // Bounded: rounds × urls reads, each at its planned time.
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < urls.length; i++) {
        const wait = t0 + r * intervalMs + i * step - performance.now();
        if (wait > 1) await sleep(wait);
        const p = read(urls[i]).then(() => {
          reads++;
          pending.delete(p);
        });
        pending.add(p);
      }
    }
    await Promise.all(pending);
    const cpu = process.cpuUsage(cpu0);
    return { cpuUsPerRead: (cpu.user + cpu.system) / reads, reads };
  } finally {
    await agent.close();
  }
}

module.exports = { plainQuietReads };
