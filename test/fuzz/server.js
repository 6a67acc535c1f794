// The fault harness's API server (issue 28): the v5.0 API of docs/api-notes.md on 127.0.0.1, with
// a behaviour drawn per run (id shape, device answer time, marker shape, foreign markers, a skewed
// clock, a server that ignores `start`, markers too deep to copy, markers dated before their command
// or by a device's clock, a clock step, ids given twice) and faults queued for the next
// requests (late, lost after acting, reset, 429/503 with any Retry-After, and a gateway's 503 or
// 429 after the API acted, without its envelope). It keeps its own log of
// every request, every command it executed and every marker it wrote, which the invariants read:
// never the nodes' own words. Usable on its own (a real node-red process can point at it).
"use strict";
const http = require("node:http");
const { randomBytes } = require("node:crypto");

const COMPANY = "fuzz";
/**
 * Faults of the transport itself, before the server sees the request: a refused connection, a
 * name that does not resolve, a connection reset before the request was written. The simulated
 * network plays them (test/sim/network.js); the real server below has no way to.
 */
const TRANSPORT_KINDS = new Set([
  "refused",
  "dns",
  "early",
  // Of a proxy between the nodes and the API (an account with a Proxy): its port refused, its
  // 407, its 502 when it cannot reach the API, its 504 after forwarding a request the API ran,
  // a CONNECT it answers 403.
  "proxy-refused",
  "proxy-407",
  "proxy-502",
  "proxy-504",
  "tunnel-403",
]);
const TOKEN = "fuzz-token-0123456789abcdef";
const DEEP_LEVELS = 1200;

/** What a run's server does when nothing else is said: the simulator's habits, no faults. */
const PLAIN = {
  idShape: "hex", // "hex" (e + 24 hex), "short" ("7"), "number" (7 as a JSON number)
  answerMs: 20, // from a command to its COMPLETE/FAULT marker
  marker: { nest: "cmd", refKey: "ref", ref: "string" }, // ref: "string" | "number" | "absent"
  foreign: false, // a marker naming another command before each real one
  ignoresStart: false,
  skewMs: 0, // added to every creationDate the server writes
  deepMarkers: [], // device names whose markers are nested DEEP_LEVELS deep
  slowMs: 0, // dev1 answers this much later than the others
  serial: false, // a device runs its commands one after another: a burst is answered at growing delays
  // The watched stream (issue 35): its events stamped by a device clock of this resolution (1000:
  // a whole second shares one creationDate), written this many at once, listed at most this many
  // a page (0: as asked).
  stampMs: 1,
  burst: 1,
  pageCap: 0,
  // Events of the device's own (no marker) landing on an inbox as a read pages through it: this
  // many before each page after the first, 20 in all per inbox (issue 35, item 9).
  inboxBurst: 0,
  // Stamps (issue 35, item 3); off here, so the runs drawn before them are unchanged:
  markerEarlyMs: 0, // a command's answer is dated this much before the command's creationDate
  deviceClockMs: 0, // markers are stamped by the device's clock, this much off the server's
  clockStepMs: 0, // the server's clock steps by this much once its first command is made
  // Every second POST of the flow to a device's :command stream makes a command with the id of
  // the one before it, each answered with its own marker naming that id (issue 35, item 6).
  reuseIds: false,
  // The watched stream keeps at most this many events and drops the oldest beyond (0: no limit),
  // as a stream with a capacity does (issue 35, section 1): a watch that is behind finds its
  // position gone. Each dropped event's log.telemetry entry gets `droppedAt`.
  capacity: 0,
  // Every this many events written on the watched stream, the third newest is re-dated to the
  // present (its creationDate, lastEditDate and version, as an edit would), and so moves to the top
  // of the listing, whether a watch delivered it already or not (issue 35, section 1). 0: never.
  redateEvery: 0,
};

/** An id as the service makes them: a letter, the second it was made, 16 random hex digits. */
function hexIdOf(letter, random) {
  const seconds = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, "0");
  return letter + seconds + random(8).toString("hex");
}

/** A marker's elems: the name as a value, with or without the command's id, in the run's shape. */
function markerElems(shape, name, ref, deep) {
  const refs = ref === undefined ? {} : { [shape.refKey]: ref };
  let elems;
  if (shape.nest === "top") elems = { status: name, ...refs };
  else if (shape.nest === "key") elems = { [name]: ref === undefined ? true : refs };
  else elems = { cmd: { status: name, ...refs } };
  if (!deep) return elems;
  // The marker where a reader finds it, beside a detail too deep for Node-RED to copy.
  let detail = { end: true };
  for (let i = 0; i < DEEP_LEVELS; i++) detail = { a: detail };
  return { ...elems, detail };
}

/**
 * The fuzz server's API with no transport (issue 36): `respond(request)` takes a request as it
 * arrived ({method, url, headers, text}) and says what the server does, as a plan: answer it
 * ({kind: "answer", status, headers, body, delayMs}, delayMs > 0 for a late answer), or drop the
 * connection before acting ("reset") or after ("lost"). The real HTTP server below and the
 * simulated network (test/sim/network.js) carry out the same plans, so both play one server.
 * `random(n)` gives n random bytes (the simulation passes a seeded source); `url` is what the
 * flows are told to call.
 *
 * `reset(behaviour)` starts a run: it forgets every device, event and log entry
 * (event ids go on counting) and takes the run's behaviour (merged over PLAIN). Devices
 * `dev0..dev<n-1>` exist, each with `:command` and `:inbox` streams; `/<company>/telemetry` is the
 * watched stream.
 */
function createFuzzApi({ url, random = randomBytes, resetIds = false, tokenPerRun = false }) {
  const hexId = (letter) => hexIdOf(letter, random);
  // With `tokenPerRun` each run's flows get a token of their own (TOKEN-run<k>): a request of an
  // earlier run's flow that still reaches this one server is told apart (logged `stale`, answered
  // 401, never executed) instead of passing for this run's (issue 36: every run's probe sends the
  // same fleet command g0@dev0, so a leftover of run k-1 read as run k's command executed twice).
  let token = TOKEN;
  let run = 0;
  let b;
  // Not reset between runs: a real server never gives an id twice, and the nodes' process, which
  // outlives a run, remembers the ids of the commands it sent (lib/commands/sent-commands.ts). A
  // command id of an earlier run made again passed for another job's command: a resumed fleet
  // device did not adopt its own command and sent it again (seed -1501787157, path 47).
  let seq = 0;
  let devices;
  let streams; // id → {id, path, events (oldest first), device?, kind}
  let byPath;
  let faults;
  let timers;
  let log;

  /** A new event id, in the run's shape; `foreignOf` gives an id no command will ever have. */
  function newId() {
    if (b.idShape === "hex") return hexId("e");
    // Short ids never start with 9: "9" + an id is a foreign id holding that id (97 holds 7).
    do seq++;
    while (String(seq).startsWith("9"));
    return String(seq);
  }
  const foreignOf = (id) => (b.idShape === "hex" ? hexId("e") : `9${id}`);
  /** The id as the answers carry it. */
  const wireId = (id) => (b.idShape === "number" ? Number(id) : id);
  const refOf = (id) =>
    b.marker.ref === "absent"
      ? undefined
      : b.marker.ref === "number" && /^\d+$/.test(id)
        ? Number(id)
        : id;

  function addStream(path, kind, device) {
    const s = { id: hexId("s"), path, kind, device, events: [] };
    streams.set(s.id, s);
    byPath.set(path, s);
    return s;
  }

  function reset(behaviour = {}, { deviceCount = 4 } = {}) {
    for (const t of timers ?? []) clearTimeout(t);
    // The simulation gives every run a fresh runtime's memory of ids (test/sim/world.js), as a
    // replay in a new process has: ids count from 1 again there, as in that replay.
    if (resetIds) seq = 0;
    if (tokenPerRun) token = `${TOKEN}-run${++run}`;
    b = { ...PLAIN, ...behaviour, marker: { ...PLAIN.marker, ...behaviour.marker } };
    devices = new Map();
    streams = new Map();
    byPath = new Map();
    faults = [];
    timers = new Set();
    log = {
      requests: [],
      executed: [],
      markers: [],
      telemetry: [],
      // Requests a transport fault stopped before the server saw them (simulation only).
      transport: [],
      startedAt: Date.now(),
    };
    addStream(`/${COMPANY}/telemetry`, "telemetry");
    for (let i = 0; i < deviceCount; i++) addDevice(`dev${i}`);
  }

  function addDevice(name) {
    const d = {
      id: hexId("d"),
      name,
      path: `/${COMPANY}/devices/${name}`,
      state: { "/lcd/txt1": "", "/fuzz/n": 0 },
    };
    d.command = addStream(`${d.path}/:command`, "command", name);
    d.inbox = addStream(`${d.path}/:inbox`, "inbox", name);
    devices.set(name, d);
    return d;
  }

  function later(ms, fn) {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  }

  /**
   * A new event, dated `date` (the server's clock by default). A listing is newest first by date, as
   * the service lists: an event dated before others goes below them (after those of its own date).
   */
  function append(stream, elems, metadata, id = newId(), date = Date.now() + b.skewMs) {
    const now = date;
    const event = {
      id,
      streamId: stream.id,
      path: stream.path,
      creationDate: now,
      generatedDate: now,
      lastEditDate: now,
      version: 0,
      elems,
      ...(metadata ? { metadata } : {}),
    };
    let i = stream.events.length;
    while (i > 0 && stream.events[i - 1].creationDate > now) i--;
    stream.events.splice(i, 0, event);
    if (b.capacity > 0 && stream.kind === "telemetry")
      while (stream.events.length > b.capacity) {
        const gone = stream.events.shift();
        const entry = log.telemetry.find((e) => e.id === gone.id);
        if (entry) entry.droppedAt = Date.now();
      }
    return event;
  }

  /** The third newest event of `stream` re-dated to the present, at the top of its listing. */
  function redate(stream) {
    const i = stream.events.length - 3;
    if (i < 0) return;
    const [event] = stream.events.splice(i, 1);
    // By the clock that dates the stream's new events (stampMs): a date past theirs would be a
    // clock ahead, which no position by date can follow.
    const now = Math.floor((Date.now() + b.skewMs) / b.stampMs) * b.stampMs;
    Object.assign(event, { creationDate: now, lastEditDate: now, version: event.version + 1 });
    let j = stream.events.length;
    while (j > 0 && stream.events[j - 1].creationDate > now) j--;
    stream.events.splice(j, 0, event);
    const entry = log.telemetry.find((e) => e.id === event.id);
    if (entry) (entry.redatedAt ??= []).push(Date.now());
  }

  /** A marker's date: `early` ms before its command's (markerEarlyMs), or the device's clock. */
  function markerDate(commandDate, early) {
    if (early && b.markerEarlyMs > 0) return commandDate - b.markerEarlyMs;
    return Date.now() + b.skewMs + b.deviceClockMs;
  }

  function writeMarker(
    device,
    name,
    commandId,
    { foreign = false, commandDate, early, exec } = {},
  ) {
    const deep = b.deepMarkers.includes(device.name);
    const named = foreign ? foreignOf(commandId) : commandId;
    const elems = markerElems(b.marker, name, refOf(named), deep);
    const date = markerDate(commandDate, early);
    const event = append(device.inbox, elems, undefined, undefined, date);
    log.markers.push({
      t: Date.now(),
      device: device.name,
      eventId: event.id,
      commandId: named,
      forCommand: commandId,
      name,
      foreign,
      ref: b.marker.ref !== "absent",
      deep,
      creationDate: event.creationDate,
      // The execution it answers: two of one id (reuseIds) are told apart only here.
      exec,
    });
  }

  /** A command the device runs: logged as executed now, its markers written as it answers. */
  function execute(stream, elems, metadata, other) {
    const device = devices.get(stream.device);
    let id;
    if (b.reuseIds && !other) {
      if (device.reuseNext && device.lastId !== undefined) {
        id = device.lastId;
        device.reuseNext = false;
      } else device.reuseNext = true;
    }
    const event = append(stream, elems, metadata, id);
    if (!other) device.lastId = event.id;
    const exec = log.executed.length;
    log.executed.push({
      t: Date.now(),
      device: device.name,
      commandId: event.id,
      elems,
      other,
      creationDate: event.creationDate,
      exec,
    });
    if (b.clockStepMs !== 0 && !other) {
      // One step of the server's clock (NTP, a VM resumed): later events are dated by the new
      // time, so this command's answer may be dated before the command.
      b.skewMs += b.clockStepMs;
      b.clockStepMs = 0;
    }
    const fault = Object.prototype.hasOwnProperty.call(elems, "/fault");
    if (b.foreign)
      later(Math.floor(b.answerMs / 2), () =>
        writeMarker(device, fault ? "COMMAND_COMPLETE" : "COMMAND_FAULT", event.id, {
          foreign: true,
          exec,
        }),
      );
    let answerMs = b.answerMs + (device.name === "dev1" ? b.slowMs : 0);
    if (b.serial) {
      // This command starts when the device has answered the one before it.
      const now = Date.now();
      device.busyUntil = Math.max(now, device.busyUntil ?? 0) + answerMs;
      answerMs = device.busyUntil - now;
    }
    later(answerMs, () =>
      writeMarker(device, fault ? "COMMAND_FAULT" : "COMMAND_COMPLETE", event.id, {
        commandDate: event.creationDate,
        early: true,
        exec,
      }),
    );
    return event;
  }

  const wire = (event) => ({ ...event, id: wireId(event.id) });

  /** The plan of an answer in the API's envelope. */
  function envelope(status, body, headers = {}) {
    const ok = status >= 200 && status < 300;
    const text = JSON.stringify({
      head: {
        status,
        ok,
        messages: ok && status === 201 ? ["created"] : [],
        errors: ok ? [] : [`status ${status}`],
        references: {},
      },
      body,
    });
    return answer(status, { "content-type": "application/json", ...headers }, text);
  }

  function page(list, query) {
    let limit = Math.min(Math.max(Number(query.get("limit") ?? 20) || 20, 1), 10000);
    if (b.pageCap > 0) limit = Math.min(limit, b.pageCap);
    const start = b.ignoresStart ? 0 : Math.max(Number(query.get("start") ?? 0) || 0, 0);
    return list
      .slice()
      .reverse()
      .slice(start, start + limit)
      .map(wire);
  }

  function deviceOf(ref) {
    const d = devices.get(ref);
    if (d) return d;
    for (const x of devices.values()) if (x.id === ref) return x;
    return undefined;
  }
  const deviceBody = (d) => ({
    id: d.id,
    name: d.name,
    path: d.path,
    avSystemId: "av1",
    blueprintId: { id: "b1", version: 1 },
    broadcastDate: Date.now(),
    state: d.state,
  });

  /** Acts on an API request; returns [status, body] or null when nothing matched. */
  function act(method, parts, query, body, other) {
    const [resource, ref] = parts;
    if (resource === "device" && ref === undefined && method === "GET") {
      const m = /name=="([^"]*)"/.exec(query.get("filter") ?? "");
      const list = [...devices.values()].filter((d) => !m || d.name === m[1]);
      return [200, list.map(deviceBody)];
    }
    if (resource === "device") {
      const d = deviceOf(ref);
      if (!d) return [404, null];
      if (method === "GET") return [200, deviceBody(d)];
      if (method === "PUT") {
        if (!body || typeof body.state !== "object") return [400, null];
        d.state = body.state;
        return [200, deviceBody(d)];
      }
    }
    if (resource === "event" && method === "POST") {
      const stream = ref === undefined ? byPath.get(body?.path) : streams.get(ref);
      if (!stream) return [404, null];
      if (!body || typeof body.elems !== "object") return [400, null];
      const event =
        stream.kind === "command"
          ? execute(stream, body.elems, body.metadata, other)
          : append(stream, body.elems, body.metadata);
      return [201, wire(event)];
    }
    if (resource === "event" && method === "GET") {
      const stream = ref === undefined ? byPath.get(query.get("path")) : streams.get(ref);
      if (!stream) return [404, null];
      const start = Number(query.get("start") ?? 0) || 0;
      // Events landing as fast as the read pages (a page's worth before each later page push
      // what it read into the next), 20 per inbox and run: a device's burst is finite.
      if (stream.kind === "inbox" && start > 0)
        for (let i = 0; i < b.inboxBurst && (stream.noise ?? 0) < 20; i++) {
          stream.noise = (stream.noise ?? 0) + 1;
          append(stream, { "/noise": stream.noise });
        }
      return [200, page(stream.events, query)];
    }
    return null;
  }

  /** The queued fault this request takes: `match` is a method, "poll" (inbox reads) or "telemetry". */
  function takeFault(method, parts, query) {
    const stream =
      method === "GET" && parts[0] === "event"
        ? parts[1] === undefined
          ? byPath.get(query.get("path"))
          : streams.get(parts[1])
        : undefined;
    // Inbox reads are "poll"; the watched stream is faulted only when asked by name, so that a
    // watch's backoff (up to a minute, documented) does not stand in the way of its invariant.
    const kind =
      stream?.kind === "inbox" ? "poll" : stream?.kind === "telemetry" ? "telemetry" : method;
    const i = faults.findIndex(
      (f) =>
        !TRANSPORT_KINDS.has(f.kind) &&
        (f.match === kind || (f.match === "any" && kind !== "telemetry")),
    );
    return i < 0 ? undefined : faults.splice(i, 1)[0];
  }

  /**
   * The queued transport fault (refused, dns, early: before anything is written) a request to
   * `path` meets on its way; only the simulated network has these (test/sim/network.js). Matched
   * as takeFault matches: by method, "poll" for inbox reads, "any".
   */
  function takeTransportFault(method, path) {
    if (!faults.some((f) => TRANSPORT_KINDS.has(f.kind))) return undefined;
    const url = new URL(path, "http://127.0.0.1");
    const prefix = `/v5.0/${COMPANY}/`;
    const parts = url.pathname.slice(prefix.length).split("/").map(decodeURIComponent);
    const stream =
      method === "GET" && parts[0] === "event"
        ? parts[1] === undefined
          ? byPath.get(url.searchParams.get("path"))
          : streams.get(parts[1])
        : undefined;
    const kind =
      stream?.kind === "inbox" ? "poll" : stream?.kind === "telemetry" ? "telemetry" : method;
    const i = faults.findIndex(
      (f) =>
        TRANSPORT_KINDS.has(f.kind) &&
        (f.match === kind || (f.match === "any" && kind !== "telemetry")),
    );
    if (i < 0) return undefined;
    const fault = faults.splice(i, 1)[0];
    log.transport.push({ t: Date.now(), method, path: url.pathname, kind: fault.kind });
    return fault;
  }

  /**
   * What a gateway in front of the API answers after forwarding a request that the API then
   * executed: Envoy's 503 page after an upstream reset, or a 429 with Retry-After: 0 and no body
   * (issue 35, item 4). Neither carries the API's envelope, so neither proves nothing was done.
   */
  function gatewayAnswer(kind) {
    if (kind === "gateway503")
      return answer(
        503,
        { "content-type": "text/html" },
        "<html><body><h1>503 Service Unavailable</h1>upstream connect error or disconnect/reset before headers. reset reason: connection termination</body></html>",
      );
    return answer(429, { "retry-after": "0", "content-length": "0" }, "");
  }

  function retryAfter(kind) {
    if (kind === "zero") return "0";
    if (kind === "small") return "1";
    if (kind === "huge") return "100000000";
    if (kind === "date") return new Date(Date.now() + 1000).toUTCString();
    if (kind === "past") return new Date(Date.now() - 60000).toUTCString();
    return "soon-ish";
  }

  /** What the server does with a request: a plan (createFuzzApi), carried out by a transport. */
  function respond(req) {
    const text = req.text;
    const url = new URL(req.url, "http://127.0.0.1");
    const prefix = `/v5.0/${COMPANY}/`;
    const other = req.headers["x-fuzz-other"] === "1";
    const entry = { t: Date.now(), method: req.method, path: url.pathname, query: url.search };
    entry.other = other;
    log.requests.push(entry);
    const given = req.headers["x-auth-token"];
    if (given !== token) {
      if (typeof given === "string" && given.startsWith(`${TOKEN}-run`))
        entry.stale = given.slice(TOKEN.length + 1);
      return envelope((entry.status = 401), null);
    }
    if (!url.pathname.startsWith(prefix)) return envelope((entry.status = 404), null);
    const parts = url.pathname.slice(prefix.length).split("/").map(decodeURIComponent);
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return envelope((entry.status = 400), null);
    }
    // The stream a POST /event names in its body: what the invariants' evidence finds it by.
    if (typeof body?.path === "string") entry.stream = body.path;
    const fault = other ? undefined : takeFault(req.method, parts, url.searchParams);
    entry.fault = fault?.kind;
    if (fault?.kind === "reset") return { kind: "reset" };
    if (fault?.kind === "429" || fault?.kind === "503") {
      entry.status = Number(fault.kind);
      return envelope(entry.status, null, { "retry-after": retryAfter(fault.retryAfter) });
    }
    const result = act(req.method, parts, url.searchParams, body, other) ?? [404, null];
    entry.status = result[0];
    if (fault?.kind === "lost") return { kind: "lost" };
    if (fault?.kind === "gateway503" || fault?.kind === "gateway429") {
      // The API did its work (act above); the client sees only the gateway's answer.
      entry.status = fault.kind === "gateway503" ? 503 : 429;
      return gatewayAnswer(fault.kind);
    }
    if (fault?.kind === "late") return { ...envelope(...result), delayMs: fault.delayMs };
    // Acted, and then never answers (the client's timeout ends the wait), or answers half the
    // body and closes the connection.
    if (fault?.kind === "hang") return { kind: "hang" };
    if (fault?.kind === "cut") return { ...envelope(...result), kind: "cut" };
    return envelope(...result);
  }

  /** A request from outside the nodes ("other flows"), never faulted, logged as other. */
  function other(method, path, body) {
    const plan = respond({
      method,
      url: `/v5.0/${COMPANY}${path}`,
      headers: { "x-auth-token": token, "x-fuzz-other": "1", "content-type": "application/json" },
      text: body === undefined ? "" : JSON.stringify(body),
    });
    return JSON.parse(plan.body);
  }

  reset();
  return {
    respond,
    takeTransportFault,
    later,
    url,
    company: COMPANY,
    /** The token of this run's flows (the same for every run without `tokenPerRun`). */
    get token() {
      return token;
    },
    reset,
    get log() {
      return log;
    },
    get behaviour() {
      return b;
    },
    device: (name) => devices.get(name),
    telemetryPath: `/${COMPANY}/telemetry`,
    /** Queues a fault for the next API request that matches. */
    fault(spec) {
      faults.push({ match: "any", delayMs: 0, retryAfter: "zero", ...spec });
    },
    clearFaults() {
      faults.length = 0;
    },
    /** The same command a flow of another runtime sends to `device`. */
    otherCommand: (device, elems) =>
      other("POST", "/event", { path: `/${COMPANY}/devices/${device}/:command`, elems }),
    /**
     * New events on the watched stream (`burst` of them at once, in one millisecond), logged in
     * `log.telemetry`; each dated by the device's clock of `stampMs` resolution.
     */
    telemetry() {
      let event;
      for (let i = 0; i < b.burst; i++) {
        event = append(byPath.get(`/${COMPANY}/telemetry`), { "/n": log.telemetry.length });
        if (b.stampMs > 1) {
          const stamped = Math.floor(event.creationDate / b.stampMs) * b.stampMs;
          Object.assign(event, { creationDate: stamped, generatedDate: stamped });
        }
        const stream = byPath.get(`/${COMPANY}/telemetry`);
        // Dropped at once when the capacity is below the burst: never listed by anyone.
        const gone = !stream.events.includes(event);
        log.telemetry.push({
          t: Date.now(),
          id: event.id,
          ...(gone ? { droppedAt: Date.now() } : {}),
        });
        if (b.redateEvery > 0 && log.telemetry.length % b.redateEvery === 0) redate(stream);
      }
      return event;
    },
    /** Clears the answers still to come (the transport closes its own connections). */
    stop() {
      for (const t of timers) clearTimeout(t);
    },
  };
}

/** An answer's plan. */
const answer = (status, headers, body) => ({ kind: "answer", status, headers, body });

/**
 * Starts the server on 127.0.0.1 (a real node-red process can point at it): the API of
 * createFuzzApi over real HTTP (`options`: its tokenPerRun). A late answer is written when its delay has passed; "reset" and
 * "lost" destroy the socket, before and after the server acted.
 */
async function startFuzzServer(options = {}) {
  let api;
  const server = http.createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const plan = api.respond({ method: req.method, url: req.url, headers: req.headers, text });
      if (plan.kind === "hang") return undefined;
      if (plan.kind !== "answer" && plan.kind !== "cut") return req.socket.destroy();
      const write = () => {
        if (plan.kind === "cut") {
          // The whole length announced, half the body sent, then the connection closed.
          const bytes = Buffer.from(plan.body);
          res.writeHead(plan.status, { ...plan.headers, "content-length": bytes.length });
          res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
          return void setTimeout(() => req.socket.destroy(), 5);
        }
        res.writeHead(plan.status, plan.headers);
        res.end(plan.body);
      };
      if (plan.delayMs > 0) api.later(plan.delayMs, write);
      else write();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  api = createFuzzApi({ ...options, url: `http://127.0.0.1:${server.address().port}` });
  return Object.assign(api, {
    close() {
      api.stop();
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  });
}

module.exports = { startFuzzServer, createFuzzApi, PLAIN, COMPANY, TOKEN, DEEP_LEVELS };
