// The real system one schedule of the restart property acts on: an API server (the harness's,
// server.js, which executes commands and logs each with its markers), a collector of what the
// flow posts, and a
// real `node-red` process on a user directory with a `localfilesystem` store flushed every
// second, started again after each SIGINT and SIGKILL. It records what the test did and when
// (inputs, lives, kills) for the checks in restart-checks.js; everything it starts, close()
// stops, and the user directory is removed.
"use strict";
const fs = require("node:fs");
const { waitFor, sleep } = require("../support/simulator");
const { serve } = require("../support/http-server");
const { startNodeRed, makeUserDir, deployFlows } = require("../support/node-red-process");
const { restartFlow } = require("./restart-flow");
const { startFuzzServer } = require("./server");

/** The store's flushInterval, in seconds (Node-RED's default is 30). */
const FLUSH_S = 1;
/** How late an answer to a command comes when a step asks for one (the command runs at once). */
const SLOW_ANSWER_MS = 1000;
/** The server's devices (server.js names them dev0, dev1, ...). */
const DEVICES = ["dev0", "dev1", "dev2", "dev3"];
/** How often the test adds an event to the watched stream. */
const EVENT_EVERY_MS = 150;
const START_TIMEOUT_MS = 30000;

const settingsFor = (life) => ({
  contextStorage: {
    default: { module: "memory" },
    file: { module: "localfilesystem", config: { flushInterval: FLUSH_S } },
  },
  functionGlobalContext: { life },
});

/** A collector that keeps each post's body with the time it came, by path. */
async function recorder() {
  const got = { "/out": [], "/error": [], "/report": [], "/device": [], "/event": [] };
  const server = await serve((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      let value;
      try {
        value = JSON.parse(body);
      } catch {
        value = { unparsed: body };
      }
      (got[req.url] ??= []).push({ ...value, at: Date.now() });
      res.end("ok");
    });
  });
  return { ...server, got };
}

class RestartWorld {
  constructor() {
    this.inputs = [];
    /** One per Node-RED process: {life, startedAt, endedAt?, how?: "SIGINT" | "SIGKILL"}. */
    this.lives = [];
    this.answerFaults = 0;
    this.events = [];
    this.nextTag = 1;
    this.feeding = undefined;
    this.firstEventAt = undefined;
    /** The output of each Node-RED life that ended. */
    this.logs = [];
  }

  /**
   * Starts it all; a device answers each command (its COMPLETE marker) `answerMs` after it: long
   * enough, and most waits and rollouts are still pending when a stop comes.
   */
  async open(answerMs) {
    this.server = await startFuzzServer();
    this.server.reset({ answerMs }, { deviceCount: DEVICES.length });
    this.sink = await recorder();
    this.userDir = makeUserDir();
    await this.startRed();
    await deployFlows(this.red.url, restartFlow(this.server, this.sink));
    await this.startWatchFeed();
  }

  get life() {
    return this.lives.length;
  }

  async startRed() {
    const life = this.lives.length + 1;
    this.red = await startNodeRed({
      userDir: this.userDir,
      settings: settingsFor(life),
      timeoutMs: START_TIMEOUT_MS,
    });
    this.lives.push({ life, startedAt: Date.now() });
  }

  /**
   * Once the watch has read the stream (the start of "resume" without a saved position is "new"),
   * events are added to it every EVENT_EVERY_MS until finish(); the first one is waited for and
   * kept through a flush, so that a crash never finds the watch without a saved position.
   */
  async startWatchFeed() {
    const { server } = this;
    const watched = server.telemetryPath;
    await waitFor(
      () =>
        server.log.requests.some(
          (r) => r.method === "GET" && decodeURIComponent(r.query).includes(watched) && r.status,
        ),
      { timeoutMs: START_TIMEOUT_MS, intervalMs: 50, what: "the watch's first read" },
    );
    this.addEvent();
    await waitFor(() => this.sink.got["/event"].length > 0, {
      timeoutMs: START_TIMEOUT_MS,
      intervalMs: 50,
      what: "the first watched event",
    });
    this.firstEventAt = Date.now();
    this.feeding = setInterval(() => {
      this.addEvent();
    }, EVENT_EVERY_MS);
  }

  addEvent() {
    const event = this.server.telemetry();
    this.events.push({ id: String(event.id), at: Date.now() });
  }

  /** Presses an inject node with these msg properties; a start answers 404 until flows run. */
  async inject(id, props) {
    const body = {
      __user_inject_props__: Object.entries(props).map(([p, v]) =>
        typeof v === "string" ? { p, v, vt: "str" } : { p, v: JSON.stringify(v), vt: "json" },
      ),
    };
    await waitFor(
      async () => {
        const res = await fetch(`${this.red.url}/inject/${id}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return res.status === 200;
      },
      { timeoutMs: START_TIMEOUT_MS, intervalMs: 100, what: `inject ${id}` },
    );
  }

  newTag(kind) {
    return `${kind}-${this.nextTag++}`;
  }

  /** A command through send -> await (kind "cmd") or a hand-built reference (kind "ref"). */
  async command(kind, device, refShape) {
    const tag = this.newTag(kind);
    const input = { tag, kind, devices: [device], life: this.life, at: Date.now() };
    this.inputs.push(input);
    const props = { payload: { "/lcd/txt1": tag }, deviceId: device, tag };
    if (kind === "ref") props.refShape = refShape;
    await this.inject(kind === "ref" ? "i-ref" : "i-cmd", props);
  }

  async fleet(devices) {
    const tag = this.newTag("job");
    this.inputs.push({ tag, kind: "fleet", devices, life: this.life, at: Date.now() });
    await this.inject("i-fleet", { payload: { "/lcd/txt1": tag }, devices, job: tag, tag });
  }

  /**
   * The next command is executed at once and its answer comes SLOW_ANSWER_MS late ("late"), or
   * never: the connection is reset after the server acted ("lost").
   */
  answerFault(kind) {
    this.answerFaults++;
    this.server.fault({ match: "POST", kind, delayMs: SLOW_ANSWER_MS });
  }

  /**
   * Stops Node-RED as a user does (SIGINT: flows close, the store flushes) or kills it (SIGKILL),
   * and starts it again on the same user directory after `downMs`.
   */
  async restart(how, downMs) {
    const current = this.lives[this.lives.length - 1];
    const { child } = this.red;
    const exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", resolve);
    });
    current.how = how;
    if (how === "SIGKILL") {
      // The watch's first position on disk: without it a "resume" restarts as "new" and skips,
      // as documented, what came while Node-RED was down.
      await sleep(this.firstEventAt + FLUSH_S * 1000 + 500 - Date.now());
      current.endedAt = Date.now();
      child.kill("SIGKILL");
      await exited;
    } else {
      // A SIGINT stop takes as long as the flows take to close: the life ends when it exits.
      await this.red.stop();
      current.endedAt = Date.now();
    }
    this.logs.push(this.red.output());
    this.red = undefined;
    await sleep(downMs);
    await this.startRed();
  }

  /** The server's own log: what each device executed and every marker it wrote. */
  serverRecord() {
    const { executed, markers } = this.server.log;
    return { executed, markers };
  }

  /** The schedule is over: no faults left, no more events. */
  settle() {
    clearInterval(this.feeding);
    this.feeding = undefined;
    this.server.clearFaults();
  }

  /** What every life of Node-RED printed, the running one's so far included. */
  allOutput() {
    return [...this.logs, this.red?.output() ?? ""].join("\n");
  }

  async close() {
    clearInterval(this.feeding);
    const child = this.red?.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    await this.server?.close();
    await this.sink?.close();
    if (this.userDir) fs.rmSync(this.userDir, { recursive: true, force: true });
  }
}

module.exports = { RestartWorld, DEVICES, FLUSH_S, SLOW_ANSWER_MS };
