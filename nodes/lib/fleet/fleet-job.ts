// One running fleet job: its record, its rollout, and each device's run from send to outcome.
// A device is recorded as `sending` once its POST has its slot in the account's limiter, just
// before it leaves (a send still waiting there was never sent: at a resume it is sent), and as
// `sent` (with the command's id) after; the record is saved at both, the first save awaited by the
// POST. Resumed after a redeploy or a restart, a `sent` device is awaited; a `sending` one is
// looked for in its `:command` stream (lookUp): a command with the job's elems made in the send's
// time (on the server's clock as the job's other commands showed it), that this runtime did not
// send for anything else (sent-commands.ts). Its own, or the only
// one of unknown sender, it is awaited as sent; none, it is looked for once more when the send's
// request budget is over, since a server still makes a command whose request the close cut off;
// still none, the server never took it and it is sent; two or more of unknown sender, or a stream
// that cannot be read: it is not sent again and ends `failed` with `send-uncertain`.
// A job read back from a persistent store after a restart may have sent devices that its record
// still calls pending (a crash inside the store's flush window): each is looked for the same way
// before it is sent (`unsure`), from the time the record was saved; the process that saved it
// ended before this one started, so its look-ups wait at most one Timeout from that start, not a
// whole budget from the resume. This holds for a record saved at a clean stop too: a process that
// resumed it after that stop, sent devices and was killed before its store wrote leaves the clean
// stop's record on disk (the restart property: SIGINT, then SIGKILL, sent two devices twice).
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import type { DeviceEvent } from "../api/types";
import type { CommandRef } from "../commands/command-ref";
import { LOCAL_CLOCK_SKEW_MS, sinceOf } from "../commands/command-time";
import type { InboxPoller } from "../commands/inbox-poller";
import type { InboxObserver } from "../commands/inbox-types";
import { namesCommand } from "../commands/markers";
import { sendToDevice } from "../commands/send";
import { idReused, sentCommands } from "../commands/sent-commands";
import type { SentCommand } from "../commands/send";
import type { DeviceNames } from "../device/names";
import { DeviceWait } from "./device-wait";
import type { WaitOutcome } from "./device-wait";
import type { DeviceRecord, JobRecord, Outcome } from "./job";
import { Rollout } from "./rollout";
import { sameJson } from "./same-json";
import { SendRoom, certainlyNotSent, pauseAfter } from "./send-room";

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
  /**
   * The record changed in a way that must survive a restart: save it now. Resolves when the store
   * has it (a store that caches, as localfilesystem does, has it in its cache then).
   */
  save(job: JobRecord): Promise<void>;
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
  private readonly room: SendRoom;
  private closed = false;
  /**
   * Set when the job was read back from a persistent store after a restart: its pending devices
   * may have been sent from the record's last save (`from`) to when it resumed (`to`).
   */
  private readonly unsure: { from: number; to: number } | undefined;
  /** Read back from a store: a device's message may have been told by a process before this one. */
  private readonly fromStore: boolean;

  constructor(
    readonly record: JobRecord,
    private readonly services: FleetServices,
    private readonly call: CallOptions,
    private readonly hooks: FleetJobHooks,
    private readonly observer?: InboxObserver,
    fromStore = false,
  ) {
    const to = Date.now();
    this.fromStore = fromStore;
    // From the record's last save (or its clean stop, after which it saw no change until a later
    // process resumed it). A record resumed from memory keeps the window it was read back with.
    this.unsure = fromStore
      ? { from: Math.min(record.closedAt ?? record.savedAt ?? record.startedAt, to), to }
      : record.lookUp;
    if (this.unsure) record.lookUp = this.unsure;
    this.room = new SendRoom(services.client.limiter.limits.concurrent);
    this.rollout = new Rollout(
      record,
      record.settings,
      (d) => this.runGuarded(d),
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
    // With no device in flight the cancel ends the job at once, and the node removes its record
    // at the end: a save after that put the ended job back, and the next deploy resumed it and
    // reported it a second time (fleet seed 126, path 170). An ended job is not saved or shown.
    if (this.rollout.hasEnded) return;
    void this.hooks.save(this.record);
    this.hooks.progress();
  }

  /** The node closes: requests and waits stop, the record stays as saved to resume from. */
  close(): void {
    this.closed = true;
    this.rollout.close();
    this.room.close();
    for (const w of [...this.waits]) w.cancel();
  }

  /** Whether close() came: a method, so that a check after an await is not taken as known. */
  private isClosed(): boolean {
    return this.closed;
  }

  get stopping(): boolean {
    return this.rollout.stopping;
  }

  /**
   * One device's run, whatever throws in it (a bug, a hook of the node): the device ends with that
   * error and the job goes on. A run that never settled would hold the job, and every job queued
   * on the node behind it, for good (issue 28: one device's too-deep answer did).
   */
  private async runGuarded(d: DeviceRecord): Promise<void> {
    try {
      await this.run(d);
    } catch (err) {
      if (!this.closed && d.state !== "ended") this.fail(d, err);
    }
  }

  private async run(d: DeviceRecord): Promise<void> {
    const { unsure } = this;
    // After a crash, a device whose command went out before it may also have ended before it, its
    // message told, with the store's flush still to come: its message says mayHaveBeenSent.
    const before = this.fromStore && (d.state === "sending" || d.state === "sent");
    if (d.state === "sending" && !(await this.adopt(d, d.sentAt ?? 0))) return;
    if (before && d.state === "sent") d.mayHaveBeenSent = true;
    if (d.state === "pending" && unsure) {
      // Sent after the record on disk was written, it may be: from then, to when this job resumed.
      if (!(await this.adopt(d, unsure.from, unsure.to))) return;
      if (isSent(d)) d.mayHaveBeenSent = true;
    }
    if (d.state === "pending" && !(await this.send(d))) return;
    if (d.state === "sent") await this.await(d);
  }

  /**
   * Sends the command to a pending device once there is room for it in the account's limiter
   * (send-room.ts). False when the device ended here (or the node closed).
   */
  private async send(d: DeviceRecord): Promise<boolean> {
    const { client, names } = this.services;
    const { elems, ttl, timeoutMs } = this.record.settings;
    const firstTry = Date.now();
    // Bounded: each pass pauses at least FIRST_PAUSE_MS, and no pass starts after the Timeout.
    for (let attempt = 0; ; attempt++) {
      if (!(await this.room.enter())) return false;
      if (this.rollout.stopping) {
        // Max failures or msg.cancel while it waited for room: it stays unsent (not-sent).
        this.room.leave();
        return false;
      }
      this.hooks.progress();
      let sent: SentCommand;
      try {
        sent = await sendToDevice(client, names, d.device, elems, ttl, this.call, {
          sender: this.senderOf(d),
          beforeSend: () => this.leaving(d),
        });
      } catch (err) {
        this.room.leave();
        // Closed: a device whose POST left stays `sending`, for the look-up at the resume; one
        // still waiting in the limiter stays pending, and is sent at the resume.
        if (this.closed) return false;
        const left = firstTry + timeoutMs - Date.now();
        if (certainlyNotSent(err) && left > 0) {
          // Not sent (or not acted on): it waits as if never started, then tries again.
          d.state = "pending";
          delete d.sentAt;
          void this.hooks.save(this.record);
          const pause = Math.max(pauseAfter(attempt), err.retryAfterMs ?? 0);
          if (pause < left) {
            if (await this.room.wait(pause)) continue;
            // Closed during the pause: the device stays pending, to be sent at the resume.
            return false;
          }
        }
        this.fail(d, err);
        return false;
      }
      this.room.leave();
      if (this.closed) return false;
      const { command } = sent;
      d.state = "sent";
      d.sentAt ??= command.sentAt;
      if (command.id !== undefined) d.commandId = command.id;
      // The await node's rule (command-time.ts): the server's date of a command with an id,
      // whatever our clock says. A command without one (no server gives that here: no-command-id)
      // waits from the send, as a wait restored without a since does.
      d.since =
        sinceOf(command.creationDate, command.id !== undefined, Date.now()) ??
        d.sentAt - LOCAL_CLOCK_SKEW_MS;
      d.dated = command.id !== undefined && d.since === command.creationDate;
      void this.hooks.save(this.record);
      return true;
    }
  }

  /**
   * The POST of `d` has its slot in the limiter: it is recorded as being sent, and the store has
   * that record before the POST leaves. Closed meanwhile, it does not leave.
   */
  private async leaving(d: DeviceRecord): Promise<void> {
    if (this.closed) throw new EdgeError("aborted", { method: "POST", path: d.device });
    if (d.state !== "sending") {
      d.state = "sending";
      d.sentAt = Date.now();
      d.firstSentAt ??= d.sentAt;
      await this.hooks.save(this.record);
      // Read again: the node may have closed during the save.
      if (this.isClosed()) throw new EdgeError("aborted", { method: "POST", path: d.device });
    }
  }

  /** Its name in the runtime's registry of sent commands: this job's run, this device. */
  private senderOf(d: DeviceRecord): string {
    return senderOf(this.record, d);
  }

  /**
   * A device that may have been sent before a redeploy or a restart (`sending`; or, in a job read
   * back from the store after a restart, `pending`), whose POST started from `from` to `lastStart`
   * at the latest: looks for its command in the device's `:command` stream. A request cut off by
   * the close may still be made by the server, so a command not found while that request could
   * still be running is looked for once more when that time is over. False when the device ended
   * here (or the node closed); else its state says what to do next (`sent`: await; `pending`:
   * send).
   */
  private async adopt(d: DeviceRecord, from: number, lastStart = from): Promise<boolean> {
    const { client } = this.services;
    // The request's budget, and a second for what comes before the POST.
    const budget = client.budgetMs(this.call) + 1_000;
    let landBy = lastStart + budget;
    if (this.unsure) {
      // Read back after a crash, the job was saved by a process that ended before this one
      // started: its requests ended with it and none was tried again, so the last attempt it
      // made had left before then (the second above is in that). As a request cut off by a
      // close, that attempt is made by the server, if at all, within the attempt's Timeout.
      // Without this bound every pending device waited a whole budget from the resume (41 s with
      // the account's defaults, and again after each crash), and every job queued behind it
      // waited too (the restart property, seed 1823590037).
      // Never before `lastStart` (the resume): every command made until then is looked at, as
      // this process's start may lie long before it (a job queued behind others, a redeploy).
      landBy = Math.max(lastStart, Math.min(landBy, performance.timeOrigin + client.timeoutMs));
    }
    let found = await this.findCommand(d, from, landBy);
    const left = landBy - Date.now();
    if (found === undefined && left > 0) {
      // At most one budget: a send time read back from a store may lie in the future.
      if (!(await this.room.wait(Math.min(left, budget)))) return false;
      found = await this.findCommand(d, from, landBy);
    }
    if (found === false || this.closed) return false;
    if (found instanceof EdgeError) {
      // Not sent again: one of the commands that share the id may be this device's.
      this.fail(d, found, true);
      return false;
    }
    if (found === "many") {
      const detail =
        "two or more commands with these elems, not sent by this Node-RED, could be it";
      this.fail(d, new EdgeError("send-uncertain", { device: d.device, detail }), true);
      return false;
    }
    if (found) {
      d.state = "sent";
      d.sentAt ??= from;
      // A server may give ids as JSON numbers: the same id as text.
      const id: unknown = found.id;
      if ((typeof id === "string" && id !== "") || typeof id === "number") {
        d.commandId = String(id);
        sentCommands.found(client.origin, client.streamPath(d.device, ":command"), d.commandId);
      }
      d.since = found.creationDate;
      d.dated = typeof found.creationDate === "number";
    } else {
      d.state = "pending";
      delete d.sentAt;
    }
    void this.hooks.save(this.record);
    return true;
  }

  /**
   * The command of `d` in its `:command` stream: made with the job's elems from `from` to
   * `landBy` (our clock; the server's may be off by LOCAL_CLOCK_SKEW_MS), and told apart from the
   * commands this runtime sent for other jobs and flows (sent-commands.ts). Its own (this runtime
   * sent it for this device), or the only one of unknown sender; undefined when there is none;
   * "many" when two or more of unknown sender could be it; the error `id-reused` when such a
   * command's id is on the stream twice; false when the device ended here (the stream could not
   * be read) or the node closed.
   */
  private async findCommand(
    d: DeviceRecord,
    from: number,
    landBy: number,
  ): Promise<(DeviceEvent & { creationDate: number }) | undefined | "many" | EdgeError | false> {
    const { client } = this.services;
    const path = client.streamPath(d.device, ":command");
    // A send of this runtime still on its way there has no id in the registry yet: wait for it
    // (bounded by its budget) rather than take its command for this one.
    if (sentCommands.busy(path)) {
      await Promise.race([sentCommands.quiet(path), this.room.wait(client.budgetMs(this.call))]);
      if (this.isClosed()) return false;
    }
    let events: DeviceEvent[];
    try {
      events = await client.listEventsByPath(path, { limit: LOOK_BACK }, this.call);
    } catch (err) {
      if (this.closed) return false;
      // No such stream (yet): the POST has not made the command there.
      if (err instanceof EdgeError && err.status === 404) return undefined;
      const reason = err instanceof Error ? err.message : String(err);
      const detail = `the stream could not be read: ${reason}`;
      this.fail(d, new EdgeError("send-uncertain", { device: d.device, detail }), true);
      return false;
    }
    if (this.isClosed()) return false;
    const elems = this.record.settings.elems;
    const mine = this.senderOf(d);
    const unknown: (DeviceEvent & { creationDate: number })[] = [];
    // An id the stream holds twice (as the server wrote it, text or a number) was given to two
    // commands: the registry's sender of it may be
    // the other one's, and whichever is this device's, its markers cannot be told apart.
    const times = new Map<string, number>();
    for (const e of events) times.set(e.id, (times.get(e.id) ?? 0) + 1);
    // The window in the server's clock: ours, moved by how far the server's dates of this job's
    // other commands were from our clock when they left (both ways, a step between them too).
    // A server 6 s behind dated the command a cut-off POST made outside the window on our clock
    // alone; the job took it for never made and sent the device again (the fault harness's
    // stamps property, seed 180, path 0).
    const [behind, ahead] = clockOffsets(this.record.devices);
    for (const e of events) {
      if (
        typeof e.creationDate !== "number" ||
        e.creationDate < from + behind - LOCAL_CLOCK_SKEW_MS ||
        e.creationDate > landBy + ahead + LOCAL_CLOCK_SKEW_MS ||
        !sameJson(e.elems, elems)
      )
        continue;
      const id: unknown = e.id;
      if ((times.get(e.id) ?? 0) > 1) return idReused(String(id), d.device, path);
      const sender =
        typeof id === "string" || typeof id === "number"
          ? sentCommands.senderOf(path, String(id))
          : undefined;
      if (sender === mine) return e;
      if (sender === undefined) unknown.push(e);
    }
    if (unknown.length > 1) return "many";
    return unknown[0];
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
          // A device's POST left after this (leaving): a marker read before is another's.
          ...(d.sentAt !== undefined ? { sentAt: d.sentAt } : {}),
          dated: d.dated === true,
          // Sent and answered (or found on its stream) by now; startedAt is when its POST left.
          madeBy: Date.now(),
          ...(this.observer ? { observer: this.observer } : {}),
          stream: { origin: client.origin, path: client.streamPath(d.device, ":command") },
        },
        (outcome) => {
          this.waits.delete(wait);
          // Called by the account's inbox poller: a throw here must neither reach it (the other
          // waits on the inbox would lose their markers) nor leave this device's run unsettled.
          try {
            if (outcome.kind !== "cancelled") this.ended(d, outcome);
          } catch (err) {
            if (d.state !== "ended") this.fail(d, err);
          } finally {
            resolve();
          }
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
    if (
      outcome.kind === "error" &&
      (outcome.error.code === "clock-apart" ||
        outcome.error.code === "clock-stepped" ||
        outcome.error.code === "id-reused")
    ) {
      // A result that may be this device's came and the clocks cannot say (clock-apart, or the
      // server's went back: clock-stepped), or the server gave its id to another command of ours,
      // so no marker is surely its own (id-reused). Sent, so it may run: as the await node ends
      // it with the error, a device failed, not timed out, which would invite sending it again.
      this.fail(d, outcome.error, true);
      return;
    }
    if (outcome.kind === "error") {
      // The inbox was refused for good: no result can be seen, as at a timeout.
      this.finish(d, "timed-out", elapsedOf(d), outcome.error, null, []);
      return;
    }
    const marker = outcome.kind === "timed-out" ? null : outcome.marker;
    const readError = outcome.kind === "timed-out" ? outcome.readError : undefined;
    this.finish(d, outcome.kind, elapsedOf(d), readError, marker, outcome.markers);
  }

  /** `mayHaveBeenSent`: the device's command may have been sent; it is not sent again. */
  private fail(d: DeviceRecord, err: unknown, mayHaveBeenSent = false): void {
    const error = asEdgeError(err);
    if (mayHaveBeenSent || error.mayHaveBeenSent) d.mayHaveBeenSent = true;
    this.finish(d, "failed", elapsedOf(d), error, null, []);
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
    if (marker && !namesCommand(marker, d.commandId)) d.matchedBy = "date";
    if (error) {
      d.error = error.code;
      d.message = this.hooks.describe(error);
    }
    this.rollout.outcome(d);
    void this.hooks.save(this.record);
    const { client } = this.services;
    const command = commandOf(d, this.record, () => client.streamPath(d.device, ":command"));
    try {
      this.hooks.device({ record: d, command, marker, markers });
    } catch (err) {
      // Its message could not go out with the device's markers (nested deeper than Node-RED can
      // copy: too-deep-msg, refused before any wire had it): it goes without them and with the
      // error, as edge-await-command ends such an answer, and the report says it too.
      const error = asEdgeError(err);
      d.error = error.code;
      d.message = this.hooks.describe(error);
      void this.hooks.save(this.record);
      try {
        this.hooks.device({ record: d, command, marker: null, markers: [] });
      } catch {
        // Its outcome and error are in the record, and so in the job's report.
      }
    }
    this.hooks.progress();
  }
}

/** A function, not an inline check: adopt() changes the state that a check before it narrowed. */
function isSent(d: DeviceRecord): boolean {
  return d.state === "sent";
}

/** A device of a job run as the runtime's registry of sent commands names its sender. */
export function senderOf(job: JobRecord, d: DeviceRecord): string {
  return `fleet ${job.job} ${job.startedAt} ${d.device}`;
}

/**
 * The commands a job read back from a store got, remembered as sent by it: another job resumed
 * beside it must not take them for its own. `pathOf` may throw for a name that makes no path.
 */
export function rememberJob(job: JobRecord, pathOf: (device: string) => string): void {
  for (const d of job.devices) {
    if (d.commandId === undefined) continue;
    try {
      sentCommands.remember(pathOf(d.device), d.commandId, senderOf(job, d));
    } catch {
      // A device whose name makes no path was never sent.
    }
  }
}

/**
 * A device's time from its first send attempt to now: a send the server refused with 429 and
 * sent again after its Retry-After counts from the first try, not from the one that went through.
 */
function elapsedOf(d: DeviceRecord): number {
  const from = d.firstSentAt ?? d.sentAt;
  return from === undefined ? 0 : Math.max(0, Date.now() - from);
}

function asEdgeError(err: unknown): EdgeError {
  return err instanceof EdgeError ? err : new EdgeError("internal", { detail: String(err) });
}

/**
 * The device's command as edge-send-command would have described it; null when none was sent.
 * `pathOf` is asked only then: the name of a device that failed may not make a path at all
 * (`hall/2`, `..`), and a throw here would leave that device without its message.
 */
export function commandOf(
  d: DeviceRecord,
  job: JobRecord,
  pathOf: () => string,
): CommandRef | null {
  if (d.sentAt === undefined || d.outcome === "failed" || d.outcome === "not-sent") return null;
  const path = pathOf();
  return {
    ...(d.commandId !== undefined ? { id: d.commandId } : {}),
    creationDate: d.since ?? d.sentAt,
    device: d.device,
    path,
    ...(job.settings.ttl !== undefined ? { ttl: job.settings.ttl } : {}),
    sentAt: d.sentAt,
  };
}

/**
 * How far the server's dates of the commands of `devices` were from our clock when each left
 * (server date less our send time, for each device sent and dated by the server): the most
 * behind (0 at most) and the most ahead (0 at least). 0 and 0 with none.
 */
export function clockOffsets(devices: readonly DeviceRecord[]): [number, number] {
  let behind = 0;
  let ahead = 0;
  for (const d of devices) {
    if (d.dated !== true || d.sentAt === undefined || d.since === undefined) continue;
    const offset = d.since - d.sentAt;
    if (!Number.isFinite(offset)) continue;
    behind = Math.min(behind, offset);
    ahead = Math.max(ahead, offset);
  }
  return [behind, ahead];
}
