// The /v5.0/<company> routes: authentication, devices and events, answered in the service's
// envelope. Bodies are built as strings so that a page of cached event JSON is joined, not
// re-serialised.

import type { IncomingHttpHeaders } from "node:http";
import type { CommandProcessor } from "./commands";
import type { JsonObject, Scalar } from "./json";
import { deviceView, type Company, type Store, type StoreStream, type User } from "./store";
import { eventJson, joinEvents, streamView } from "./stream";
import { ListQueryError, listPage } from "./listing";

export interface ApiRequest {
  method: string;
  pathname: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ApiResponse {
  status: number;
  /** A Buffer for event pages, which are assembled from cached bytes. */
  json: string | Buffer;
  headers?: Record<string, string>;
}

export const CREATED_MESSAGE =
  "Your request has been processed successfully. A new resource has been created.";

/** A success envelope up to `"body":`, for bodies assembled separately. */
function envelopeOpening(status: number, messages: string[]): string {
  return (
    `{"head":{"status":${status},"ok":true,"messages":${JSON.stringify(messages)},` +
    `"errors":[],"references":{}},"body":`
  );
}

export function envelope(status: number, bodyJson: string, messages: string[] = []): string {
  return envelopeOpening(status, messages) + bodyJson + "}";
}

export function errorEnvelope(status: number, errors: string[], headStatus = status): string {
  return JSON.stringify({
    head: { status: headStatus, ok: false, messages: [], errors, references: {} },
    body: null,
  });
}

function fail(status: number, error: string, headers?: Record<string, string>): ApiResponse {
  const response: ApiResponse = { status, json: errorEnvelope(status, [error]) };
  if (headers !== undefined) response.headers = headers;
  return response;
}

function ok(status: number, bodyJson: string, messages?: string[]): ApiResponse {
  return { status, json: envelope(status, bodyJson, messages) };
}

class BadRequest extends Error {}

const DEFAULT_LIMIT = 20;

export class Api {
  constructor(
    private readonly store: Store,
    private readonly commands: CommandProcessor,
  ) {}

  handle(req: ApiRequest): ApiResponse {
    try {
      return this.route(req);
    } catch (err) {
      if (err instanceof BadRequest) return fail(400, err.message);
      throw err;
    }
  }

  private route(req: ApiRequest): ApiResponse {
    const parts = req.pathname.split("/");
    // ["", "v5.0", company, ...rest]; one trailing slash is forgiven.
    if (parts.length > 4 && parts[parts.length - 1] === "") parts.pop();
    const company = decode(parts[2] ?? "");
    if (company === "") return fail(404, `Not found: ${req.pathname}`);
    const auth = this.authenticate(company, req.headers);
    if (!("user" in auth)) return auth;
    const { user } = auth;
    const rest = parts.slice(3).map(decode);
    const resource = rest.at(0);
    const id = rest.at(1);
    const extra = rest.slice(2);
    if ((resource === "device" || resource === "stream") && (id === undefined || id === "")) {
      if (req.method !== "GET")
        return fail(405, `Method not allowed: ${req.method}`, { allow: "GET" });
      return this.list(user.company, resource, new URLSearchParams(req.query));
    }
    if (resource === "device" && id !== undefined && id !== "" && extra.length === 0) {
      if (req.method === "GET") return this.getDevice(user.company, id);
      if (req.method === "PUT") return this.putDevice(user.company, id, req.body);
      return fail(405, `Method not allowed: ${req.method}`, { allow: "GET, PUT" });
    }
    if (resource === "event" && extra.length === 0 && id !== "") {
      const query = new URLSearchParams(req.query);
      if (req.method === "POST") return this.postEvent(user, id, req.body);
      if (req.method === "GET") return this.listEvents(user.company, id, query);
      return fail(405, `Method not allowed: ${req.method}`, { allow: "GET, POST" });
    }
    return fail(404, `Not found: /${rest.join("/")}`);
  }

  private authenticate(
    companyName: string,
    headers: IncomingHttpHeaders,
  ): { user: User } | ApiResponse {
    const token = header(headers, "x-auth-token");
    if (token === undefined || token === "") return fail(401, "Missing X-Auth-Token header");
    const user = this.store.tokens.get(token);
    if (user === undefined) return fail(401, "Invalid X-Auth-Token");
    const userName = header(headers, "x-auth-user");
    if (userName !== undefined && userName !== user.name) {
      return fail(401, "X-Auth-User does not match the token");
    }
    if (user.company.name !== companyName) {
      return fail(403, `Access denied to company: ${companyName}`);
    }
    return { user };
  }

  /** `GET /device` and `GET /stream` of the hosted service (listing.ts), oldest first. */
  private list(
    company: Company,
    resource: "device" | "stream",
    query: URLSearchParams,
  ): ApiResponse {
    const items =
      resource === "device"
        ? this.store
            .devices()
            .filter((d) => d.company === company)
            .map(deviceView)
        : this.store.streams(company).map((s) => ({ ...streamView(s) }));
    try {
      return ok(200, JSON.stringify(listPage(items, query)));
    } catch (err) {
      if (err instanceof ListQueryError) throw new BadRequest(err.message);
      throw err;
    }
  }

  private getDevice(company: Company, id: string): ApiResponse {
    const device = this.store.findDevice(company, id);
    if (device === undefined) return fail(404, `Device not found: ${id}`);
    return ok(200, JSON.stringify(deviceView(device)));
  }

  private putDevice(company: Company, id: string, text: string): ApiResponse {
    const device = this.store.findDevice(company, id);
    if (device === undefined) return fail(404, `Device not found: ${id}`);
    const body = parseObject(text);
    const state = body.state;
    if (!isObject(state)) throw new BadRequest("state must be an object");
    for (const [key, value] of Object.entries(state)) {
      if (typeof value === "string" || typeof value === "boolean") continue;
      if (typeof value === "number" && Number.isFinite(value)) continue;
      throw new BadRequest(`state["${key}"] must be a string, a number or a boolean`);
    }
    // fromEntries defines own properties, so even a "__proto__" key is kept as a key.
    device.state = Object.fromEntries(Object.entries(state)) as Record<string, Scalar>;
    device.broadcastDate = Date.now();
    this.commands.enqueuePush(device);
    return ok(200, JSON.stringify(deviceView(device)));
  }

  private postEvent(user: User, streamId: string | undefined, text: string): ApiResponse {
    const body = parseObject(text);
    let stream: StoreStream | undefined;
    if (streamId === undefined) {
      const path = body.path;
      if (typeof path !== "string" || path === "") throw new BadRequest("path must be a string");
      stream = this.store.streamByPath(path);
      if (stream?.company !== user.company) return fail(404, `Stream not found: ${path}`);
    } else {
      stream = this.store.streamById(streamId);
      if (stream?.company !== user.company) return fail(404, `Stream not found: ${streamId}`);
    }
    const elems = validElems(body.elems);
    const metadata = validMetadata(body.metadata);
    const event = this.store.addEvent(stream, elems, metadata, user.id);
    if (stream.kind === "command" && stream.device !== undefined) {
      this.commands.enqueueCommand(stream.device, event);
    }
    return ok(201, eventJson(event), [CREATED_MESSAGE]);
  }

  private listEvents(
    company: Company,
    streamId: string | undefined,
    query: URLSearchParams,
  ): ApiResponse {
    let stream: StoreStream | undefined;
    if (streamId === undefined) {
      const path = query.get("path");
      if (path === null || path === "") throw new BadRequest("Missing query parameter: path");
      stream = this.store.streamByPath(path);
      if (stream?.company !== company) return fail(404, `Stream not found: ${path}`);
    } else {
      stream = this.store.streamById(streamId);
      if (stream?.company !== company) return fail(404, `Stream not found: ${streamId}`);
    }
    const limit = integerParam(query, "limit", DEFAULT_LIMIT);
    const start = integerParam(query, "start", 0);
    const order = query.get("order");
    if (order !== null && order !== "asc" && order !== "desc") {
      throw new BadRequest('order must be "asc" or "desc"');
    }
    const cap = this.commands.config.maxPageSize;
    const events = stream.page(start, cap > 0 ? Math.min(limit, cap) : limit, order === "asc");
    return { status: 200, json: joinEvents(envelopeOpening(200, []) + "[", events, "]}") };
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequest("Malformed JSON body");
  }
  if (!isObject(value)) throw new BadRequest("The body must be a JSON object");
  return value;
}

/** Flat scalars, or nested objects of them the way real clients address resources. */
function validElems(value: unknown): JsonObject {
  if (!isObject(value)) throw new BadRequest("elems must be an object");
  if (Object.keys(value).length === 0) throw new BadRequest("elems must not be empty");
  checkElems(value, "elems");
  return value as JsonObject;
}

function checkElems(value: Record<string, unknown>, where: string): void {
  for (const [key, inner] of Object.entries(value)) {
    const at = `${where}["${key}"]`;
    if (typeof inner === "string" || typeof inner === "boolean") continue;
    if (typeof inner === "number" && Number.isFinite(inner)) continue;
    if (isObject(inner)) {
      if (Object.keys(inner).length === 0) throw new BadRequest(`${at} must not be empty`);
      checkElems(inner, at);
      continue;
    }
    throw new BadRequest(`${at} must be a string, a number, a boolean or an object`);
  }
}

function validMetadata(value: unknown): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new BadRequest("metadata must be an object");
  for (const key of ["ttl", "timeout"]) {
    const v = value[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 0)) {
      throw new BadRequest(`metadata.${key} must be a non-negative integer (milliseconds)`);
    }
  }
  return value as JsonObject;
}

function integerParam(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw new BadRequest(`${name} must be a non-negative integer`);
  return Number(raw);
}
