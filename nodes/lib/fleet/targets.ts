// The devices of a fleet job: ids or names from the node's Devices (commas or new lines) or from
// msg.devices, and those a filter finds in the server's device list (`GET /device?filter=`, as the
// editor's pickers read it). Each becomes the name its stream paths need, ids through one GET
// each (lib/device/names.ts, cached per account), and a device given twice, or by its id and its
// name, is sent once.
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import { sleep } from "../api/signals";
import { typeName } from "../api/value-kind";
import { deviceNameOf } from "../commands/send";
import type { DeviceNames } from "../device/names";
import type { DeviceRecord } from "./job";
import { isQueueFull, pauseAfter } from "./send-room";

/** Devices in one job at most: every loop over them, and the job's record, stay bounded. */
export const MAX_DEVICES = 10_000;
/** Devices read per page of the device list. */
const PAGE = 100;
/** Ids turned into names at once, each one GET through the account's rate limiter. */
const LOOKUPS_AT_ONCE = 8;

/** The ids and names of the node's Devices, after mustache: separated by commas or new lines. */
export function parseDeviceText(text: string): string[] {
  return text
    .split(/[,\n\r]+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** What a wrong entry of msg.devices is, as the user gave it: NaN, null, empty, an object. */
function shown(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === "") return "empty";
  if (typeof v === "string" && v.trim() === "") return "blank";
  return typeName(v);
}

/** msg.devices: an array of ids or names (a number is an id written without quotes). */
export function checkDeviceList(value: unknown): string[] {
  if (!Array.isArray(value)) throw new EdgeError("bad-devices", { detail: shown(value) });
  const out: string[] = [];
  for (let i = 0; i < value.length && i <= MAX_DEVICES; i++) {
    const v: unknown = value[i];
    const text = typeof v === "number" && Number.isFinite(v) ? String(v) : v;
    if (typeof text !== "string" || text.trim() === "")
      throw new EdgeError("bad-devices", { detail: `[${i}] ${shown(v)}` });
    out.push(text.trim());
  }
  return out;
}

/** The names of the devices the filter matches, from the server's device list. */
async function listFiltered(
  client: EdgeClient,
  filter: string,
  call: CallOptions,
): Promise<string[]> {
  const names: string[] = [];
  for (let start = 0; start < MAX_DEVICES; start += PAGE) {
    let page: Record<string, unknown>[];
    try {
      page = await client.list("device", { limit: PAGE, start, only: "id,name", filter }, call);
    } catch (err) {
      if (err instanceof EdgeError && (err.status === 404 || err.status === 405))
        throw new EdgeError("no-device-list", { filter });
      throw err;
    }
    for (const d of page) {
      const name = typeof d.name === "string" && d.name ? d.name : d.id;
      if (typeof name === "string" && name) names.push(name);
    }
    if (page.length < PAGE) return names;
  }
  throw new EdgeError("too-many-devices", { max: MAX_DEVICES });
}

/** What each given device became: its name, or the error that stopped the look-up of its id. */
type Resolved = { given: string; name: string } | { given: string; error: EdgeError };

/**
 * The name of `device`. A look-up refused with queue-full (the account's queue is full: nothing
 * was sent) waits for room and is tried again, for at most one request budget.
 */
async function nameOf(
  client: EdgeClient,
  names: DeviceNames,
  device: string,
  call: CallOptions,
): Promise<string> {
  const until = Date.now() + client.budgetMs(call);
  const signal = call.signal ?? new AbortController().signal;
  // Bounded: each pass pauses at least FIRST_PAUSE_MS, and passes stop after the budget.
  for (let attempt = 0; ; attempt++) {
    try {
      return await deviceNameOf(names, device, call);
    } catch (err) {
      if (!isQueueFull(err) || Date.now() >= until) throw err;
    }
    await sleep(pauseAfter(attempt), signal);
  }
}

async function resolveAll(
  client: EdgeClient,
  names: DeviceNames,
  given: readonly string[],
  call: CallOptions,
): Promise<Resolved[]> {
  const out: Resolved[] = new Array<Resolved>(given.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < given.length; i = next++) {
      const g = given[i] as string;
      try {
        out[i] = { given: g, name: await nameOf(client, names, g, call) };
      } catch (err) {
        if (call.signal?.aborted) throw err;
        out[i] = {
          given: g,
          error:
            err instanceof EdgeError ? err : new EdgeError("internal", { detail: String(err) }),
        };
      }
    }
  };
  // No more at once than the account runs at once: the rest would only fill its queue.
  const width = Math.min(LOOKUPS_AT_ONCE, client.limiter.limits.concurrent, given.length);
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/**
 * The job's devices, in the order given, the filter's after them, each once. An id that cannot be
 * looked up is a device `failed` at once with that error; the others are unaffected. `describe`
 * makes an error's sentence.
 */
export async function resolveTargets(
  client: EdgeClient,
  names: DeviceNames,
  given: readonly string[],
  filter: string | undefined,
  call: CallOptions,
  describe: (err: EdgeError) => string,
): Promise<DeviceRecord[]> {
  const all = [...given];
  if (filter) all.push(...(await listFiltered(client, filter, call)));
  if (all.length > MAX_DEVICES) throw new EdgeError("too-many-devices", { max: MAX_DEVICES });
  const seen = new Set<string>();
  const out: DeviceRecord[] = [];
  for (const r of await resolveAll(client, names, [...new Set(all)], call)) {
    if ("error" in r) {
      if (seen.has(r.given)) continue;
      seen.add(r.given);
      out.push({
        device: r.given,
        state: "ended",
        outcome: "failed",
        error: r.error.code,
        message: describe(r.error),
      });
    } else if (!seen.has(r.name)) {
      seen.add(r.name);
      out.push({ device: r.name, state: "pending" });
    }
  }
  return out;
}
