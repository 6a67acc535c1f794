// The /_sim control interface: no authentication and plain JSON, for tests and benchmarks to set
// the scene (devices, streams, bulk events, faults, offline devices) and read what the client did.
// This file routes a request and holds the small routes; devices, events and the reading of a
// request have files of their own (control-devices.ts, control-events.ts, control-request.ts),
// and what every route acts on, the host, is control-host.ts.

import { ID_STYLES, MARKER_STYLES, type CommandConfig } from "./commands";
import { createDevice, deviceInfo, findDevice } from "./control-devices";
import { addEventList, addEvents } from "./control-events";
import type { ControlHost, ControlResponse } from "./control-host";
import { ControlError, decodeSegment, intQuery, parseBody, parseJson } from "./control-request";
import { FaultError } from "./faults";
import { StoreError } from "./store";
import { MAX_CAPACITY, streamView } from "./stream";
import { LOG_CAPACITY } from "./request-log";

export interface ControlRequest {
  method: string;
  pathname: string;
  query: URLSearchParams;
  body: string;
}

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
  const cap = body.maxPageSize;
  if (
    cap !== undefined &&
    (typeof cap !== "number" || !Number.isInteger(cap) || cap < 0 || cap > 100_000)
  ) {
    throw new ControlError(400, "maxPageSize must be an integer from 0 (no cap) to 100000");
  }
  if (delay !== undefined) config.commandDelayMs = delay;
  if (known !== undefined) config.markerStyle = known;
  if (idStyle !== undefined) config.idStyle = idStyle;
  if (typeof cap === "number") config.maxPageSize = cap;
}
