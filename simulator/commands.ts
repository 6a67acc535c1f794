// The simulated devices: each takes the events of its :command stream one at a time, in order,
// and answers in its :inbox with COMMAND_START then COMMAND_COMPLETE (or COMMAND_FAULT), the way
// the real service reports command processing. The marker's shape is a setting because the real
// one is not public: clients must cope with every plausible shape, so tests can switch it.

import type { JsonObject, JsonValue } from "./json";
import type { Device, Store } from "./store";
import type { StoredEvent } from "./stream";
import type { Cancel, Timers } from "./timers";

export type MarkerStyle = "value" | "key" | "no-id";
export const MARKER_STYLES: readonly MarkerStyle[] = ["value", "key", "no-id"];
/**
 * The shape of new event ids: the hosted service's ("e" and 24 hex digits) or UUIDs, since any
 * server that speaks the API may use ids of its own shape and clients must not depend on one.
 */
export type IdStyle = "octave" | "uuid";
export const ID_STYLES: readonly IdStyle[] = ["octave", "uuid"];

export interface CommandConfig {
  commandDelayMs: number;
  markerStyle: MarkerStyle;
  idStyle: IdStyle;
  /**
   * The most events a listing returns, however large a `limit` it is asked (0: no cap). The API
   * names no largest limit, so a server may have one of its own; clients must not take a page
   * shorter than they asked for as the end of the stream.
   */
  maxPageSize: number;
}

type Marker =
  | "COMMAND_START"
  | "COMMAND_COMPLETE"
  | "COMMAND_FAULT"
  | "PUSH_CONFIGURATION_START"
  | "PUSH_CONFIGURATION_COMPLETE";

interface CommandJob {
  kind: "command";
  event: StoredEvent;
  /** Set when ttl/timeout ran out: the job is skipped when it reaches the front. */
  expired: boolean;
  deadline: number | undefined;
  cancelTtl: Cancel | undefined;
}

interface PushJob {
  kind: "push";
}

type Job = CommandJob | PushJob;

/** A FIFO with a moving head: thousands of queued commands must not cost an O(n) shift each. */
class DeviceQueue {
  jobs: Job[] = [];
  head = 0;
  busy = false;

  get front(): Job | undefined {
    return this.jobs[this.head];
  }

  dropFront(): void {
    this.head += 1;
    if (this.head >= 256 && this.head * 2 >= this.jobs.length) {
      this.jobs = this.jobs.slice(this.head);
      this.head = 0;
    }
  }

  pending(): Job[] {
    return this.jobs.slice(this.head);
  }
}

/** Resource paths named by elems: nested objects are joined with "/", leading "/" ignored. */
export function commandPaths(elems: JsonObject): string[] {
  const out: string[] = [];
  const walk = (value: JsonValue, prefix: string): void => {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) {
        walk(inner, prefix === "" ? key : prefix + "/" + key);
      }
    } else {
      out.push(normalise(prefix));
    }
  };
  walk(elems, "");
  return out;
}

function normalise(path: string): string {
  return path.replace(/\/+/g, "/").replace(/^\//, "").replace(/\/$/, "");
}

/** A path names a resource when equal to it, or to it without its "/value" sub-resource. */
export function unknownPaths(paths: string[], resources: string[]): string[] {
  const known = new Set<string>();
  for (const resource of resources) {
    const r = normalise(resource);
    known.add(r);
    if (r.endsWith("/value")) known.add(r.slice(0, -"/value".length));
  }
  return paths.filter((p) => !known.has(p));
}

export class CommandProcessor {
  private queues = new Map<Device, DeviceQueue>();

  constructor(
    private readonly store: Store,
    private readonly timers: Timers,
    readonly config: CommandConfig,
  ) {}

  /** Forgets every queued command (the timers are cleared by the owner). */
  reset(): void {
    this.queues = new Map();
  }

  enqueueCommand(device: Device, event: StoredEvent): void {
    const queue = this.queueOf(device);
    const ttl = ttlOf(event.metadata);
    const job: CommandJob = {
      kind: "command",
      event,
      expired: false,
      deadline: ttl === undefined ? undefined : event.creationDate + ttl,
      cancelTtl: undefined,
    };
    if (ttl !== undefined) {
      job.cancelTtl = this.timers.after(ttl, () => {
        job.cancelTtl = undefined;
        // An online device is receiving it (it only waits behind earlier commands).
        if (!device.online) this.expire(device, job);
      });
    }
    queue.jobs.push(job);
    this.pump(device, queue);
  }

  /** The device acknowledges a state update with configuration markers, in turn with commands. */
  enqueuePush(device: Device): void {
    const queue = this.queueOf(device);
    queue.jobs.push({ kind: "push" });
    this.pump(device, queue);
  }

  setOnline(device: Device, online: boolean): void {
    device.online = online;
    const queue = this.queueOf(device);
    if (online) {
      device.lastSeen = Date.now();
      this.pump(device, queue);
      return;
    }
    // Commands whose time ran out while the device was online but busy expire now.
    const now = Date.now();
    for (const job of queue.pending()) {
      if (job.kind === "command" && !job.expired && job.deadline !== undefined) {
        if (job.deadline <= now) this.expire(device, job);
      }
    }
  }

  pendingCount(device: Device): number {
    const queue = this.queues.get(device);
    if (queue === undefined) return 0;
    return queue.pending().filter((job) => job.kind === "push" || !job.expired).length;
  }

  private queueOf(device: Device): DeviceQueue {
    let queue = this.queues.get(device);
    if (queue === undefined) {
      queue = new DeviceQueue();
      this.queues.set(device, queue);
    }
    return queue;
  }

  private expire(device: Device, job: CommandJob): void {
    if (job.expired) return;
    job.expired = true;
    job.cancelTtl?.();
    job.cancelTtl = undefined;
    this.mark(device, "COMMAND_FAULT", job.event.id, "ttl expired");
  }

  private pump(device: Device, queue: DeviceQueue): void {
    if (queue.busy || !device.online) return;
    let job = queue.front;
    while (job !== undefined && job.kind === "command" && job.expired) {
      queue.dropFront();
      job = queue.front;
    }
    if (job === undefined) return;
    const current = job;
    queue.busy = true;
    this.timers.after(this.config.commandDelayMs, () => {
      // Gone offline (or expired) during the wait: the job stays first and resumes when online.
      if (!device.online || (current.kind === "command" && current.expired)) {
        queue.busy = false;
        if (current.kind === "command" && current.expired) {
          queue.dropFront();
          this.pump(device, queue);
        }
        return;
      }
      queue.dropFront();
      device.lastSeen = Date.now();
      if (current.kind === "push") {
        this.mark(device, "PUSH_CONFIGURATION_START", undefined, undefined);
      } else {
        current.cancelTtl?.();
        current.cancelTtl = undefined;
        this.mark(device, "COMMAND_START", current.event.id, undefined);
      }
      this.timers.after(this.config.commandDelayMs, () => {
        if (current.kind === "push") {
          this.mark(device, "PUSH_CONFIGURATION_COMPLETE", undefined, undefined);
        } else {
          const unknown = unknownPaths(commandPaths(current.event.elems), device.resources);
          if (device.fault !== undefined) {
            this.mark(device, "COMMAND_FAULT", current.event.id, device.fault);
          } else if (unknown.length === 0) {
            this.mark(device, "COMMAND_COMPLETE", current.event.id, undefined);
          } else {
            this.mark(
              device,
              "COMMAND_FAULT",
              current.event.id,
              `unknown resource: ${unknown.join(", ")}`,
            );
          }
        }
        queue.busy = false;
        this.pump(device, queue);
      });
    });
  }

  private mark(
    device: Device,
    marker: Marker,
    ref: string | undefined,
    reason: string | undefined,
  ): void {
    this.store.addEvent(
      device.inboxStream,
      markerElems(this.config.markerStyle, marker, ref, reason),
      undefined,
      device.identityId,
    );
  }
}

export function markerElems(
  style: MarkerStyle,
  marker: string,
  ref: string | undefined,
  reason: string | undefined,
): JsonObject {
  switch (style) {
    case "value": {
      const cmd: JsonObject = { status: marker };
      if (ref !== undefined) cmd.ref = ref;
      if (reason !== undefined) cmd.reason = reason;
      return { cmd };
    }
    case "key": {
      const inner: JsonObject = {};
      if (ref !== undefined) inner.id = ref;
      if (reason !== undefined) inner.reason = reason;
      return { [marker]: inner };
    }
    case "no-id": {
      const elems: JsonObject = { status: marker };
      if (reason !== undefined) elems.reason = reason;
      return elems;
    }
  }
}

function ttlOf(metadata: JsonObject | undefined): number | undefined {
  if (metadata === undefined) return undefined;
  const value = metadata.ttl ?? metadata.timeout;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}
