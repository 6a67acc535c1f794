// One command to many devices: the targets (ids, names, a device-list filter) each sent the
// command as edge-send-command sends it, at a pace (rate, concurrency), awaited as
// edge-await-command awaits it (the account's shared inbox reads), stopped after Max failures or
// msg.cancel, and told in one report (output 1) and one message per device (output 2). The job
// is saved after each device's step, so after a redeploy or a restart it resumes without sending
// any device the command twice (lib/fleet/fleet-job.ts). The domain is in lib/fleet; this file
// is the Node-RED side: settings, messages, status, the context store.
import { randomUUID } from "node:crypto";
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeStatus } from "node-red";
import { EdgeError } from "../lib/api/errors";
import { accountOf } from "../lib/account/lookup";
import { serializeMessage } from "../lib/records/saved-message";
import { FleetJob, rememberJob } from "../lib/fleet/fleet-job";
import type { DeviceResult, FleetJobHooks } from "../lib/fleet/fleet-job";
import type { InboxObserver } from "../lib/commands/inbox-types";
import { countsOf, progressCounts, summaryOf } from "../lib/fleet/counts";
import type { DeviceRecord, JobRecord, JobSettings, QueuedPlan } from "../lib/fleet/job";
import { reportOf } from "../lib/fleet/report";
import { forgetEndedJobs, registerJob } from "../lib/account/jobs";
import type { JobView } from "../lib/account/jobs";
import { checkDeviceList, parseDeviceText, resolveTargets } from "../lib/fleet/targets";
import { Turns } from "../lib/fleet/turns";
import { blank, configError } from "../lib/node-red/config";
import { checkElemsSetting, elemsFromOf, elemsOf } from "../lib/node-red/elems";
import { RecordsOfType } from "../lib/records/saved-lifecycle";
import { handleInput } from "../lib/node-red/handler";
import type { InputContext, Result } from "../lib/node-red/handler";
import { errorText, translator } from "../lib/node-red/i18n";
import type { Translate } from "../lib/node-red/i18n";
import {
  DEFAULT_AWAIT_TIMEOUT_MS,
  FLEET_COMMAND_RANGES,
  editorSettings,
} from "../lib/node-red/ranges";
import type { Range } from "../lib/node-red/ranges";
import { checkTemplate, render } from "../lib/node-red/render";
import { clip, errorStatus } from "../lib/node-red/status";
import { checkInteger } from "../lib/node-red/validate";
import { JOBS } from "../lib/records/saved-jobs";

interface FleetCommandDef extends NodeDef {
  account: string;
  /** Ids or names, separated by commas or new lines; mustache allowed; empty: msg.devices. */
  devices?: string;
  /** A device-list filter (`GET /device?filter=`); mustache allowed. */
  filter?: string;
  elems?: string;
  /** What the command is: "elems" or "payload" (elems.ts). */
  elemsFrom?: string;
  ttl?: string | number;
  rate?: string | number;
  concurrency?: string | number;
  maxFailures?: string | number;
  timeout?: string | number;
  interval?: string | number;
  /** Context store of the running job; empty = Node-RED's default store. */
  store?: string;
}

const R = FLEET_COMMAND_RANGES;
/** Messages waiting for the job before them; one more is refused with queue-full. */
const MAX_QUEUED = 100;

function numberSetting(value: unknown, what: string, range: Range): number {
  return checkInteger(blank(value) ? range.default : value, what, range.min, range.max);
}

/** The node's settings, checked at deploy: a wrong one is said then, not after a send. */
function checkSettings(def: FleetCommandDef): void {
  for (const name of ["ttl", "timeout"] as const)
    if (!blank(def[name])) checkInteger(def[name], name, R[name].min, R[name].max);
  for (const name of ["rate", "concurrency", "maxFailures", "interval"] as const)
    numberSetting(def[name], name, R[name]);
  checkElemsSetting(def.elems);
  if (typeof def.devices === "string") checkTemplate(def.devices, "devices");
  if (typeof def.filter === "string") checkTemplate(def.filter, "filter");
}

/** What a message asks for, checked before it waits for its turn: bad input fails at once. */
interface Plan {
  given: string[];
  filter: string | undefined;
  settings: JobSettings;
  dryRun: boolean;
  job: string;
  /** msg.job gave the name; else `job` was made here. */
  named: boolean;
  /** An object msg.payload that was not the command, the typed Elems being set. */
  payloadIgnored: boolean;
}

function planOf(msg: NodeMessageInFlow, def: FleetCommandDef): Plan {
  const given = !blank(def.devices)
    ? parseDeviceText(render(String(def.devices), msg, "devices"))
    : msg.devices === undefined
      ? []
      : checkDeviceList(msg.devices);
  const filter = blank(def.filter) ? undefined : render(String(def.filter), msg, "filter").trim();
  if (given.length === 0 && !filter) throw new EdgeError("devices-empty");
  // No release saved this node before the choice existed: without one, the typed Elems wins.
  const from = elemsFromOf(def.elemsFrom, "elems");
  const { elems, ignored } = elemsOf(msg, typeof def.elems === "string" ? def.elems : "", from);
  const ttlSource = msg.ttl ?? (blank(def.ttl) ? undefined : def.ttl);
  const ttl =
    ttlSource === undefined ? undefined : checkInteger(ttlSource, "ttl", R.ttl.min, R.ttl.max);
  // As edge-await-command: msg.timeout, the node's, the ttl (0 is no ttl), else 30 s.
  const timeoutSource = !blank(msg.timeout)
    ? msg.timeout
    : !blank(def.timeout)
      ? def.timeout
      : ttl !== undefined && ttl > 0
        ? ttl
        : DEFAULT_AWAIT_TIMEOUT_MS;
  const settings: JobSettings = {
    elems,
    ...(ttl !== undefined ? { ttl } : {}),
    timeoutMs: checkInteger(timeoutSource, "timeout", R.timeout.min, R.timeout.max),
    intervalMs: numberSetting(def.interval, "interval", R.interval),
    rate: numberSetting(def.rate, "rate", R.rate),
    concurrency: numberSetting(def.concurrency, "concurrency", R.concurrency),
    maxFailures: numberSetting(def.maxFailures, "maxFailures", R.maxFailures),
  };
  const named = typeof msg.job === "string" && msg.job.trim() !== "";
  const job = named ? String(msg.job).trim() : randomUUID();
  const payloadIgnored = ignored === "payload";
  return { given, filter, settings, dryRun: msg.dryRun === true, job, named, payloadIgnored };
}

/** The plan of a job saved while it was queued, as planOf() made it then. */
function planOfQueued(job: JobRecord): Plan {
  const q = job.queued as QueuedPlan;
  return {
    given: q.given,
    filter: q.filter,
    settings: job.settings,
    dryRun: q.dryRun,
    job: job.job,
    named: job.generated !== true,
    // Said, if at all, when the message was planned.
    payloadIgnored: false,
  };
}

/** A running job as the sidebar lists it; computed only when an editor has the sidebar open. */
function viewOf(job: JobRecord, restored: boolean): JobView {
  return {
    job: job.job,
    ...progressCounts(countsOf(job.devices)),
    startedAt: job.startedAt,
    restored,
    state: job.stopped === undefined ? "running" : "stopping",
    named: job.generated !== true,
  };
}

/** A device that ended without a command sent: it has no marker and no command. */
function unsentResult(d: DeviceRecord): DeviceResult {
  return { record: d, command: null, marker: null, markers: [] };
}

/**
 * The node's short status for a job, the count the sidebar's row and the report use:
 * `10/12 complete · 2 ✗` while it runs and when done, `cancelled: 5/12 complete` when stopped (the
 * failures then only in the fill and the sidebar: the words and counts would not fit).
 */
function progressText(t: Translate, job: JobRecord): string {
  const s = summaryOf(countsOf(job.devices));
  const key = s.failed > 0 && job.stopped === undefined ? "progressFailed" : "progress";
  const text = t(`edge-fleet-command.status.${key}`, s);
  if (job.stopped === undefined) return text;
  return t(`edge-fleet-command.status.${job.stopped}`, { progress: text });
}

export = function (RED: NodeAPI): void {
  const jobs = new RecordsOfType(RED, "edge-fleet-command", JOBS);
  forgetEndedJobs();

  function EdgeFleetCommandNode(this: Node, def: FleetCommandDef) {
    RED.nodes.createNode(this, def);
    const warn = this.warn.bind(this);
    const receive = this.receive.bind(this);
    const t = translator(RED, "edge-fleet-command");
    const records = jobs.of(this, def.store, t);
    const { saved } = records;
    const turns = new Turns(MAX_QUEUED);
    /** The saved records of the jobs waiting for their turn, by key. */
    const waiting = new Map<string, JobRecord>();
    /**
     * The turn passes on. Each waiting job's record is saved with the time (savedAt): read back
     * after a crash without its running record, a job cannot have sent anything before then, so
     * the commands of the job before it (an identical one, say) are not taken for its own.
     */
    const release = (): void => {
      const now = Date.now();
      for (const [key, r] of waiting) {
        r.savedAt = now;
        saved.save(key, r);
      }
      turns.release();
    };
    /** The job running now, with whether it was resumed and its key in the store. */
    let current: { job: FleetJob; restored: boolean; key: string } | undefined;
    /** A job holds the turn but is still resolving its devices; and msg.cancel came meanwhile. */
    let resolving = false;
    let cancelAsked = false;
    let closing = false;
    let overrunWarned = false;
    /** An object msg.payload left out for the typed Elems is said once per node, as core does. */
    let payloadWarned = false;
    /** Saved jobs being resumed, by the message they resume. */
    const restoring = new WeakMap<object, { key: string; job: JobRecord; fromStore: boolean }>();

    // Listed in the editor's "edge devices" sidebar while the node runs (lib/account/jobs.ts),
    // and for a while after each job ends; the tab's Cancel is msg.cancel for the job it shows.
    const log = this.log.bind(this);
    const listing = registerJob({
      nodeId: this.id,
      accountId: def.account,
      job: () =>
        current ? { ...viewOf(current.job.record, current.restored), run: current.key } : undefined,
      cancel: (run) => {
        if (current?.key !== run) return false;
        current.job.cancel();
        return true;
      },
      log,
    });

    // Registered before handleInput's own close listener, so it runs first: the job that the
    // handler then aborts knows the node is closing and stays saved.
    records.keep({
      closing: (removed) => {
        closing = true;
        listing.unlist();
        if (current && !removed) {
          // Saved whole as it stops (Node-RED writes its stores at a stop, after the flows):
          // read back at the next start, its record is known to be exact (fleet-job.ts).
          current.job.record.closedAt = Date.now();
          saved.save(current.key, current.job.record);
        }
      },
      mayResume: () => !closing && !invalid,
      resume: (records) => {
        // The job that was running first, then the queued ones in the order they came.
        records.sort(
          (a, b) =>
            Number(a.job.queued !== undefined) - Number(b.job.queued !== undefined) ||
            a.job.startedAt - b.job.startedAt,
        );
        // The commands they got are theirs: a job resumed beside them must not adopt one.
        try {
          const { client } = accountOf(RED, def.account);
          for (const r of records)
            rememberJob(r.job, (device) => client.streamPath(device, ":command"));
        } catch {
          // No account: each job fails with its error when its turn comes.
        }
        for (const r of records) {
          restoring.set(r.msg, r);
          receive(r.msg);
        }
      },
    });

    const describe = (err: EdgeError): string => errorText(t, err);

    /** The message of one device on output 2. */
    const deviceMessage = (job: JobRecord, msg: NodeMessage, r: DeviceResult): NodeMessage => {
      const d = r.record;
      // The input's topic, when it has one: a `topic: undefined` key on every message showed in
      // the debug sidebar and in what flows compared. The device is msg.device.
      const out: NodeMessage = {
        ...(msg.topic !== undefined ? { topic: msg.topic } : {}),
        payload: r.marker,
        job: job.job,
        device: d.device,
        outcome: d.outcome,
        markers: r.markers,
        command: r.command,
        elapsed: d.elapsed ?? null,
      };
      if (d.error !== undefined) out.edgeError = { code: d.error, message: d.message ?? d.error };
      if (d.mayHaveBeenSent === true) out.mayHaveBeenSent = true;
      return out;
    };

    const runJob = (
      key: string,
      record: JobRecord,
      restored: boolean,
      msg: NodeMessageInFlow,
      ctx: InputContext,
      fromStore = false,
    ): Promise<Result | null> =>
      new Promise<Result | null>((resolve) => {
        const { client, names, poller } = accountOf(RED, def.account);
        const onAbort = (): void => {
          job.close();
          resolve(null);
        };
        const finish = (): void => {
          // The signal is the node's, shared by every job it runs: a listener left on it would
          // hold this job's record until the node closes.
          ctx.signal.removeEventListener("abort", onAbort);
          saved.remove(key);
          const endedAt = Date.now();
          listing.ended(key, viewOf(record, restored), record.stopped ?? "done", endedAt);
          const report = reportOf(record, { restored, dryRun: false, endedAt });
          const { failed } = summaryOf(report);
          msg.payload = report;
          if (restored) msg.restored = true;
          resolve({
            send: [msg, null],
            status: () => clip(progressText(t, record)),
            fill: report.aborted ? "red" : failed > 0 ? "yellow" : "green",
          });
        };
        const observer: InboxObserver = {
          onReadState(err) {
            if (err)
              ctx.status({
                fill: "yellow",
                shape: "ring",
                text: clip(t("edge-fleet-command.status.unread", { reason: errorStatus(t, err) })),
              });
            else ctx.busy();
          },
          onOverrun() {
            if (overrunWarned) return;
            overrunWarned = true;
            warn(t("edge-fleet-command.warn.overrun"));
          },
        };
        const hooks: FleetJobHooks = {
          save: (r) => {
            r.savedAt = Date.now();
            return saved.saveNow(key, r);
          },
          device: (r) => {
            ctx.send([null, deviceMessage(record, msg, r)]);
          },
          progress: ctx.busy,
          end: () => {
            // Devices left unsent by a stop rule or a cancel still get their message. Whatever
            // a send throws (a msg too deep to copy), the job still finishes: its message ends.
            try {
              for (const d of record.devices)
                if (d.outcome === "not-sent")
                  ctx.send([null, deviceMessage(record, msg, unsentResult(d))]);
            } finally {
              finish();
            }
          },
          describe,
        };
        const job = new FleetJob(
          record,
          { client, names, poller },
          ctx.call,
          hooks,
          observer,
          // Read back from a store: it may not have had the last saves of a process that resumed
          // the job after the save it holds, even one made at a clean stop (fleet-job.ts).
          fromStore,
        );
        current = { job, restored, key };
        // From here on the record changes again: it is no longer the one saved at a stop.
        delete record.closedAt;
        record.savedAt = Date.now();
        saved.save(key, record);
        if (ctx.signal.aborted) {
          resolve(null);
          return;
        }
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        ctx.busy();
        job.start();
      });

    const step = async (msg: NodeMessageInFlow, ctx: InputContext): Promise<Result | null> => {
      if (msg.cancel === true) {
        // Ends with done() and no output of its own; the job's report tells what was cancelled.
        // Jobs still queued behind it are not cancelled: each is a message of its own.
        if (current) current.job.cancel();
        else if (resolving) cancelAsked = true;
        return null;
      }
      const resumed = restoring.get(msg);
      restoring.delete(msg);
      if (resumed && !resumed.job.queued) {
        // A job that was running: its devices go on from where they stood.
        if (!(await turns.take(ctx.signal))) return null;
        try {
          return await runJob(resumed.key, resumed.job, true, msg, ctx, resumed.fromStore);
        } finally {
          current = undefined;
          release();
        }
      }
      const plan = resumed?.job.queued ? planOfQueued(resumed.job) : planOf(msg, def);
      if (plan.payloadIgnored && !payloadWarned) {
        payloadWarned = true;
        warn(t("edge-fleet-command.warn.payloadIgnored"));
      }
      // Throws queue-full before anything is saved.
      const turn = turns.take(ctx.signal);
      // Saved while it waits for its turn and resolves its devices: after a redeploy or a restart
      // meanwhile it comes back and runs on the node that takes over (it used to vanish).
      const key = resumed?.key ?? saved.newKey();
      const record = resumed?.job ?? queuedRecord(plan, msg);
      saved.save(key, record);
      waiting.set(key, record);
      const from = resumed ? { fromStore: resumed.fromStore } : undefined;
      // Stopped by the node's close, it stays saved, to resume; otherwise it has ended (a report,
      // an error) and goes, also when the close comes just after its report.
      const state = { running: false };
      let ended = false;
      try {
        const result = await startJob(key, plan, record, from, msg, ctx, turn, state);
        ended = result !== null || !ctx.signal.aborted;
        return result;
      } catch (err) {
        ended = !ctx.signal.aborted;
        throw err;
      } finally {
        waiting.delete(key);
        if (ended) saved.remove(key);
        else if (!state.running) {
          // Stopped before it ran: saved as closed, so that read back after a restart it is known
          // not to have sent anything (a queued record without it may be one cut off by a crash
          // after the job had started, its running record not yet on disk).
          record.closedAt = Date.now();
          saved.save(key, record);
        }
      }
    };

    /** A new job's saved record while it is queued: its plan and its message. */
    const queuedRecord = (plan: Plan, msg: NodeMessageInFlow): JobRecord => {
      const { json, dropped } = serializeMessage(msg);
      if (dropped.length > 0)
        warn(t("edge-fleet-command.warn.unsaved", { props: dropped.join(", ") }));
      return {
        v: 1,
        job: plan.job,
        startedAt: Date.now(),
        settings: plan.settings,
        devices: [],
        msg: json,
        ...(plan.named ? {} : { generated: true as const }),
        queued: {
          given: plan.given,
          ...(plan.filter ? { filter: plan.filter } : {}),
          dryRun: plan.dryRun,
        },
      };
    };

    /**
     * Waits for its turn, resolves the devices and runs the job (or reports the dry run). `from`:
     * the job was saved while queued and resumed, from the store or from memory; `state.running`
     * is set once its running record takes the queued one's place.
     */
    const startJob = async (
      key: string,
      plan: Plan,
      queued: JobRecord,
      from: { fromStore: boolean } | undefined,
      msg: NodeMessageInFlow,
      ctx: InputContext,
      turn: Promise<boolean>,
      state: { running: boolean },
    ): Promise<Result | null> => {
      const restored = from !== undefined;
      if (!(await turn)) return null;
      try {
        const { client, names } = accountOf(RED, def.account);
        resolving = true;
        ctx.busy();
        const devices = await resolveTargets(
          client,
          names,
          plan.given,
          plan.filter,
          ctx.call,
          describe,
        );
        const record: JobRecord = {
          v: 1,
          job: plan.job,
          startedAt: Date.now(),
          settings: plan.settings,
          devices,
          msg: "",
          ...(plan.named ? {} : { generated: true as const }),
        };
        if (plan.dryRun) {
          for (const d of devices) {
            if (d.state !== "pending") continue;
            d.state = "ended";
            d.outcome = "not-sent";
          }
          msg.payload = reportOf(record, { restored, dryRun: true, endedAt: Date.now() });
          if (restored) msg.restored = true;
          return {
            send: [msg, null],
            status: t("edge-fleet-command.status.dryRun", { total: devices.length }),
          };
        }
        record.msg = queued.msg;
        // A device whose id could not be looked up has its outcome already: its message goes
        // now, as every other device's goes when its outcome is known (never again on a resume).
        for (const d of devices)
          if (d.outcome === "failed") ctx.send([null, deviceMessage(record, msg, unsentResult(d))]);
        // Cancelled while its devices were being resolved: it reports them all not sent.
        if (cancelAsked) record.stopped = "cancelled";
        resolving = false;
        // Read back from a store: a crash may have cut it off after it started, its devices sent
        // since its last save, even where that save marked it stopped before it ran (a later
        // process may have started it and been killed before its store wrote). Each is looked up
        // from then before it is sent (fleet-job.ts), as a running job read back is.
        const unsure = from?.fromStore === true;
        if (unsure) record.savedAt = queued.savedAt ?? queued.startedAt;
        waiting.delete(key);
        state.running = true;
        return await runJob(key, record, restored, msg, ctx, unsure);
      } finally {
        current = undefined;
        resolving = false;
        cancelAsked = false;
        release();
      }
    };

    const invalid = configError(() => {
      checkSettings(def);
    });
    handleInput(RED, this, "edge-fleet-command", step, {
      account: def.account,
      invalid,
      busy: (): NodeStatus => ({
        fill: "blue",
        shape: "dot",
        text: current
          ? clip(progressText(t, current.job.record))
          : t("edge-fleet-command.status.resolving"),
      }),
    });
  }

  RED.nodes.registerType("edge-fleet-command", EdgeFleetCommandNode, {
    settings: editorSettings("edge-fleet-command", R),
  });
};
