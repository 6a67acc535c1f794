// nodes/lib/api/transport.ts: the one place where undici's failures become EdgeErrors, and
// whether each may have reached the server (a command that may have been delivered is never sent
// again). The map is checked on the error shapes undici throws, and one attempt of each kind that
// a local server can produce is made for real.
"use strict";
const assert = require("node:assert/strict");
const http = require("node:http");
const net = require("node:net");
const { lib } = require("../../support/lib");

const { mapTransportError, createPool, send } = lib("api/transport");

const ORIGIN = "http://127.0.0.1:9";
const attempt = (method = "GET") => ({
  method,
  path: "/v5.0/demo/device/d1",
  headers: {},
  timeoutMs: 500,
});
const undiciError = (code, extra = {}) => Object.assign(new Error(code), { code, ...extra });

describe("unit: api/transport", function () {
  describe("mapTransportError", function () {
    it("should call failures before a socket opened certain not to have reached the server", function () {
      const cases = [
        [undiciError("ECONNREFUSED"), "refused"],
        [undiciError("ENOTFOUND"), "dns"],
        [undiciError("EAI_AGAIN"), "dns"],
        [undiciError("UND_ERR_CONNECT_TIMEOUT"), "timeout"],
        [undiciError("DEPTH_ZERO_SELF_SIGNED_CERT"), "tls"],
        [undiciError("UNABLE_TO_VERIFY_LEAF_SIGNATURE"), "tls"],
        [undiciError("ERR_TLS_CERT_ALTNAME_INVALID"), "tls"],
      ];
      for (const method of ["GET", "POST"])
        for (const [err, code] of cases) {
          const mapped = mapTransportError(err, attempt(method), ORIGIN, false);
          assert.equal(mapped.code, code, `${method} ${err.code}`);
          assert.equal(mapped.mayHaveBeenSent, false, `${method} ${err.code}`);
        }
    });

    it("should say what to check when refused, and that an https:// server may speak http", function () {
      lib("node-red/i18n"); // sets the catalog's sentences
      const refused = mapTransportError(undiciError("ECONNREFUSED"), attempt(), ORIGIN, false);
      // The request stays in the error, for logs; the hint is what a user can act on.
      assert.equal(
        refused.message,
        "Connection refused by http://127.0.0.1:9 (GET /v5.0/demo/device/d1): is the server running, and are the Base URL's host and port right?",
      );
      const https = "https://127.0.0.1:9";
      const plain = mapTransportError(
        undiciError("ERR_SSL_WRONG_VERSION_NUMBER"),
        attempt(),
        https,
        false,
      );
      assert.equal(plain.code, "tls");
      assert.equal(
        plain.message,
        "TLS failure talking to https://127.0.0.1:9 (ERR_SSL_WRONG_VERSION_NUMBER): the server may speak http: try an http:// Base URL",
      );
      const cert = mapTransportError(undiciError("CERT_HAS_EXPIRED"), attempt(), https, false);
      assert.equal(cert.message, "TLS failure talking to https://127.0.0.1:9: CERT_HAS_EXPIRED");
    });

    it("should read the code of the cause when undici wraps it", function () {
      const wrapped = Object.assign(new TypeError("fetch failed"), {
        cause: undiciError("ECONNREFUSED"),
      });
      assert.equal(mapTransportError(wrapped, attempt(), ORIGIN, false).code, "refused");
    });

    it("should say a command may have been delivered after a timeout or a reset", function () {
      const cases = [
        [undiciError("ECONNRESET"), "reset", "reset-uncertain"],
        [undiciError("UND_ERR_SOCKET"), "reset", "reset-uncertain"],
        [undiciError("EPIPE"), "reset", "reset-uncertain"],
        [undiciError("UND_ERR_HEADERS_TIMEOUT"), "timeout", "timeout-uncertain"],
        [undiciError("UND_ERR_BODY_TIMEOUT"), "timeout", "timeout-uncertain"],
      ];
      for (const [err, read, command] of cases) {
        const get = mapTransportError(err, attempt("GET"), ORIGIN, false);
        const post = mapTransportError(err, attempt("POST"), ORIGIN, false);
        assert.equal(get.code, read, err.code);
        assert.equal(post.code, command, err.code);
        assert.equal(get.mayHaveBeenSent, true);
        assert.equal(post.mayHaveBeenSent, true);
      }
    });

    it("should tell our own timeout from a caller's abort", function () {
      const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
      assert.equal(
        mapTransportError(abort, attempt("POST"), ORIGIN, true).code,
        "timeout-uncertain",
      );
      assert.equal(mapTransportError(abort, attempt("POST"), ORIGIN, false).code, "aborted");
      assert.equal(
        mapTransportError(undiciError("UND_ERR_ABORTED"), attempt(), ORIGIN, false).code,
        "aborted",
      );
    });

    it("should name a too large answer, and any other failure as a network error with its text", function () {
      const big = mapTransportError(
        undiciError("UND_ERR_RES_EXCEEDED_MAX_SIZE"),
        attempt(),
        ORIGIN,
        false,
      );
      assert.equal(big.code, "too-large");
      const odd = mapTransportError(new Error("something odd"), attempt(), ORIGIN, false);
      assert.equal(odd.code, "network");
      assert.match(odd.message, /something odd/);
      assert.equal(mapTransportError("a string", attempt(), ORIGIN, false).code, "network");
      assert.equal(mapTransportError(null, attempt(), ORIGIN, false).code, "network");
    });

    it("should put the host of a failed name lookup in the message", function () {
      const dns = mapTransportError(
        undiciError("ENOTFOUND"),
        attempt(),
        "https://no.such.host",
        false,
      );
      assert.match(dns.message, /no\.such\.host/);
    });
  });

  describe("send, against local sockets", function () {
    let server;
    let origin;
    let behaviour;
    const sockets = new Set();

    before(async function () {
      server = http.createServer((req, res) => behaviour(req, res));
      server.on("connection", (s) => {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
      });
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      origin = `http://127.0.0.1:${server.address().port}`;
    });

    after(async function () {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    async function sendOnce(a) {
      const pool = createPool({ origin, connections: 1, maxResponseBytes: 1024 });
      try {
        return await send(pool, origin, a);
      } finally {
        await pool.destroy();
      }
    }

    it("should read a whole answer", async function () {
      behaviour = (req, res) => res.end(`{"seen":"${req.method} ${req.url}"}`);
      const res = await sendOnce(attempt());
      assert.equal(res.status, 200);
      assert.equal(res.text, '{"seen":"GET /v5.0/demo/device/d1"}');
    });

    it("should end in reset-uncertain when the connection drops after a command was sent", async function () {
      behaviour = (req) => req.socket.destroy();
      await assert.rejects(sendOnce(attempt("POST")), { code: "reset-uncertain" });
      await assert.rejects(sendOnce(attempt("GET")), { code: "reset" });
    });

    it("should end in timeout-uncertain when a command's answer does not come in time", async function () {
      behaviour = () => {}; // never answers
      await assert.rejects(sendOnce({ ...attempt("POST"), timeoutMs: 50 }), {
        code: "timeout-uncertain",
        mayHaveBeenSent: true,
      });
    });

    it("should end in too-large for an answer over the limit", async function () {
      behaviour = (req, res) => res.end("x".repeat(4096));
      await assert.rejects(sendOnce(attempt()), { code: "too-large" });
    });

    it("should end in refused when nothing listens", async function () {
      const closed = net.createServer();
      await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const port = closed.address().port;
      await new Promise((resolve) => closed.close(resolve));
      const to = `http://127.0.0.1:${port}`;
      const pool = createPool({ origin: to, connections: 1, maxResponseBytes: 1024 });
      try {
        await assert.rejects(send(pool, to, attempt("POST")), {
          code: "refused",
          mayHaveBeenSent: false,
        });
      } finally {
        await pool.destroy();
      }
    });

    it("should call a command certain not to have been sent when it timed out or was aborted while connecting", async function () {
      // A TCP server that never answers the TLS handshake: the connection never opens, as with a
      // device that is off or a network that drops the connection attempt. The attempt's timer
      // (or the caller's abort) ends it long before undici's own 10 s connect timeout.
      let bytes = 0;
      const held = new Set();
      const silent = net.createServer((s) => {
        held.add(s);
        s.on("data", (d) => (bytes += d.length));
      });
      await new Promise((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const to = `https://127.0.0.1:${silent.address().port}`;
      const pool = createPool({ origin: to, connections: 1, maxResponseBytes: 1024 });
      try {
        await assert.rejects(send(pool, to, { ...attempt("POST"), timeoutMs: 200 }), {
          code: "timeout",
          mayHaveBeenSent: false,
        });
        const controller = new AbortController();
        const aborted = send(pool, to, {
          ...attempt("POST"),
          timeoutMs: 5000,
          signal: controller.signal,
        });
        setTimeout(() => controller.abort(), 100);
        await assert.rejects(aborted, { code: "aborted", mayHaveBeenSent: false });
        assert.ok(bytes > 0, "the handshake began");
      } finally {
        for (const s of held) s.destroy();
        await pool.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it("should not send at all when the caller's signal is already aborted", async function () {
      let requests = 0;
      behaviour = (req, res) => {
        requests += 1;
        res.end("{}");
      };
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(sendOnce({ ...attempt("POST"), signal: controller.signal }), {
        code: "aborted",
      });
      assert.equal(requests, 0);
    });

    it("should read an answer that comes in many pieces, with characters cut between them", async function () {
      // 3-byte characters written in pieces of 1,000 bytes: most pieces end inside a character.
      const text = JSON.stringify({ text: "€".repeat(20000) });
      behaviour = (req, res) => {
        const bytes = Buffer.from(text);
        res.writeHead(200, { "content-length": bytes.length });
        for (let i = 0; i < bytes.length; i += 1000) res.write(bytes.subarray(i, i + 1000));
        res.end();
      };
      const pool = createPool({ origin, connections: 1, maxResponseBytes: 1 << 20 });
      try {
        const res = await send(pool, origin, attempt());
        assert.equal(res.text, text);
      } finally {
        await pool.destroy();
      }
    });

    it("should read an answer that starts with a byte order mark, as undici's body.text() did", async function () {
      // Some servers put a UTF-8 byte order mark before their JSON. Kept, it made JSON.parse fail:
      // a command the device had run ended as a malformed answer.
      behaviour = (req, res) => {
        res.setHeader("content-type", "application/json; charset=utf-8");
        res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ok":"ü"}')]));
      };
      const res = await sendOnce(attempt("POST"));
      assert.equal(res.text, '{"ok":"ü"}');
      assert.deepEqual(JSON.parse(res.text), { ok: "ü" });
    });

    it("should skip an informational answer and keep every value of a repeated header", async function () {
      behaviour = (req, res) => {
        res.writeEarlyHints({ link: "</x.css>; rel=preload" });
        res.setHeader("retry-after", "7");
        res.setHeader("set-cookie", ["a=1", "b=2"]);
        res.writeHead(429);
        res.end("{}");
      };
      const res = await sendOnce(attempt());
      assert.equal(res.status, 429);
      assert.equal(res.headers["retry-after"], "7");
      assert.deepEqual(res.headers["set-cookie"], ["a=1", "b=2"]);
      assert.equal(res.headers.link, undefined);
    });

    it("should end a request that waits for a connection at once on abort, and never send it", async function () {
      const seen = [];
      let release;
      behaviour = (req, res) => {
        seen.push(req.url);
        release = () => res.end("{}");
      };
      const pool = createPool({ origin, connections: 1, maxResponseBytes: 1024 });
      try {
        // The first request holds the only connection; the second waits in the pool for it.
        const first = send(pool, origin, { ...attempt(), path: "/first", timeoutMs: 5000 });
        const controller = new AbortController();
        const second = send(pool, origin, {
          ...attempt("POST"),
          path: "/second",
          timeoutMs: 5000,
          signal: controller.signal,
        });
        for (let i = 0; i < 100 && !release; i++) await new Promise((r) => setTimeout(r, 10));
        controller.abort();
        await assert.rejects(second, { code: "aborted" });
        release();
        assert.equal((await first).status, 200);
        // Give the pool the time to reach the aborted request: it must drop it, not send it.
        await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(seen, ["/first"]);
      } finally {
        await pool.destroy();
      }
    });
  });
});
