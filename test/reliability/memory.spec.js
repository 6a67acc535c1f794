// Memory under hostile servers. A server that answers huge pages once killed Node-RED: one `all`
// listing of 60 MB pages filled a 1 GB heap, eight concurrent 60 MB answers took 1.6 GB. Each case
// runs edge-list-events in a child Node.js with a 160 MB heap (test/support/memory-child.js) against
// a server in this process, and must end every message with a clear error, not a crash.
"use strict";
const assert = require("node:assert/strict");
const http = require("node:http");
const path = require("node:path");
const { spawn } = require("node:child_process");

const HEAP_MB = 160;
const EVENT_BYTES = 1000;

/** `count` events of about EVENT_BYTES each, as the JSON text of a list's items. */
function eventsText(count, from = 0) {
  const filler = "x".repeat(EVENT_BYTES - 120);
  const items = [];
  for (let i = 0; i < count; i++) {
    const n = from + i;
    const id = `e${String(n).padStart(24, "0")}`;
    items.push(
      `{"id":"${id}","streamId":"s1","path":"/demo/s","creationDate":${1e12 - n},"elems":{"v":"${filler}"}}`,
    );
  }
  return items.join(",");
}

/**
 * A server of event pages, every one full, without end: `chunks` x 1,000 events of about 1 KB
 * (so about `chunks` MB) per answer, streamed without a content-length so that the client learns
 * the size only by reading. The events of each page are new (ids and dates follow `start`).
 */
function pageServer(chunks) {
  let answers = 0;
  const server = http.createServer(async (req, res) => {
    answers++;
    const start = Number(new URL(req.url, "http://x").searchParams.get("start")) || 0;
    res.writeHead(200, { "content-type": "application/json" });
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    res.write('{"head":{"status":200,"ok":true,"errors":[]},"body":[');
    for (let i = 0; i < chunks && !closed; i++) {
      const chunk = `${i > 0 ? "," : ""}${eventsText(1000, start + i * 1000)}`;
      if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
    }
    if (!closed) res.end("]}");
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        answers: () => answers,
        close: () => {
          server.closeAllConnections();
          return new Promise((r) => server.close(r));
        },
      }),
    );
  });
}

/** Runs one case in a child with a small heap; resolves with its exit code, result and stderr. */
function runChild(edgeCase) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${HEAP_MB}`, path.join(__dirname, "../support", "memory-child.js")],
      { env: { ...process.env, EDGE_CASE: JSON.stringify(edgeCase) }, stdio: "pipe" },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code, signal) => {
      let result;
      try {
        result = JSON.parse(out.trim().split("\n").pop());
      } catch {
        result = undefined;
      }
      resolve({ code, signal, result, stderr: err.slice(-2000) });
    });
  });
}

function assertSurvived(run) {
  assert.equal(run.signal, null, `the child was killed by ${run.signal}: ${run.stderr}`);
  assert.equal(run.code, 0, `the child exited with ${run.code}: ${run.stderr}`);
  assert.ok(run.result, `no result: ${run.stderr}`);
  // EDGE_MEMORY_REPORT=1 prints the child's heap after the case (the figure docs/reliability.md gives).
  if (process.env.EDGE_MEMORY_REPORT)
    console.log(
      `      child: heap peak ${run.result.peakMB} MB, at the end ${run.result.heapMB} MB; ` +
        `resident peak ${run.result.peakRssMB} MB`,
    );
}

/** One `all` listing, the mode that reads page after page. */
const ALL = { mode: "all", messages: 1 };

describe("reliability: memory under hostile servers", function () {
  this.timeout(120000);
  let server;
  afterEach(async function () {
    await server?.close();
    server = undefined;
  });

  /** Runs `edgeCase` in the child against pages of about `chunks` MB; it must survive. */
  async function survive(chunks, edgeCase) {
    server = await pageServer(chunks);
    const run = await runChild({ baseUrl: server.url, ...edgeCase });
    assertSurvived(run);
    return run.result;
  }

  it("ends an `all` listing of 60 MB pages with a clear too-large error, in a 160 MB heap", async function () {
    const result = await survive(60, { ...ALL, limit: 10000, maxEvents: 1000000 });
    assert.equal(result.ended.length, 1);
    const [end] = result.ended;
    assert.equal(end.code, "too-large", end.message);
    assert.match(end.message, /over the account's Max answer of 8388608 bytes/);
  });

  it("ends eight concurrent 60 MB answers with eight too-large errors, in a 160 MB heap", async function () {
    const result = await survive(60, { mode: "page", messages: 8, limit: 10000 });
    assert.deepEqual(
      result.ended.map((e) => e.code),
      Array(8).fill("too-large"),
    );
    assert.equal(server.answers(), 8);
  });

  it("stops an `all` listing of endless 1 MB pages at the account's Max answer with too-much", async function () {
    const result = await survive(1, {
      ...ALL,
      limit: 1000,
      maxEvents: 1000000,
      account: { maxAnswer: String(4 * 1024 * 1024) },
    });
    const [end] = result.ended;
    assert.equal(end.code, "too-much", end.message);
    assert.match(
      end.message,
      /Listing all events stopped after \d+ events \(\d+ bytes\), over the account's Max answer of 4194304 bytes/,
    );
    // Pages of about 1 MB: the bound stops it after about four, not at a million events.
    assert.ok(server.answers() <= 6, `${server.answers()} pages read`);
  });

  it("reads a listing within the bounds as before", async function () {
    const result = await survive(1, { ...ALL, limit: 1000, maxEvents: 3000 });
    assert.deepEqual(result.ended, [{ output: true, count: 3000 }]);
  });
});
