// The devices of the control interface: a device as tests see it (with its streams, whether it is
// online and its pending commands), found by name in a company, and created from a request body.
import type { ControlHost } from "./control-host";
import { ControlError, isObject } from "./control-request";
import type { JsonObject, Scalar } from "./json";
import { deviceView, type Company, type Device } from "./store";
import { MAX_CAPACITY, streamView } from "./stream";

export function deviceInfo(
  host: ControlHost,
  device: Device,
): JsonObject & { streams: JsonObject } {
  return {
    device: deviceView(device),
    streams: {
      command: { ...streamView(device.commandStream) },
      inbox: { ...streamView(device.inboxStream) },
    },
    online: device.online,
    ...(device.fault === undefined ? {} : { fault: device.fault }),
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

export function findDevice(
  host: ControlHost,
  name: string | undefined,
  query: URLSearchParams,
): Device {
  const company = companyOf(host, query.get("company"));
  const device = host.store.findDevice(company, name ?? "");
  if (device === undefined) throw new ControlError(404, `Device not found: ${name ?? ""}`);
  return device;
}

export function createDevice(host: ControlHost, body: Record<string, unknown>): JsonObject {
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
