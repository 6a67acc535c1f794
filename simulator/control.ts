// The /_sim control interface: no authentication and plain JSON, for tests and benchmarks to set
// the scene (devices, streams, bulk events, faults, offline devices) and read what the client did.

import { ID_STYLES, MARKER_STYLES, type CommandConfig, type CommandProcessor } from "./commands";
import { FaultError, type Faults } from "./faults";
import type { JsonObject, Scalar } from "./json";
import { StoreError, deviceView, type Company, type Device, type Store } from "./store";
import { MAX_CAPACITY, eventJson, streamView, type Stream } from "./stream";
import { LOG_CAPACITY, type RequestLog, type StatsCounter } from "./request-log";

export interface ControlRequest {
  method: string;
  pathname: string;
  query: URLSearchParams;
  body: string;
}

export interface ControlResponse {
  status: number;
  value: unknown;
}

/** What the control interface needs from the simulator that owns it. */
export interface ControlHost {
  readonly store: Store;
  readonly commands: CommandProcessor;
  readonly faults: Faults;
  readonly stats: StatsCounter;
  readonly log: RequestLog;
  readonly config: CommandConfig;
  reset(): void;
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BULK = 100000;

export function handleControl(host: ControlHost, req: ControlRequest): ControlResponse {
  try {
    return route(host, req);
  } catch (err) {
    if (err instanceof ControlError || err instanceof StoreError) {
      return { status: err.status, value: { error: err.message } };
    }
    if (err instanceof FaultError) return { status: 400, value: { error: err.message } };
    throw err;
  }
}

function route(host: ControlHost, req: ControlRequest): ControlResponse {
  const parts = req.pathname
    .slice("/_sim".length)
    .split("/")
    .filter((p) => p !== "")
    .map(decodeSegment);
  const key = `${req.method} /${parts.map((p, i) => (i === 1 && parts[0] === "devices" ? "*" : p)).join("/")}`;
  switch (key) {
    case "GET /stats":
      return { status: 200, value: host.stats.snapshot() };
    case "POST /stats/reset":
      host.stats.reset();
      return { status: 200, value: host.stats.snapshot() };
    case "GET /requests": {
      const limit = intQuery(req.query, "limit", 100);
      return { status: 200, value: host.log.last(Math.min(limit, LOG_CAPACITY)) };
    }
    case "DELETE /requests":
      host.log.clear();
      return { status: 200, value: { cleared: true } };
    case "GET /devices":
      return { status: 200, value: host.store.devices().map((d) => deviceInfo(host, d)) };
    case "POST /devices":
      return { status: 201, value: createDevice(host, parseBody(req.body)) };
    case "GET /devices/*":
      return { status: 200, value: deviceInfo(host, findDevice(host, parts[1], req.query)) };
    case "PUT /devices/*/online": {
      const device = findDevice(host, parts[1], req.query);
      const online = parseBody(req.body).online;
      if (typeof online !== "boolean") throw new ControlError(400, "online must be a boolean");
      host.commands.setOnline(device, online);
      return { status: 200, value: { name: device.name, online: device.online } };
    }
    case "POST /streams": {
      const body = parseBody(req.body);
      if (typeof body.path !== "string") throw new ControlError(400, "path must be a string");
      const capacity = body.capacity;
      if (capacity !== undefined && typeof capacity !== "number") {
        throw new ControlError(400, `capacity must be an integer from 1 to ${MAX_CAPACITY}`);
      }
      const stream = host.store.createStream(body.path, capacity);
      return { status: 201, value: streamView(stream) };
    }
    case "GET /streams": {
      const path = req.query.get("path");
      const stream = path === null ? undefined : host.store.streamByPath(path);
      if (stream === undefined) throw new ControlError(404, `Stream not found: ${path ?? ""}`);
      return { status: 200, value: streamView(stream) };
    }
    case "POST /events": {
      const body = parseBody(req.body);
      return body.events === undefined ? addEvents(host, body) : addEventList(host, body.events);
    }
    case "GET /faults":
      return { status: 200, value: host.faults.view() };
    case "POST /faults":
      return { status: 201, value: { id: host.faults.add(parseJson(req.body)).id } };
    case "DELETE /faults":
      host.faults.clear();
      return { status: 200, value: { cleared: true } };
    case "GET /config":
      return { status: 200, value: host.config };
    case "PUT /config":
      updateConfig(host.config, parseBody(req.body));
      return { status: 200, value: host.config };
    case "POST /reset":
      host.reset();
      return { status: 200, value: { reset: true } };
    default:
      throw new ControlError(404, `No control route: ${req.method} ${req.pathname}`);
  }
}

function deviceInfo(host: ControlHost, device: Device): JsonObject & { streams: JsonObject } {
  return {
    device: deviceView(device),
    streams: {
      command: { ...streamView(device.commandStream) },
      inbox: { ...streamView(device.inboxStream) },
    },
    online: device.online,
    resources: [...device.resources],
    pendingCommands: host.commands.pendingCount(device),
  };
}

function companyOf(host: ControlHost, name: unknown): Company {
  if (name === undefined || name === null) return host.store.defaultCompany;
  const company = typeof name === "string" ? host.store.companies.get(name) : undefined;
  if (company === undefined)
    throw new ControlError(400, `Unknown company: ${JSON.stringify(name)}`);
  return company;
}

function findDevice(host: ControlHost, name: string | undefined, query: URLSearchParams): Device {
  const company = companyOf(host, query.get("company"));
  const device = host.store.findDevice(company, name ?? "");
  if (device === undefined) throw new ControlError(404, `Device not found: ${name ?? ""}`);
  return device;
}

function createDevice(host: ControlHost, body: Record<string, unknown>): JsonObject {
  const name = body.name;
  if (typeof name !== "string" || name === "") throw new ControlError(400, "name must be a string");
  const resources = body.resources;
  if (
    resources !== undefined &&
    (!Array.isArray(resources) || !resources.every((r) => typeof r === "string"))
  ) {
    throw new ControlError(400, "resources must be an array of strings");
  }
  const state = body.state;
  const cleanState: Record<string, Scalar> = {};
  if (state !== undefined) {
    if (!isObject(state)) throw new ControlError(400, "state must be an object");
    for (const [k, v] of Object.entries(state)) {
      if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
        throw new ControlError(400, `state["${k}"] must be a string, a number or a boolean`);
      }
      cleanState[k] = v;
    }
  }
  const online = body.online;
  if (online !== undefined && typeof online !== "boolean") {
    throw new ControlError(400, "online must be a boolean");
  }
  const capacity = body.inboxCapacity;
  if (capacity !== undefined && typeof capacity !== "number") {
    throw new ControlError(400, `inboxCapacity must be an integer from 1 to ${MAX_CAPACITY}`);
  }
  const device = host.store.createDevice({
    name,
    company: companyOf(host, body.company),
    resources: resources ?? [],
    state: cleanState,
    online: online ?? true,
    ...(capacity !== undefined ? { inboxCapacity: capacity } : {}),
  });
  // The device itself, as the API shows it, plus what tests need to drive it.
  const info = deviceInfo(host, device);
  return { ...deviceView(device), streams: info.streams, online: device.online };
}

function addEvents(host: ControlHost, body: Record<string, unknown>): ControlResponse {
  let stream: Stream | undefined;
  if (typeof body.streamId === "string") stream = host.store.streamById(body.streamId);
  else if (typeof body.path === "string") stream = host.store.streamByPath(body.path);
  else throw new ControlError(400, "streamId or path is required");
  if (stream === undefined) throw new ControlError(404, "Stream not found");
  const elems = body.elems;
  if (!isObject(elems)) throw new ControlError(400, "elems must be an object");
  const date = body.creationDate;
  if (date !== undefined && (typeof date !== "number" || !Number.isInteger(date) || date < 0)) {
    throw new ControlError(400, "creationDate must be an integer (ms)");
  }
  const metadata = body.metadata;
  if (metadata !== undefined && !isObject(metadata)) {
    throw new ControlError(400, "metadata must be an object");
  }
  const asCommand = body.asCommand === true && stream.kind === "command";
  const creator = stream.company.users.at(0)?.id ?? stream.company.id;
  const count = body.count;
  if (count === undefined) {
    const event = host.store.addEvent(
      stream,
      elems as JsonObject,
      metadata as JsonObject | undefined,
      creator,
      date,
    );
    if (asCommand && stream.device !== undefined) {
      host.commands.enqueueCommand(stream.device, event);
    }
    return { status: 201, value: JSON.parse(eventJson(event)) as unknown };
  }
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > MAX_BULK) {
    throw new ControlError(400, `count must be an integer from 1 to ${MAX_BULK}`);
  }
  for (let seq = 0; seq < count; seq += 1) {
    const event = host.store.addEvent(
      stream,
      { ...(elems as JsonObject), seq },
      metadata as JsonObject | undefined,
      creator,
      date,
    );
    if (asCommand && stream.device !== undefined) {
      host.commands.enqueueCommand(stream.device, event);
    }
  }
  return { status: 201, value: { added: count, streamId: stream.id } };
}

/**
 * Many single events in one request, each `{streamId or path, elems, ...}` as above, in order: the
 * benchmark adds thousands of distinct markers a second without a request for each. The list is
 * checked whole first, so a bad entry adds nothing.
 */
function addEventList(host: ControlHost, list: unknown): ControlResponse {
  if (!Array.isArray(list) || list.length > MAX_BULK || !list.every(isObject)) {
    throw new ControlError(400, `events must be an array of at most ${MAX_BULK} objects`);
  }
  for (const entry of list) {
    const stream =
      typeof entry.streamId === "string"
        ? host.store.streamById(entry.streamId)
        : typeof entry.path === "string"
          ? host.store.streamByPath(entry.path)
          : undefined;
    if (stream === undefined || !isObject(entry.elems) || entry.count !== undefined) {
      throw new ControlError(400, "each event needs a known streamId or path, elems and no count");
    }
  }
  for (const entry of list) addEvents(host, entry);
  return { status: 201, value: { added: list.length } };
}

function updateConfig(config: CommandConfig, body: Record<string, unknown>): void {
  const delay = body.commandDelayMs;
  const style = body.markerStyle;
  if (delay !== undefined && (typeof delay !== "number" || !(delay >= 0) || delay > 600000)) {
    throw new ControlError(400, "commandDelayMs must be a number from 0 to 600000");
  }
  const known = MARKER_STYLES.find((s) => s === style);
  if (style !== undefined && known === undefined) {
    throw new ControlError(400, `markerStyle must be one of ${MARKER_STYLES.join(", ")}`);
  }
  const idStyle = ID_STYLES.find((s) => s === body.idStyle);
  if (body.idStyle !== undefined && idStyle === undefined) {
    throw new ControlError(400, `idStyle must be one of ${ID_STYLES.join(", ")}`);
  }
  if (delay !== undefined) config.commandDelayMs = delay;
  if (known !== undefined) config.markerStyle = known;
  if (idStyle !== undefined) config.idStyle = idStyle;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ControlError(400, `Malformed URL segment: ${segment}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ControlError(400, "Malformed JSON body");
  }
}

function parseBody(text: string): Record<string, unknown> {
  const value = parseJson(text);
  if (!isObject(value)) throw new ControlError(400, "The body must be a JSON object");
  return value;
}

function intQuery(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,15}$/.test(raw))
    throw new ControlError(400, `${name} must be a non-negative integer`);
  return Number(raw);
}
