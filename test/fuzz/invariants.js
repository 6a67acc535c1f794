// The invariants of issue 28, checked after a schedule against the fuzz server's log (what it
// executed, the markers it wrote), never against what the nodes say of themselves. Pure: a run's
// record and the server's log in, the list of violations out (empty when every one holds).
//
// A run's record (test/fuzz/schedule.js): inputs [{n, kind, t, device, devices, group}], outputs
// [{sink, n, t, msg}] (what reached each helper node or the Catch node), dropped [{sink, n,
// sentBefore}] (what Node-RED lost on its way to one that a deploy stopped, test/fuzz/flow.js),
// deploys [{t, type}], watch [{eventId}], probes [{what, ended}], unhandled [reason], tabCancels
// [{t, what, cancelled}] (Cancels made in the edge devices tab, through its admin route).
"use strict";

/** The helper nodes where a message of each kind ends (besides a Catch node). */
const END_SINKS = {
  command: ["a1.ok", "a1.fault", "a1.late"],
  merge: ["m1.out"],
  list: ["l1.out"],
  fleet: ["f1.report"],
  wired: ["mut.out"],
  // The subflows property (flow.js, subflowNodes): each instance's own outputs.
  subA: ["sfA.ok", "sfA.fault", "sfA.late"],
  subB: ["sfB.ok", "sfB.fault", "sfB.late"],
  subC: ["lcC.out"],
};

/** The helper nodes where a subflow instance's ends arrive, by instance. */
const SUB_ENDS = Object.fromEntries(
  ["subA", "subB", "subC"].map((kind) => [kind, END_SINKS[kind]]),
);

/**
 * The nodes between where a message of each kind is given and where it ends. Node-RED drops a
 * message on its way to one of them that a deploy stopped, whatever its type (README,
 * Reliability): a drop there, seen through Node-RED's hooks (flow.js), ends the message.
 */
const MIDWAY = {
  command: ["fn1", "a1"],
  wired: ["mut1"],
  merge: [],
  list: [],
  fleet: [],
  subA: ["sfA", "sfA-sf.s", "sfA-sf.a"],
  subB: ["loB", "liB", "sfB", "sfB-sf.s", "sfB-sf.a"],
  subC: ["lcC", "liC", "sfC", "sfC-sf.s", "sfC-sf.a", "retC"],
};

/** "#n", or "probe #n" for a message of the probes after the schedule. */
const label = (rec, n) => (rec.probeInputs.some((p) => p.n === n) ? `probe #${n}` : `#${n}`);

const nOf = (elems, key) => (elems && typeof elems === "object" ? elems[key] : undefined);

/** The deploys after an input, as a failure names them: a disable or an enable with its target. */
const deploysAfter = (rec, input) =>
  rec.deploys
    .filter((d) => d.t >= input.t)
    .map((d) => (/^(dis|en)able:/.test(d.target ?? "") ? `${d.type}(${d.target})` : d.type))
    .join(",") || "none";

/** The nodes a disable (test/fuzz/schedule.js, DisableDeploy) stops for a message of each kind. */
const DISABLED = { tab: ["command", "fleet"], a1: ["command"], f1: ["fleet"] };

/**
 * 1 (issue 35, item 5). A message pending in a node that a deploy disabled, and that ended after
 * the deploy that enabled it again, ended there because the enabled node resumed it: its end
 * carries msg.restored, as after a redeploy. While the tab is disabled, its helper nodes are too:
 * an end then is Node-RED's to drop, and the end that counts comes after the enable.
 */
function restoredAfterDisable(rec) {
  const out = [];
  for (const d of rec.disables ?? []) {
    const kinds = DISABLED[d.target] ?? [];
    for (const input of rec.inputs) {
      if (!kinds.includes(input.kind) || input.t >= d.from) continue;
      for (const o of rec.outputs) {
        if (o.n !== input.n || o.t <= d.to || o.sink === "f1.each") continue;
        if (o.msg?.restored === true) continue;
        out.push({
          invariant: 1,
          n: input.n,
          text: `${input.kind} #${input.n} was pending when a deploy disabled ${d.target} and ended at ${o.sink} after the enable without msg.restored`,
        });
      }
    }
  }
  return out;
}

/** 1. Every input message ended once (output or Catch), or, where the docs allow, not at all. */
function endedOnce(rec, log, behaviour) {
  const out = [];
  const isEnd = (input, o) =>
    o.n === input.n &&
    (o.midway
      ? MIDWAY[input.kind].includes(o.sink)
      : (o.sink === "caught" && input.kind !== "wired") || END_SINKS[input.kind].includes(o.sink));
  const tabCancels = rec.tabCancels ?? [];
  for (const input of rec.inputs) {
    const ends = rec.outputs.filter((o) => isEnd(input, o));
    // A Cancel in the tab ends a wait with the error `cancelled` (README, Reliability): an end
    // the README names only when a Cancel was made after the message came.
    for (const e of ends)
      if (e.code === "cancelled" && !tabCancels.some((c) => c.t >= input.t))
        out.push({
          invariant: 1,
          n: input.n,
          text: `${input.kind} #${input.n} ended with the error cancelled, though no Cancel was made in the tab after it`,
        });
    // An end sent before a deploy began, which Node-RED then dropped on its way to a helper node
    // that deploy stopped (README, Reliability: "a message any node had already sent on to a node
    // that the deploy restarts can still be dropped by Node-RED"): the node did end the message.
    // One sent once the deploy had begun is the node's to hold (as a watch holds its events).
    const dropped = (rec.dropped ?? []).filter((d) => isEnd(input, d));
    const lost = dropped.filter((d) => d.sentBefore);
    if (ends.length + lost.length === 1) continue;
    if (ends.length + lost.length > 1) {
      const where = [
        ...ends.map((e) => `${e.sink}${e.code ? `(${e.code})` : ""}`),
        ...lost.map(
          (d) => `${d.sink} (dropped by Node-RED${d.midway ? " on its way" : ""} at a deploy)`,
        ),
      ].join(", ");
      out.push({
        invariant: 1,
        n: input.n,
        text: `${input.kind} #${input.n} ended ${ends.length + lost.length} times: ${where}`,
      });
      continue;
    }
    // A redeploy ends a message that was still waiting for the rate limiter (or in flight for a
    // read) with done() and no output: documented, and nothing was done for it.
    const deployed = rec.deploys.some((d) => d.t >= input.t);
    const executed = log.executed.filter((e) => !e.other && nOf(e.elems, "/fuzz/n") === input.n);
    if (deployed && input.kind !== "fleet" && executed.length === 0) continue;
    const detail =
      input.kind === "command" || input.kind.startsWith("sub")
        ? ` (device ${input.device}, command ${executed.map((e) => e.commandId).join(",") || "never executed"}, msg.command shape ${input.shape}, deploys after it: ${deploysAfter(
            rec,
            input,
          )})`
        : input.kind === "fleet"
          ? ` (devices ${input.devices.join(",")}, job group ${input.group}${input.devices.some((d) => behaviour.deepMarkers.includes(d)) ? `, markers of ${behaviour.deepMarkers} too deep to copy` : ""}, deploys after it: ${deploysAfter(
              rec,
              input,
            )})`
          : "";
    const clicked = tabCancels.filter((c) => c.t >= input.t && c.cancelled > 0);
    const tab =
      clicked.length > 0
        ? `; Cancels in the tab after it: ${clicked.map((c) => `${c.what} (+${c.t - input.t} ms, ${c.cancelled} cancelled)`).join(", ")}`
        : "";
    const late =
      dropped.length > 0
        ? `; its end ${dropped.map((d) => d.sink).join(", ")} was sent after a deploy began and dropped by Node-RED`
        : "";
    out.push({
      invariant: 1,
      n: input.n,
      text: `${input.kind} #${input.n} never ended${detail}${tab}${late}`,
    });
  }
  return out;
}

/**
 * What a replay needs of a command executed too often, since one on a loaded machine may not
 * happen again idle: when each run was executed, and every POST the server took for those
 * devices' commands (time from the log's start, status, fault).
 */
function evidence(executed, log) {
  const at = (t) => `+${t - log.startedAt}ms`;
  const devices = new Set(executed.map((e) => e.device));
  const posts = log.requests.filter(
    (r) =>
      r.method === "POST" &&
      !r.other &&
      [...devices].some((d) => r.path.includes(d) || r.stream?.includes(`/devices/${d}/`)),
  );
  return (
    `; executed at ${executed.map((e) => `${at(e.t)} (${e.commandId})`).join(", ")}` +
    `; POSTs for ${[...devices].join(",")}: ${
      posts.map((r) => `${at(r.t)} ${r.status ?? "?"}${r.fault ? ` ${r.fault}` : ""}`).join(", ") ||
      "none"
    }`
  );
}

/** 2. No device executed a command more often than the flow asked. */
function noneTwice(rec, log) {
  const out = [];
  const count = new Map();
  const runs = new Map();
  for (const e of log.executed) {
    if (e.other) continue;
    const n = nOf(e.elems, "/fuzz/n");
    const g = nOf(e.elems, "/fuzz/job");
    const key = n !== undefined ? `n${n}` : g !== undefined ? `g${g}@${e.device}` : undefined;
    if (!key) continue;
    count.set(key, (count.get(key) ?? 0) + 1);
    runs.set(key, [...(runs.get(key) ?? []), e]);
  }
  for (const [key, times] of count) {
    let asked = 1;
    if (key.startsWith("g")) {
      const [g, device] = key.slice(1).split("@");
      asked = [...rec.inputs, ...rec.probeInputs].filter(
        (i) => i.kind === "fleet" && String(i.group) === g && i.devices.includes(device),
      ).length;
    }
    if (times > asked)
      out.push({
        invariant: 2,
        text: `${key} executed ${times} times, the flow asked ${asked}${evidence(runs.get(key), log)}`,
      });
  }
  return out;
}

/** The log's marker entries for the events a message carries in msg.markers. */
function takenMarkers(msg, log) {
  const ids = new Set((Array.isArray(msg.markers) ? msg.markers : []).map((e) => String(e?.id)));
  return log.markers.filter((m) => ids.has(String(m.eventId)));
}

/**
 * 3. Every complete or fault output is backed by a marker of that very command: one that names
 * its id and, where the server gave that id to two commands (reuseIds), was written for this one.
 */
function backedByMarker(rec, log, behaviour) {
  const out = [];
  const byRef = behaviour.marker.ref !== "absent";
  for (const o of rec.outputs) {
    if (!/^(a1|sfA|sfB)\.(ok|fault)$/.test(o.sink)) continue;
    const name = o.sink.endsWith(".ok") ? "COMMAND_COMPLETE" : "COMMAND_FAULT";
    const exec = log.executed.find((e) => !e.other && nOf(e.elems, "/fuzz/n") === o.n);
    if (!exec) {
      out.push({
        invariant: 3,
        n: o.n,
        text: `${o.sink} for ${label(rec, o.n)}, whose command the server never executed`,
      });
      continue;
    }
    const taken = takenMarkers(o.msg, log).filter((m) => m.name === name);
    const own = byRef
      ? taken.filter(
          (m) => m.commandId === exec.commandId && (m.exec === undefined || m.exec === exec.exec),
        )
      : taken.filter((m) => m.device === exec.device && m.t >= exec.t);
    if (own.length === 0) {
      const seen = taken.map(
        (m) =>
          `${m.name} naming ${m.commandId}${m.foreign ? " (foreign)" : ""} as ${behaviour.marker.ref}${
            m.exec !== undefined && m.exec !== exec.exec && m.commandId === exec.commandId
              ? `, written for another command the server gave that id (#${m.exec}, executed +${log.executed[m.exec].t - exec.t} ms)`
              : ""
          }`,
      );
      out.push({
        invariant: 3,
        n: o.n,
        text: `${o.sink} for ${label(rec, o.n)} (command ${exec.commandId} on ${exec.device}) is backed by no ${name} of that command; it took: ${seen.join("; ") || "no marker of the log"}`,
      });
    }
  }
  return out;
}

/**
 * How long before a "timed out" its command's marker must have been written for the wait to have
 * had to see it: the await reads the inbox once more after its deadline, and its interval is 50 ms.
 */
const SEEN_BY_MS = 250;

/**
 * How far before its command's date an answer may be dated and still be found: the docs read an
 * inbox back 5 s before the oldest pending command's date, "the skew allowed a command's time"
 * (docs/await.md, Dates). The stamps property draws a device clock 3 s behind and a step of the
 * server's clock 3 s back after its first command: that command's answer is dated 6 s before it,
 * past what any read is promised to reach (seed -187325565, path 10).
 */
const EARLY_PROMISED_MS = 5000;

/**
 * 3 (its other half). No wait ends timed out when its command's own marker was written in good
 * time: in a factory that answer gets the command sent again, and the machine acts twice. Judged
 * where it can be: markers that name their command, and no inbox read faulted in the run. The
 * await's waits and the fleet's device waits alike, whatever the marker's date within the 5 s
 * before its command that the docs promise (EARLY_PROMISED_MS); one dated earlier is judged by
 * the other invariants only (it must not end another command's wait, nor any message twice).
 */
function notTimedOutWhenAnswered(rec, log, behaviour) {
  if (behaviour.marker.ref === "absent") return [];
  if (log.requests.some((r) => r.fault && r.method === "GET")) return [];
  // A server that ignores `start` and lists at most a few events a page shows only its newest few,
  // however it is asked: an answer pushed below them by later events cannot be read by anyone
  // (docs/api-notes.md, paging). Seen on the streams property's servers (seed -210730035).
  if (behaviour.ignoresStart && behaviour.pageCap > 0) return [];
  const out = [];
  // A command's own answer, when its date lies where the docs promise a read finds it.
  const answerOf = (commandId, device) => {
    const m = log.markers.find(
      (m) =>
        !m.foreign &&
        m.commandId === commandId &&
        m.device === device &&
        (m.name === "COMMAND_COMPLETE" || m.name === "COMMAND_FAULT"),
    );
    if (!m) return undefined;
    const exec = log.executed.find((e) => e.commandId === commandId && e.device === device);
    const early = exec?.creationDate !== undefined ? exec.creationDate - m.creationDate : 0;
    return early > EARLY_PROMISED_MS ? undefined : { ...m, early };
  };
  // Its date, when the server wrote it otherwise than its own clock at the time (issue 35).
  const dated = (m) =>
    m.creationDate !== undefined && Math.abs(m.creationDate - m.t) > 0
      ? `, dated ${m.creationDate - m.t} ms off the time it was written` +
        (m.early > 0 ? ` and ${m.early} ms before its command` : "")
      : "";
  for (const o of rec.outputs) {
    if (/^(a1|sfA|sfB)\.late$/.test(o.sink)) {
      const exec = log.executed.find((e) => !e.other && nOf(e.elems, "/fuzz/n") === o.n);
      if (!exec) continue;
      const answer = answerOf(exec.commandId, exec.device);
      if (answer && answer.t <= o.t - SEEN_BY_MS)
        out.push({
          invariant: 3,
          n: o.n,
          text: `${o.sink} for ${label(rec, o.n)} (command ${exec.commandId} on ${exec.device}), though its ${answer.name} was written ${o.t - answer.t} ms before${dated(answer)}`,
        });
    }
    // The fleet's device waits are the same waits (lib/fleet/device-wait.ts): a device reported
    // timed out on output 2 though its command's own answer was written in good time.
    if (o.sink === "f1.each" && o.msg.outcome === "timed-out") {
      const id = o.msg.command?.id;
      if (id === undefined) continue;
      const answer = answerOf(String(id), o.msg.device);
      if (answer && answer.t <= o.t - SEEN_BY_MS)
        out.push({
          invariant: 3,
          n: o.n,
          text: `f1.each timed-out for ${o.msg.device} (command ${id}), though its ${answer.name} was written ${o.t - answer.t} ms before${dated(answer)}`,
        });
    }
  }
  return out;
}

/** 4. Every fleet report matches the log: a device reported complete was sent this job's command. */
function reportsMatch(rec, log, behaviour) {
  const out = [];
  const claimed = new Map();
  for (const o of rec.outputs) {
    if (o.sink !== "f1.report" || !o.msg.payload || !Array.isArray(o.msg.payload.devices)) continue;
    const input = rec.inputs.find((i) => i.n === o.n);
    for (const d of o.msg.payload.devices) {
      if (d.outcome !== "complete" && d.outcome !== "fault") continue;
      const where = `job ${label(rec, o.n)}${o.msg.restored ? " (restored)" : ""}: ${d.device} ${d.outcome} with command ${d.commandId}`;
      // Of two commands the server gave one id (reuseIds), the one with this job's elems.
      const execs = log.executed.filter(
        (e) => e.device === d.device && e.commandId === d.commandId,
      );
      const exec =
        execs.find((e) => input && nOf(e.elems, "/fuzz/job") === input.group) ?? execs[0];
      if (!exec) {
        out.push({ invariant: 4, n: o.n, text: `${where}, which the server never executed on it` });
        continue;
      }
      if (input && nOf(exec.elems, "/fuzz/job") !== input.group)
        out.push({ invariant: 4, n: o.n, text: `${where}, a command of another job's elems` });
      const prior = claimed.get(`${d.device}/${d.commandId}`);
      if (prior !== undefined)
        out.push({ invariant: 4, n: o.n, text: `${where}, already reported by job #${prior}` });
      claimed.set(`${d.device}/${d.commandId}`, o.n);
      const name = d.outcome === "complete" ? "COMMAND_COMPLETE" : "COMMAND_FAULT";
      if (
        behaviour.marker.ref !== "absent" &&
        !log.markers.some(
          (m) => m.commandId === d.commandId && m.name === name && m.device === d.device,
        )
      )
        out.push({
          invariant: 4,
          n: o.n,
          text: `${where}, and no ${name} of that command was written`,
        });
    }
  }
  return out;
}

/** A report's count of each outcome, by the outcome its devices carry. */
const COUNT_OF = {
  complete: "complete",
  fault: "fault",
  "timed-out": "timedOut",
  failed: "failed",
  "not-sent": "notSent",
};

/**
 * 4 (its totals, issue 35). A fleet report's counts are the tally of its own devices' outcomes,
 * and no device it says was never sent (not-sent, or failed and certainly not sent) was run by
 * the server more often than the reports of its job group leave room for.
 */
function reportTotals(rec, log) {
  const out = [];
  const reports = rec.outputs.filter(
    (o) => o.sink === "f1.report" && o.msg.payload && Array.isArray(o.msg.payload.devices),
  );
  for (const o of reports) {
    const p = o.msg.payload;
    const tally = {
      total: p.devices.length,
      complete: 0,
      fault: 0,
      timedOut: 0,
      failed: 0,
      notSent: 0,
    };
    for (const d of p.devices) if (COUNT_OF[d.outcome]) tally[COUNT_OF[d.outcome]]++;
    const wrong = Object.keys(tally).filter((k) => p[k] !== tally[k]);
    if (wrong.length > 0)
      out.push({
        invariant: 4,
        n: o.n,
        text: `job ${label(rec, o.n)}: its report counts ${wrong.map((k) => `${k} ${p[k]}`).join(", ")}, its devices ${wrong.map((k) => `${k} ${tally[k]}`).join(", ")} (${p.devices.map((d) => `${d.device} ${d.outcome}${d.error ? `/${d.error}` : ""}`).join(", ")})`,
      });
  }
  // Per job group and device: the runs the server made against the sends the reports allow.
  const inputs = [...rec.inputs, ...rec.probeInputs].filter((i) => i.kind === "fleet");
  const groups = new Set(inputs.map((i) => i.group));
  for (const g of groups) {
    const jobs = inputs.filter((i) => i.group === g);
    const devices = new Set(jobs.flatMap((i) => i.devices));
    for (const device of devices) {
      const executed = log.executed.filter(
        (e) => !e.other && e.device === device && nOf(e.elems, "/fuzz/job") === g,
      ).length;
      let room = 0;
      for (const job of jobs) {
        if (!job.devices.includes(device)) continue;
        const report = reports.find((o) => o.n === job.n);
        const d = report?.msg.payload.devices.find((x) => x.device === device);
        const surelyNot =
          d !== undefined &&
          !d.mayHaveBeenSent &&
          (d.outcome === "not-sent" || (d.outcome === "failed" && d.commandId === null));
        if (!surelyNot) room++;
      }
      if (executed > room)
        out.push({
          invariant: 4,
          text: `job group ${g}: the server ran ${executed} command(s) on ${device}, and its reports say only ${room} may have been sent`,
        });
    }
  }
  return out;
}

/** 1 (watch). Every event created on the watched stream after the first delivered, delivered once. */
function watchDelivered(rec, log, behaviour) {
  if (rec.watch === undefined) return [];
  const out = [];
  const seen = new Map();
  for (const w of rec.watch) seen.set(String(w.eventId), (seen.get(String(w.eventId)) ?? 0) + 1);
  for (const [id, times] of seen)
    if (times > 1) out.push({ invariant: 1, text: `watch delivered event ${id} ${times} times` });
  const ids = log.telemetry.map((e) => String(e.id));
  const first = ids.findIndex((id) => seen.has(id));
  if (first < 0) {
    // Nothing at all, though events came long after the watch started (rec.watchDueAt: its
    // first read, which fixes where "new" begins, had its whole budget). Named are those events,
    // not the last ones written, which may include events a new watch rightly counts as old.
    // Where its reads were faulted (the capacity property), a new watch's start is its first
    // read that succeeded (docs/watch-events.md): what came before is old to it.
    const telemetryPath = encodeURIComponent("/fuzz/telemetry");
    const firstRead = log.requests.find(
      (r) => r.method === "GET" && r.status === 200 && !r.fault && r.query.includes(telemetryPath),
    );
    const dueAt =
      behaviour?.capacity > 0
        ? Math.max(rec.watchDueAt, (firstRead?.t ?? Infinity) + 250)
        : rec.watchDueAt;
    const due = log.telemetry
      .filter((e) => e.t >= dueAt && e.droppedAt === undefined)
      .map((e) => String(e.id));
    if (due.length > 0)
      out.push({
        invariant: 1,
        text: `watch delivered none of the ${due.length} event(s) created after its first read was due (ids: ${due.slice(0, 5).join(", ")}${due.length > 5 ? ", ..." : ""}; ${ids.length} written in all)`,
      });
    return out;
  }
  // A missed event is the watch's own only when nothing said so: the event delivered after it
  // carries msg.gap (docs/watch-events.md, Gaps: a server that cannot be paged back to the
  // position, one whose capacity dropped events, a read past its bound).
  const gapAt = new Set(rec.watch.filter((w) => w.gap).map((w) => String(w.eventId)));
  const told = (i) => {
    const next = ids.slice(i + 1).find((id) => seen.has(id));
    return next !== undefined && gapAt.has(next);
  };
  const missed = ids.slice(first).filter((id, k) => !seen.has(id) && !told(first + k));
  // A stream with a capacity (the capacity property): a loss is allowed only of an event the
  // stream dropped, and only with msg.gap on the next one; every event still on the stream after
  // the first delivered is delivered, gap or not (docs/watch-events.md, Gaps). Not where pages
  // are capped below what the watch asks: it takes a shorter page as the stream's end, which the
  // docs name (api-notes.md, Paging) and the gap rule above judges.
  if (behaviour?.capacity > 0 && !(behaviour.pageCap > 0)) {
    const dropped = new Set(
      log.telemetry.filter((e) => e.droppedAt !== undefined).map((e) => String(e.id)),
    );
    const kept = ids.slice(first).filter((id) => !seen.has(id) && !dropped.has(id));
    if (kept.length)
      out.push({
        invariant: 1,
        text: `watch never delivered ${kept.length} event(s) the stream (capacity ${behaviour.capacity}) still held (${kept.slice(0, 5).join(", ")}); deploys: ${rec.deploys.map((d) => `${d.type}/${d.target}`).join(", ") || "none"}`,
      });
  }
  if (missed.length)
    out.push({
      invariant: 1,
      text: `watch never delivered ${missed.length} of ${ids.length - first} events after its first (${missed.slice(0, 5).join(", ")}); deploys: ${rec.deploys.map((d) => `${d.type}/${d.target}`).join(", ") || "none"}`,
    });
  return out;
}

/**
 * A command's documented bound after its message left the node before it: the account's request
 * budget, Timeout x (Retries + 1), counted from its arrival (docs/reliability.md), plus the slack
 * a deploy takes on a busy machine.
 */
const wiredBound = (config) => config.account.timeout * (config.account.retries + 1) + 1500;

/**
 * 7 (issue 35). On the wiring flow: the send node on the source's second wire sends what the
 * flow gave it, never the msg the Function node on the first wire changed (each wire its own
 * copy); no command reaches the server later than its bound after the source sent its message,
 * nor for a message sent while a deploy that never started stood; none for a message another
 * package's preDeliver hook blocked; and each message the send node took ends at most once.
 */
function wiringHolds(rec, log, config) {
  if (!config?.wiring) return [];
  const out = [];
  const inputs = new Map(rec.inputs.filter((i) => i.kind === "wired").map((i) => [i.n, i]));
  for (const e of log.executed) {
    if (e.other) continue;
    const mut = nOf(e.elems, "/fuzz/mut");
    if (mut !== undefined)
      out.push({
        invariant: 7,
        n: mut,
        text: `#${mut}: ${e.device} executed the elems the first wire's Function node set (${JSON.stringify(e.elems)}): the send node on the second wire saw a msg another node changed`,
      });
    // A changed msg carries its number in the Function node's elems: judged by the rest too.
    const n = nOf(e.elems, "/fuzz/n") ?? mut;
    const input = inputs.get(n);
    if (!input) continue;
    const late = e.t - input.t;
    if (late > wiredBound(config))
      out.push({
        invariant: 7,
        n,
        text: `#${n}: its command reached the server ${late} ms after the source sent it (bound ${wiredBound(config)} ms)`,
      });
    const broken = (rec.broken ?? []).find((b) => input.t >= b.from && input.t < b.to);
    if (broken)
      out.push({
        invariant: 7,
        n,
        text: `#${n}: sent during a deploy that never started (+${input.t - broken.from} ms into it), its command reached the server ${late} ms later`,
      });
    if (input.policyBlock)
      out.push({
        invariant: 7,
        n,
        text: `#${n}: another package's preDeliver hook blocked it at the send node, and its command reached the server`,
      });
  }
  for (const input of inputs.values()) {
    const ends = rec.outputs.filter(
      (o) => o.n === input.n && (o.sink === "s2.out" || o.sink === "caught"),
    );
    if (ends.length > 1)
      out.push({
        invariant: 1,
        n: input.n,
        text: `the wired send node ended #${input.n} ${ends.length} times: ${ends.map((o) => o.sink).join(", ")}`,
      });
  }
  return out;
}

/**
 * 8 (the subflows property). A message into one instance of a subflow ends at that instance's
 * outputs only: no other instance's output, nor its Catch error, carries it (each instance runs
 * its own send and await nodes, `<instance>-sf.s` and `<instance>-sf.a`).
 */
function subflowsHold(rec) {
  const out = [];
  for (const input of rec.inputs) {
    const own = SUB_ENDS[input.kind];
    if (!own) continue;
    const via = input.kind.slice(3);
    for (const o of rec.outputs) {
      if (o.n !== input.n) continue;
      const sink = Object.entries(SUB_ENDS).find(([, sinks]) => sinks.includes(o.sink));
      if (sink && sink[0] !== input.kind)
        out.push({
          invariant: 8,
          n: input.n,
          text: `#${input.n} went into instance sf${via} and came out of ${o.sink}`,
        });
      const source = o.sink === "caught" ? String(o.msg.error?.source?.id ?? "") : "";
      const from = /^sf([ABC])-/.exec(source);
      if (from && from[1] !== via)
        out.push({
          invariant: 8,
          n: input.n,
          text: `#${input.n} went into instance sf${via}, and ${source} of another instance reported its error`,
        });
    }
  }
  return out;
}

/**
 * 9 (the readers property). The read-only user may list the edge devices tab, and every Cancel
 * it posts is refused by Node-RED's permission check (401) and cancels nothing; that nothing
 * ended `cancelled` without an admin's Cancel is invariant 1's.
 */
function readersRefused(rec) {
  const out = [];
  for (const a of rec.readerAttempts ?? []) {
    if (a.listed !== 200)
      out.push({
        invariant: 9,
        text: `the read-only user's listing of the tab was answered ${a.listed}, not 200`,
      });
    if (a.status !== 401 || (a.cancelled ?? 0) > 0)
      out.push({
        invariant: 9,
        text: `the read-only user's Cancel of ${a.what} was answered ${a.status}${a.cancelled ? ` and cancelled ${a.cancelled}` : ""}, not refused (401)`,
      });
  }
  return out;
}

/** 5 and 6: every node ends a new message; no unhandled rejection. */
function stillUp(rec) {
  const out = [];
  for (const p of rec.probes)
    if (!p.ended)
      out.push({ invariant: 5, text: `${p.what} did not end a new message after the schedule` });
  for (const r of rec.unhandled)
    out.push({ invariant: 6, text: `unhandled rejection: ${String(r?.stack ?? r).slice(0, 300)}` });
  return out;
}

/** Every violation of the run, each {invariant, text, n?}. */
/**
 * 2, across runs: no request of a flow the harness unloaded before this run reached the server
 * (a server with a token per run logs it `stale`, answered 401, not executed). A node of a
 * stopped flow that still sends would be a defect of its own; on the wall clock such a request
 * used to pass for this run's, as every run's probe sends the same command (issue 36).
 */
function noneFromEarlierRuns(log) {
  const stale = log.requests.filter((r) => r.stale !== undefined);
  if (stale.length === 0) return [];
  const t0 = log.startedAt;
  const list = stale.map((r) => `+${r.t - t0}ms ${r.method} ${r.path} (${r.stale})`).join(", ");
  return [
    {
      invariant: 2,
      text: `requests of an earlier run's flow, unloaded before this run, reached the server: ${list}`,
    },
  ];
}

function check(rec, log, behaviour, config) {
  return [
    ...noneFromEarlierRuns(log),
    ...wiringHolds(rec, log, config),
    ...endedOnce(rec, log, behaviour),
    ...restoredAfterDisable(rec),
    ...noneTwice(rec, log),
    ...backedByMarker(rec, log, behaviour),
    ...notTimedOutWhenAnswered(rec, log, behaviour),
    ...reportsMatch(rec, log, behaviour),
    ...reportTotals(rec, log),
    ...watchDelivered(rec, log, behaviour),
    ...subflowsHold(rec),
    ...readersRefused(rec),
    ...stillUp(rec),
  ];
}

module.exports = {
  check,
  END_SINKS,
  endedOnce,
  noneTwice,
  noneFromEarlierRuns,
  backedByMarker,
  notTimedOutWhenAnswered,
  reportsMatch,
  reportTotals,
  watchDelivered,
  stillUp,
  wiringHolds,
};
