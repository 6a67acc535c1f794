// Sending one command to one device, as edge-send-command and edge-fleet-command both do: the
// device id or name turned into the name a stream path needs, one POST to its `:command` stream,
// the 404 of an unknown device reported as that device's error, and the CommandRef the waits read.
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import type { DeviceEvent, Elems, EventMetadata } from "../api/types";
import type { DeviceNames } from "../device/names";
import { eventIdOf } from "../events/event-id";
import type { CommandRef } from "./command-ref";
import { idReused, sentCommands } from "./sent-commands";
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
  // Whether an earlier send here may have made a command whose id never came back: asked before
  // this one's answer, which could be that command's id again.
  const unknownBefore = sentCommands.unknownMade(client.origin, path);
  const mark = sentCommands.claimMark();
  try {
    event = await client.createEventByPath(path, elems, metadataOf(ttl), post);
    if (event?.id === undefined) madeUnknown(client, path, name, call, mark);
  } catch (err) {
    if (err instanceof EdgeError && err.mayHaveBeenSent)
      madeUnknown(client, path, name, call, mark);
    throw await unknownDevice(err, name, names, client, call);
  } finally {
    ended?.();
  }
  if (event?.id !== undefined) {
    // An id the server gave an earlier command of ours on this stream: not this command's to await.
    // Or before its answer came: a send there whose answer was lost while this one was on its way.
    const unknown = unknownBefore || sentCommands.unknownMade(client.origin, path);
    const reused =
      sentCommands.claim(client.origin, path, event.id) ??
      (unknown ? await onStreamTwice(client, path, event.id, name, call) : undefined);
    if (reused) throw reused;
    sentCommands.remember(path, event.id, opts.sender ?? "", event.creationDate, sentAt);
  }
  return { event, command: commandRefOf(event, { sentAt, ttl, device: name, path }) };
}

/** How many of a stream's newest events are read to find a command's id twice. */
const LOOK_BACK = 100;

/**
 * A send to `path` may have made a command whose id never came back. Later sends there look for
 * their id twice (unknownMade); the sends answered while this one was on the wire did not know
 * to, and the server may have given one of them that id (people seed 224, path 316: a connection
 * reset after the server acted, the next send answered first; seed 223, path 156: an answer
 * later than the Timeout). Their ids are looked for here, and a wait for one found twice ends
 * `id-reused` (`id-unchecked` when the stream cannot be read) instead of taking a marker that may
 * be the lost command's. Called before this request leaves the wire (leaving), and the stream
 * counts as busy until the look-up ends: a wait that got its marker meanwhile holds it till then
 * (command-wait.ts). This send's own error is not held for it.
 */
function madeUnknown(
  client: EdgeClient,
  path: string,
  device: string,
  call: CallOptions,
  mark: number,
): void {
  sentCommands.madeUnknown(client.origin, path);
  const ids = sentCommands.claimedSince(client.origin, path, mark);
  if (ids.length === 0) return;
  const done = sentCommands.leaving(path);
  void readCommands(client, path, call)
    .then((read) => {
      for (const id of ids) {
        if ("error" in read)
          sentCommands.spoil(client.origin, path, id, unchecked(id, device, path, read.error));
        else if (timesOn(read.events, id) >= 2)
          sentCommands.spoil(client.origin, path, id, () => idReused(id, device, path));
      }
    })
    // Nothing awaits this read: a throw in a wait it ends must not become an unhandled rejection,
    // which ends Node's process, Node-RED with it.
    .catch(() => undefined)
    .finally(done);
}

/** How many of `events` have the id `id`. */
function timesOn(events: DeviceEvent[], id: string): number {
  let seen = 0;
  for (const e of events) if (eventIdOf(e.id) === id) seen++;
  return seen;
}

/** The error of a command whose stream could not be read to look for its id twice. */
function unchecked(id: string, device: string, path: string, err: unknown): () => EdgeError {
  const detail = err instanceof Error ? err.message : String(err);
  return () =>
    new EdgeError(
      "id-unchecked",
      { id, device, detail },
      { method: "GET", path, mayHaveBeenSent: true },
    );
}

/** The newest LOOK_BACK events of `path`, on a budget of their own (retries included). */
async function readCommands(
  client: EdgeClient,
  path: string,
  call: CallOptions,
): Promise<{ events: DeviceEvent[] } | { error: unknown }> {
  try {
    const read: CallOptions = { ...call, since: undefined, deadline: undefined };
    return { events: await client.listEventsByPath(path, { limit: LOOK_BACK }, read) };
  } catch (err) {
    return { error: err };
  }
}

/**
 * `id-reused` when the command `id` is on its `:command` stream twice: after a send there whose
 * answer was lost, the server may give the id of the command that send made (which this runtime
 * never learned) to the next one, and a marker naming it could be either's (the fault harness's
 * people property in the simulation, seed 20261128, path 103: a wait took the earlier command's
 * COMPLETE). `id-unchecked` when the stream cannot be read: the command was made, but whether its
 * id is its own cannot be told, and a wait for it could take the lost command's marker (seed 9,
 * path 89: this read, counted in the send's own budget, found it spent behind the rate limit, and
 * the send was taken as its own id's). The read has a budget of its own, retries included.
 */
async function onStreamTwice(
  client: EdgeClient,
  path: string,
  id: string,
  device: string,
  call: CallOptions,
): Promise<EdgeError | undefined> {
  const read = await readCommands(client, path, call);
  if ("error" in read) return unchecked(id, device, path, read.error)();
  return timesOn(read.events, id) >= 2 ? idReused(id, device, path) : undefined;
}
