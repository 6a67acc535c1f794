// Sending one command to one device, as edge-send-command and edge-fleet-command both do: the
// device id or name turned into the name a stream path needs, one POST to its `:command` stream,
// the 404 of an unknown device reported as that device's error, and the CommandRef the waits read.
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import type { DeviceEvent, Elems, EventMetadata } from "../api/types";
import type { DeviceNames } from "../device/names";
import type { CommandRef } from "./command-ref";
import { sentCommands } from "./sent-commands";
import type { Sender } from "./sent-commands";

/** What a command's send gives: the created event (null when the server answered none) and its ref. */
export interface SentCommand {
  event: DeviceEvent | null;
  command: CommandRef;
}

/** Local clock at the send, and what the request itself knew of its target. */
export interface SendFacts {
  sentAt: number;
  ttl: number | undefined;
  device?: string;
  streamId?: string;
  path?: string;
}

function deviceOfPath(path: string | undefined): string | undefined {
  return path ? /\/devices\/([^/]+)\/:command$/.exec(path)?.[1] : undefined;
}

/** What the await node and the fleet's waits need of a created command. */
export function commandRefOf(event: DeviceEvent | null, facts: SendFacts): CommandRef {
  return {
    id: event?.id,
    streamId: event?.streamId ?? facts.streamId,
    path: event?.path ?? facts.path,
    creationDate: typeof event?.creationDate === "number" ? event.creationDate : facts.sentAt,
    device: facts.device ?? deviceOfPath(event?.path),
    ttl: facts.ttl,
    sentAt: facts.sentAt,
  };
}

export function metadataOf(ttl: number | undefined): EventMetadata | undefined {
  return ttl === undefined ? undefined : { ttl };
}

/**
 * The error of a command whose `:command` stream was not found. A server names the stream it did
 * not find ("Stream not found: /demo/devices/x/:command"), which reads as if the stream were the
 * mistake when it is nearly always the device name: then the device's own 404 is reported, as
 * `edge-device-state` reports it. Only on that 404 is the device read (one GET, nothing sent
 * again); when the device exists, or the read fails otherwise, the stream's error stands.
 */
async function unknownDevice(
  err: unknown,
  device: string,
  names: DeviceNames,
  client: EdgeClient,
  call: CallOptions,
): Promise<unknown> {
  if (!(err instanceof EdgeError && err.status === 404)) return err;
  try {
    await names.withDevice(device, call, (ref) => client.getDevice(ref, call));
  } catch (deviceErr) {
    if (deviceErr instanceof EdgeError && deviceErr.status === 404) return deviceErr;
    if (deviceErr instanceof EdgeError && deviceErr.code === "device-unknown") return deviceErr;
  }
  return err;
}

/** The name of `device` (an id or a name) as a stream path needs it; a request only for an id met first. */
export async function deviceNameOf(
  names: DeviceNames,
  device: string,
  call: CallOptions,
): Promise<string> {
  return names.knownName(device) ?? (await names.nameOf(device, call));
}

/** Who sends, for a fleet job: its name in sent-commands.ts, and what it does as the POST leaves. */
export interface SendOptions {
  sender?: Sender;
  /** Awaited once the POST has its rate-limit slot, before it leaves (each attempt). */
  beforeSend?: () => Promise<void> | void;
}

/**
 * Sends `elems` to the `:command` stream of `device` (an id or a name), one POST, remembered in
 * the runtime's registry of sent commands (sent-commands.ts) with its sender. Throws `id-reused`
 * when the server answers with the id of an earlier command of this runtime on that stream.
 */
export async function sendToDevice(
  client: EdgeClient,
  names: DeviceNames,
  device: string,
  elems: Elems,
  ttl: number | undefined,
  call: CallOptions,
  opts: SendOptions = {},
): Promise<SentCommand> {
  const name = await deviceNameOf(names, device, call);
  const path = client.streamPath(name, ":command");
  const sentAt = Date.now();
  let event: DeviceEvent | null;
  let ended: (() => void) | undefined;
  const post: CallOptions = {
    ...call,
    beforeSend: async () => {
      ended ??= sentCommands.leaving(path);
      await opts.beforeSend?.();
    },
  };
  try {
    event = await client.createEventByPath(path, elems, metadataOf(ttl), post);
  } catch (err) {
    throw await unknownDevice(err, name, names, client, call);
  } finally {
    ended?.();
  }
  if (event?.id !== undefined) {
    // An id the server gave an earlier command of ours on this stream: not this command's to await.
    const reused = sentCommands.claim(client.origin, path, event.id);
    if (reused) throw reused;
    sentCommands.remember(path, event.id, opts.sender ?? "", event.creationDate);
  }
  return { event, command: commandRefOf(event, { sentAt, ttl, device: name, path }) };
}
