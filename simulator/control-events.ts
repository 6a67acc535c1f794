// Events added through the control interface: one, a run of copies (`count`, numbered by `seq`)
// or a list, on a stream by id or path, optionally run as commands by the device.
import type { ControlHost, ControlResponse } from "./control-host";
import { ControlError, isObject } from "./control-request";
import type { JsonObject } from "./json";
import type { StoreStream } from "./store";
import { eventJson } from "./stream";

const MAX_BULK = 100000;

export function addEvents(host: ControlHost, body: Record<string, unknown>): ControlResponse {
  let stream: StoreStream | undefined;
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
export function addEventList(host: ControlHost, list: unknown): ControlResponse {
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
