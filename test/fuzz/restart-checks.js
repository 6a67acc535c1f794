// What must hold after a schedule of the restart property, judged against the server's own log
// (server.js: each command a device executed, each marker it wrote) and what the flow posted to
// the collector, never against what the nodes say of themselves:
//
// 1. every input ends at most once (an output or an error), and at least once when the server
//    executed its command or no restart came after it; a result delivered by a later Node-RED
//    life than the one that took the input carries msg.restored; every watched event is
//    delivered, once;
// 2. no device executed an input's command more often than the flow asked (once);
// 3. every complete (fault) is backed by a COMPLETE (FAULT) marker of that very command, which is
//    a command of that input, and no two inputs claim one command.
//
// The one exception is a crash (SIGKILL) inside the store's flush window: what a node saved in
// the last flushInterval before it is lost. Then an input may not end (it had not been saved), an
// event may come twice (the watch's position had not been saved), and a device may have executed
// a command twice, but only if that device's output says `mayHaveBeenSent`; an end whose record
// the crash kept (a wait or a job not yet removed on disk) comes again, from the restarted
// Node-RED, with msg.restored.
"use strict";
const { FLUSH_S, SLOW_ANSWER_MS } = require("./restart-world");

/** The nodes whose errors are ends of an input (the others are the harness's own trouble). */
const EDGE_NODES = new Set(["s1", "s2", "h2", "a1", "a2", "f1"]);
/** Around a kill, for clocks read in two places (the test's and the server's: one process). */
const KILL_SLACK_MS = 500;

/**
 * Judges one schedule: `waiting` lists the ends still missing (the caller waits for them, then
 * they are violations too), `violations` what can no longer become right.
 */
function judge(world, record, got) {
  const violations = [];
  const waiting = [];
  const kills = world.lives.filter((l) => l.how === "SIGKILL").map((l) => l.endedAt);
  // What a node saved this long before a kill may not be on disk: the flush interval, a second
  // for the write itself, and the late answer a command may have had before its wait was saved.
  const windowMs = FLUSH_S * 1000 + 1000 + (world.answerFaults > 0 ? SLOW_ANSWER_MS : 0);
  const inCrashWindow = (t) => kills.some((k) => t >= k - windowMs && t <= k + KILL_SLACK_MS);
  const stoppedAfter = (t) => world.lives.some((l) => l.endedAt !== undefined && l.endedAt >= t);
  // A stop (SIGINT) ends the messages still in flight with the process, as the README says: a
  // command whose POST was on its way when the stop came runs, and its message has no end.
  const stops = world.lives.filter((l) => l.how === "SIGINT").map((l) => l.endedAt);
  const inStopWindow = (t) => stops.some((s) => t >= s - windowMs && t <= s);

  // Each as {id, creationDate}: the server's time it executed the command.
  const commandsOf = (device, tag) =>
    record.executed
      .filter((e) => e.device === device && !e.other && e.elems?.["/lcd/txt1"] === tag)
      .map((e) => ({ id: String(e.commandId), creationDate: e.t }));
  const claimed = new Map();
  const claim = (id, who) => {
    if (id === undefined || id === null) return;
    const key = String(id);
    const other = claimed.get(key);
    if (other !== undefined && other !== who)
      violations.push(`${who} and ${other} both claim command ${key}`);
    claimed.set(key, who);
  };
  /** A complete or fault of `who` for command `id` on `device`: a command of its own, a marker. */
  const backed = (who, device, tag, outcome, id) => {
    const status = outcome === "complete" ? "COMMAND_COMPLETE" : "COMMAND_FAULT";
    if (id === undefined || id === null) {
      violations.push(`${who}: ${outcome} on ${device} names no command`);
      return;
    }
    if (!commandsOf(device, tag).some((e) => e.id === String(id)))
      violations.push(`${who}: ${outcome} with command ${id}, not a command of its own`);
    const marked = record.markers.some(
      (m) => m.device === device && m.name === status && !m.foreign && m.commandId === String(id),
    );
    if (!marked)
      violations.push(`${who}: ${outcome} of command ${id} without a ${status} marker of it`);
    claim(id, who);
  };
  // Each command but the last was sent before a crash that left it unsaved.
  const resentByCrash = (cmds) => cmds.slice(0, -1).every((c) => inCrashWindow(c.creationDate));
  const errorsOf = (tag) => got["/error"].filter((e) => e.tag === tag && EDGE_NODES.has(e.source));
  // An end that a crash came too soon after to flush its record (the wait or the job still saved)
  // comes again from the restarted Node-RED, which says it resumed: not a second end of its own.
  const repeatedByCrash = (ends, restoredFlag = true) => {
    const [first, ...later] = ends.slice().sort((a, b) => a.at - b.at);
    return (
      inCrashWindow(first.at) &&
      later.every((e) => e.life > first.life && (!restoredFlag || e.restored === true))
    );
  };

  for (const input of world.inputs) {
    const { tag } = input;
    const errors = errorsOf(tag);
    if (input.kind === "fleet") {
      const reports = got["/report"].filter((r) => r.tag === tag);
      const ends = reports.length + errors.length;
      if (ends > 1 && !repeatedByCrash([...reports, ...errors]))
        violations.push(`${tag} ended ${ends} times`);
      // The job's record is saved when it starts, before its first send; a job that sent
      // nothing may have been waiting behind another one, or still on its way through the
      // flow, when a stop came: such messages end with done() and no output (docs/reliability.md).
      const firstSend = Math.min(
        ...input.devices.flatMap((d) => commandsOf(d, tag).map((c) => c.creationDate)),
      );
      const excused = firstSend === Infinity ? stoppedAfter(input.at) : inCrashWindow(firstSend);
      if (ends === 0 && !excused)
        waiting.push(`${tag} (fleet job of ${input.devices.join(",")}) never ended`);
      const [report] = reports;
      if (report && report.life > input.life && !report.restored)
        violations.push(`${tag}: report of a restarted job without msg.restored`);
      for (const device of input.devices) {
        const cmds = commandsOf(device, tag);
        const said = got["/device"].filter((m) => m.tag === tag && m.device === device);
        // A device's message has no msg.restored: the life it came from tells.
        if (said.length > 1 && !repeatedByCrash(said, false))
          violations.push(`${tag}: ${said.length} messages for ${device}`);
        const entries = (report?.devices ?? []).filter((d) => d.device === device);
        if (report && entries.length !== 1)
          violations.push(`${tag}: ${entries.length} report entries for ${device}`);
        const entry = entries[0];
        const may = said.some((m) => m.may) || entry?.mayHaveBeenSent === true;
        if (cmds.length > 1 && !(resentByCrash(cmds) && may))
          violations.push(
            `${tag}: ${device} executed the job's command ${cmds.length} times ` +
              `(${cmds.map((c) => c.id).join(", ")}), the flow asked once` +
              (resentByCrash(cmds) ? ", a crash in the flush window, and no mayHaveBeenSent" : ""),
          );
        if (entry && (entry.outcome === "complete" || entry.outcome === "fault"))
          backed(`${tag}/${device}`, device, tag, entry.outcome, entry.commandId);
      }
      continue;
    }
    const [device] = input.devices;
    const cmds = commandsOf(device, tag);
    const outs = got["/out"].filter((o) => o.tag === tag);
    const ends = outs.length + errors.length;
    if (ends > 1 && !repeatedByCrash([...outs, ...errors]))
      violations.push(`${tag} ended ${ends} times`);
    if (cmds.length > 1 && !(resentByCrash(cmds) && outs.some((o) => o.may)))
      violations.push(
        `${tag}: ${device} executed its command ${cmds.length} times, the flow asked once`,
      );
    if (ends === 0) {
      // A message whose command never reached the server may be dropped by a stop (it ends
      // with done() at close); one that the server executed must end, unless a crash came before
      // its wait was flushed or a stop while its POST was on its way.
      const t = cmds[0]?.creationDate;
      if (cmds.length > 0 && !inCrashWindow(t) && !inStopWindow(t))
        waiting.push(`${tag} (${input.kind} to ${device}): executed by ${device}, never ended`);
      if (cmds.length === 0 && !stoppedAfter(input.at))
        waiting.push(`${tag} (${input.kind} to ${device}): never sent, never ended`);
    }
    for (const out of outs) {
      if (out.life > input.life && !out.restored)
        violations.push(`${tag}: output in Node-RED life ${out.life} without msg.restored`);
      if (out.output === 0) backed(tag, device, tag, "complete", out.id);
      if (out.output === 1) backed(tag, device, tag, "fault", out.id);
    }
  }

  for (const e of got["/error"])
    if (!EDGE_NODES.has(e.source)) violations.push(`harness error: ${JSON.stringify(e)}`);

  const deliveries = new Map();
  for (const d of got["/event"]) {
    const list = deliveries.get(d.id) ?? [];
    list.push(d);
    deliveries.set(d.id, list);
  }
  world.events.forEach(({ id }, n) => {
    const list = deliveries.get(id) ?? [];
    if (list.length === 0) waiting.push(`event ${id} (the ${n + 1}th) never delivered`);
    if (list.length > 1 && !inCrashWindow(list[0].at))
      violations.push(`event ${id} (the ${n + 1}th) delivered ${list.length} times`);
  });
  return { violations, waiting };
}

module.exports = { judge };
