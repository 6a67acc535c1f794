// One running fleet job: its record, its rollout, and each device's run from send to outcome.
// A device is recorded as `sending` before its POST and as `sent` (with the command's id) after:
// the record is saved at both, so a job stopped in between knows the command may have arrived.
// Resumed after a redeploy or a restart, a `sent` device is awaited; a `sending` one is looked
// for in its `:command` stream (an event made since the recorded send, with the job's elems):
// found, it is awaited as sent; not found, the server never took it and it is sent; when the
// stream cannot be read, it is not sent again and ends `failed` with `send-uncertain`.
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import type { DeviceEvent } from "../api/types";
import type { CommandRef } from "../commands/command-ref";
import type { InboxPoller } from "../commands/inbox-poller";
import type { InboxObserver } from "../commands/inbox-types";
import { sendToDevice } from "../commands/send";
import type { DeviceNames } from "../device/names";
import { DeviceWait } from "./device-wait";
import type { WaitOutcome } from "./device-wait";
import type { DeviceRecord, JobRecord, Outcome } from "./job";
import { Rollout } from "./rollout";
import { sameJson } from "./same-json";

/**
 * When the server returned no event, the command's time is our clock's, not the server's: allow
 * this much skew, or the command's own markers (or the event itself, on resume) could look older.
 */
const LOCAL_CLOCK_SKEW_MS = 5_000;
/** Newest events of a `:command` stream read to find a command whose answer the job never saw. */
const LOOK_BACK = 100;

/** What a device's outcome carries beyond its record, for its message on output 2. */
export interface DeviceResult {
  record: DeviceRecord;
  command: CommandRef | null;
  /** The marker that ended the wait (complete, fault), else null. */
  marker: DeviceEvent | null;
  markers: DeviceEvent[];
}

export interface FleetJobHooks {
  /** The record changed in a way that must survive a restart: save it now. */
  save(job: JobRecord): void;
  /** A device has its outcome. */
  device(result: DeviceResult): void;
  /** Progress to show (a device started or ended). */
  progress(): void;
  /** Every device has its outcome; not called after close(). */
  end(): void;
  /** An error's sentence, for the report. */
  describe(err: EdgeError): string;
}

export interface FleetServices {
  client: EdgeClient;
  names: DeviceNames;
  poller: InboxPoller;
}

export class FleetJob {
  private readonly rollout: Rollout;
  private readonly waits = new Set<DeviceWait>();
  private closed = false;

  constructor(
    readonly record: JobRecord,
    private readonly services: FleetServices,
    private readonly call: CallOptions,
    private readonly hooks: FleetJobHooks,
    private readonly observer?: InboxObserver,
  ) {
    this.rollout = new Rollout(
      record,
      record.settings,
      (d) => this.run(d),
      () => {
        hooks.end();
      },
    );
  }

  start(): void {
    this.rollout.start();
  }

  cancel(): void {
    this.rollout.cancel();
    this.hooks.save(this.record);
    this.hooks.progress();
  }

  /** The node closes: requests and waits stop, the record stays as saved to resume from. */
  close(): void {
    this.closed = true;
    this.rollout.close();
    for (const w of [...this.waits]) w.cancel();
  }

  get stopping(): boolean {
    return this.rollout.stopping;
  }

  private async run(d: DeviceRecord): Promise<void> {
    const { client, names } = this.services;
    const { elems, ttl } = this.record.settings;
    if (d.state === "sending" && !(await this.adopt(d))) return;
    if (d.state === "pending") {
      d.state = "sending";
      d.sentAt = Date.now();
      this.hooks.save(this.record);
      this.hooks.progress();
      try {
        const { command } = await sendToDevice(client, names, d.device, elems, ttl, this.call);
        if (this.closed) return;
        d.state = "sent";
        if (command.id !== undefined) d.commandId = command.id;
        d.since =
          command.id !== undefined
            ? command.creationDate
            : command.creationDate - LOCAL_CLOCK_SKEW_MS;
        this.hooks.save(this.record);
      } catch (err) {
        // Closed during the POST: the device stays `sending`, for the look-up at the resume.
        if (this.closed) return;
        this.fail(d, err);
        return;
      }
    }
    if (d.state === "sent") await this.await(d);
  }

  /**
   * A device left `sending` by the job before a restart: looks for its command in the device's
   * `:command` stream. False when the device ended here (or the node closed).
   */
  private async adopt(d: DeviceRecord): Promise<boolean> {
    const { client } = this.services;
    const sentAt = d.sentAt ?? 0;
    let events: DeviceEvent[];
    try {
      events = await client.listEventsByPath(
        client.streamPath(d.device, ":command"),
        { limit: LOOK_BACK },
        this.call,
      );
    } catch (err) {
      if (this.closed) return false;
      // No such stream: the POST cannot have created the command there.
      if (err instanceof EdgeError && err.status === 404) {
        d.state = "pending";
        return true;
      }
      const detail = err instanceof Error ? err.message : String(err);
      this.fail(d, new EdgeError("send-uncertain", { device: d.device, detail }));
      return false;
    }
    if (this.closed) return false;
    const elems = this.record.settings.elems;
    const found = events.find(
      (e) =>
        typeof e.creationDate === "number" &&
        e.creationDate >= sentAt - LOCAL_CLOCK_SKEW_MS &&
        sameJson(e.elems, elems),
    );
    if (found) {
      d.state = "sent";
      if (typeof found.id === "string" && found.id) d.commandId = found.id;
      d.since = found.creationDate;
    } else {
      d.state = "pending";
    }
    this.hooks.save(this.record);
    return true;
  }

  private await(d: DeviceRecord): Promise<void> {
    const { client, poller } = this.services;
    const { timeoutMs, intervalMs } = this.record.settings;
    const startedAt = d.sentAt ?? Date.now();
    return new Promise<void>((resolve) => {
      const wait = new DeviceWait(
        {
          commandId: d.commandId,
          since: d.since ?? startedAt - LOCAL_CLOCK_SKEW_MS,
          intervalMs,
          timeoutMs,
          startedAt,
          ...(this.observer ? { observer: this.observer } : {}),
        },
        (outcome) => {
          this.waits.delete(wait);
          if (outcome.kind !== "cancelled") this.ended(d, outcome);
          resolve();
        },
      );
      this.waits.add(wait);
      wait.start(
        poller,
        { path: client.streamPath(d.device, ":inbox") },
        startedAt + timeoutMs - Date.now(),
      );
    });
  }

  private ended(d: DeviceRecord, outcome: Exclude<WaitOutcome, { kind: "cancelled" }>): void {
    if (outcome.kind === "error") {
      // The inbox was refused for good: no result can be seen, as at a timeout.
      this.finish(d, "timed-out", Date.now() - (d.sentAt ?? Date.now()), outcome.error, null, []);
      return;
    }
    const marker = outcome.kind === "timed-out" ? null : outcome.marker;
    const readError = outcome.kind === "timed-out" ? outcome.readError : undefined;
    this.finish(d, outcome.kind, outcome.elapsed, readError, marker, outcome.markers);
  }

  private fail(d: DeviceRecord, err: unknown): void {
    const error =
      err instanceof EdgeError ? err : new EdgeError("internal", { detail: String(err) });
    this.finish(d, "failed", Math.max(0, Date.now() - (d.sentAt ?? Date.now())), error, null, []);
  }

  private finish(
    d: DeviceRecord,
    outcome: Outcome,
    elapsed: number,
    error: EdgeError | undefined,
    marker: DeviceEvent | null,
    markers: DeviceEvent[],
  ): void {
    d.state = "ended";
    d.outcome = outcome;
    d.elapsed = elapsed;
    if (error) {
      d.error = error.code;
      d.message = this.hooks.describe(error);
    }
    this.hooks.save(this.record);
    const path = this.services.client.streamPath(d.device, ":command");
    this.hooks.device({ record: d, command: commandOf(d, this.record, path), marker, markers });
    this.hooks.progress();
  }
}

/** The device's command as edge-send-command would have described it; null when none was sent. */
export function commandOf(d: DeviceRecord, job: JobRecord, path: string): CommandRef | null {
  if (d.sentAt === undefined || d.outcome === "failed" || d.outcome === "not-sent") return null;
  return {
    ...(d.commandId !== undefined ? { id: d.commandId } : {}),
    creationDate: d.since ?? d.sentAt,
    device: d.device,
    path,
    ...(job.settings.ttl !== undefined ? { ttl: job.settings.ttl } : {}),
    sentAt: d.sentAt,
  };
}
