// HTTP plumbing: reads bodies with a size limit, counts and logs /v5.0 requests, applies injected
// faults around the API, and serves the /_sim control interface. Keep-alive stays on and sockets
// are tracked so that close() ends promptly even with pooled client connections.

import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { Api, envelope, errorEnvelope, type ApiResponse } from "./api";
import { CommandProcessor, type CommandConfig } from "./commands";
import { handleControl } from "./control";
import type { ControlHost } from "./control-host";
import { RequestLog, StatsCounter, type RequestRecord } from "./request-log";
import { Faults, type Fault } from "./faults";
import type { SeedData } from "./seed";
import { Store } from "./store";
import { Timers } from "./timers";

export const MAX_BODY_BYTES = 1024 * 1024;
// Past this a client that ignores the 413 is cut off instead of being drained forever.
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
const LOGGED_BODY_CHARS = 2000;
const HTML_BODY = "<html><body><h1>502 Bad Gateway</h1></body></html>";

interface Body {
  text: string;
  tooLarge: boolean;
}

export class SimulatorServer implements ControlHost {
  store: Store;
  commands: CommandProcessor;
  readonly faults = new Faults();
  readonly stats = new StatsCounter();
  readonly log = new RequestLog();
  /** Command timers, cleared by reset; injected delays have their own, cleared only by close. */
  readonly timers = new Timers();
  private readonly delays = new Timers();
  readonly config: CommandConfig;
  private api: Api;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private closed = false;

  constructor(
    private readonly seed: SeedData,
    private readonly initialConfig: CommandConfig,
    private readonly quiet: boolean,
    /** Serves HTTPS with this key and certificate (tests of private CAs) instead of HTTP. */
    tls?: { key: string | Buffer; cert: string | Buffer },
  ) {
    this.config = { ...initialConfig };
    this.store = this.newStore();
    this.commands = new CommandProcessor(this.store, this.timers, this.config);
    this.api = new Api(this.store, this.commands);
    const handler: http.RequestListener = (req, res) => {
      this.onRequest(req, res).catch((err: unknown) => {
        this.internalError(res, err);
      });
    };
    this.server = tls
      ? https.createServer({ keepAlive: true, key: tls.key, cert: tls.cert }, handler)
      : http.createServer({ keepAlive: true }, handler);
    this.server.keepAliveTimeout = 5000;
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    this.server.on("clientError", (_err, socket) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      else socket.destroy();
    });
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => {
        reject(err);
      };
      this.server.once("error", onError);
      this.server.listen(port, host, () => {
        this.server.off("error", onError);
        this.server.on("error", (err) => {
          this.warn(`server error: ${err.message}`);
        });
        const address = this.server.address();
        resolve(typeof address === "object" && address !== null ? address.port : port);
      });
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.timers.clear();
    this.delays.clear();
    this.commands.reset();
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve();
      });
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
    });
  }

  /** Back to the seed: devices, streams, config; faults, stats, log and timers cleared. */
  reset(): void {
    this.timers.clear();
    this.commands.reset();
    this.faults.clear();
    this.stats.reset();
    this.log.clear();
    this.config.commandDelayMs = this.initialConfig.commandDelayMs;
    this.config.markerStyle = this.initialConfig.markerStyle;
    this.config.idStyle = this.initialConfig.idStyle;
    this.config.maxPageSize = this.initialConfig.maxPageSize;
    this.store = this.newStore();
    this.commands = new CommandProcessor(this.store, this.timers, this.config);
    this.api = new Api(this.store, this.commands);
  }

  private newStore(): Store {
    const store = new Store(this.seed);
    store.eventIds = () => this.config.idStyle;
    return store;
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? "" : url.slice(q + 1);
    const isApi = pathname === "/v5.0" || pathname.startsWith("/v5.0/");
    let record: RequestRecord | undefined;
    if (isApi) {
      this.stats.count(`${method} ${pathname}`);
      record = {
        method,
        url,
        pathname,
        headers: req.headers,
        body: "",
        time: performance.timeOrigin + performance.now(),
        status: null,
      };
      this.log.add(record);
    }
    const body = await readBody(req);
    if (body === undefined || this.closed) return;
    if (record !== undefined) record.body = body.text.slice(0, LOGGED_BODY_CHARS);
    if (body.tooLarge) {
      if (record !== undefined) record.status = 413;
      const error = `Request body larger than ${MAX_BODY_BYTES} bytes`;
      if (isApi) send(res, 413, errorEnvelope(413, [error]), { connection: "close" });
      else send(res, 413, JSON.stringify({ error }), { connection: "close" });
      return;
    }
    if (pathname === "/_sim" || pathname.startsWith("/_sim/")) {
      const result = handleControl(this, {
        method,
        pathname,
        query: new URLSearchParams(query),
        body: body.text,
      });
      send(res, result.status, JSON.stringify(result.value));
      return;
    }
    if (record === undefined) {
      send(res, 404, errorEnvelope(404, [`Not found: ${pathname}`]));
      return;
    }
    const fault = this.faults.take(method, subpathOf(pathname));
    if (fault?.delayMs !== undefined && fault.delayMs > 0) {
      await this.delays.sleep(fault.delayMs);
      if (this.isClosed()) return;
    }
    const result = this.answer(fault, {
      method,
      pathname,
      query,
      headers: req.headers,
      body: body.text,
    });
    if (result === "drop") {
      res.socket?.destroy();
      return;
    }
    if (fault?.answerDelayMs !== undefined && fault.answerDelayMs > 0) {
      // The request took effect (a command is already on its way to the device); only the
      // answer comes late, as from a slow gateway.
      await this.delays.sleep(fault.answerDelayMs);
      if (this.isClosed()) return;
    }
    record.status = result.status;
    send(res, result.status, result.json, result.headers, result.contentType);
  }

  /** The API's answer with the fault's effects; "drop" when the connection must just end. */
  private answer(
    fault: Fault | undefined,
    req: Parameters<Api["handle"]>[0],
  ): (ApiResponse & { contentType?: string }) | "drop" {
    if (fault === undefined) return this.api.handle(req);
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
    // Faults that stand for a failure in front of the service: the request is not processed.
    if (fault.drop === "before") return "drop";
    if (fault.body === "html") {
      return { status: fault.status ?? 502, json: HTML_BODY, headers, contentType: "text/html" };
    }
    if (fault.body === "ok-false") {
      const json = errorEnvelope(400, ["Injected: head.ok false"]);
      return { status: fault.status ?? 200, json, headers };
    }
    if (fault.body === "no-head")
      return { status: fault.status ?? 200, json: '{"body":{}}', headers };
    if (fault.status !== undefined && fault.body === undefined) {
      const json = errorEnvelope(fault.status, [`Injected fault ${fault.status}`]);
      return { status: fault.status, json, headers };
    }
    // Faults after the service did its work: the request is processed, the answer is lost.
    const real = this.api.handle(req);
    if (fault.drop === "after") return "drop";
    if (fault.body === "truncated") {
      const json = real.json.slice(0, Math.floor(real.json.length / 2));
      return { status: fault.status ?? 200, json, headers };
    }
    if (fault.body === "null-body") {
      return { status: fault.status ?? 200, json: envelope(200, "null"), headers };
    }
    return { ...real, headers: { ...real.headers, ...headers } };
  }

  private isClosed(): boolean {
    return this.closed;
  }

  private internalError(res: http.ServerResponse, err: unknown): void {
    this.warn(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    send(res, 500, errorEnvelope(500, ["Internal simulator error"]));
  }

  private warn(message: string): void {
    if (!this.quiet) process.stderr.write(`edgewire simulator: ${message}\n`);
  }
}

/** "/v5.0/<company>/event/s1" -> "/event/s1", the part fault paths are matched against. */
function subpathOf(pathname: string): string {
  const slash = pathname.indexOf("/", "/v5.0/".length);
  return slash < 0 ? "" : pathname.slice(slash);
}

/** The body as text; undefined when the client went away before sending all of it. */
function readBody(req: http.IncomingMessage): Promise<Body | undefined> {
  return new Promise((resolve) => {
    if (req.complete && req.readableEnded) {
      resolve({ text: "", tooLarge: false });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAIN_BYTES) {
        req.destroy();
        return;
      }
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => {
      resolve({ text: tooLarge ? "" : Buffer.concat(chunks).toString("utf8"), tooLarge });
    });
    req.on("error", () => {
      resolve(undefined);
    });
    req.on("close", () => {
      if (!req.complete) resolve(undefined);
    });
  });
}

function send(
  res: http.ServerResponse,
  status: number,
  text: string | Buffer,
  headers: Record<string, string> = {},
  contentType = "application/json; charset=utf-8",
): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    ...headers,
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
