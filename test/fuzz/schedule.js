// One schedule of the harness: the steps fast-check draws (fc.commands), run against the real
// nodes in the test helper's Node-RED and the fuzz server; then the settle (every message given
// its documented bound to end), the probes (every node takes and ends a new message) and the
// invariants. A run throws an Error that lists every violation.
"use strict";
const fc = require("fast-check");
const { helper, flowOf, load, unload, redeploy, blocked, READER_TOKEN } = require("./flow");
const { check } = require("./invariants");

const { Pause, sleep } = require("./pause");

/** The request budget of the account: Timeout x (Retries + 1) (docs/reliability.md). */
const budgetOf = (config) => config.account.timeout * (config.account.retries + 1);
/** How long the watch property's schedules run at least. */
const WATCH_MIN_MS = 700;
/** Time a deploy may take on a busy machine: slack added to every bound, not a speed claim. */
const SLACK_MS = 1500;
/**
 * How much longer than its bound a message may take to end before the harness calls it lost. The
 * bounds are the documented ones; on a shared two-CPU machine at a load of 20, timers fire seconds
 * late and a full deploy takes seconds, so a message that ends after its bound there has not been
 * lost (seed 801 path 27 ended 2-3 s late at that load, every time, and on time when idle). Speed
 * is the bench's to show, never a test's to assert; a settle stops as soon as every message ended,
 * so the grace costs nothing when they do.
 */
const GRACE_MS = 10000;
/**
 * An await's longest end (docs/await.md, Timeouts): the send's budget, the await's Timeout, then
 * its final read and at most three more, an Interval apart (a poll is one attempt, no retries).
 */
const commandBound = (c) => budgetOf(c) + c.awaitTimeout + 4 * (50 + c.account.timeout) + SLACK_MS;
/**
 * A fleet job's longest end: its devices in turns of In flight, each a send (and, resumed, one
 * look-up in its :command stream), its Timeout and the final reads; starts paced by Rate.
 */
function fleetBound(c, devices) {
  const starts = c.fleet.rate > 0 ? Math.ceil(devices / c.fleet.rate) * 1000 : 0;
  const turn = budgetOf(c) * 2 + c.fleet.timeout + 4 * (50 + c.account.timeout);
  return starts + Math.ceil(devices / c.fleet.concurrency) * turn + SLACK_MS;
}

/** The input of a step, tagged so that its ends, its command and its marker can be found. */
function give(ctx, nodeId, input, msg) {
  const n = ++ctx.n;
  const record = { n, t: Date.now(), ...input };
  (input.probe ? ctx.rec.probeInputs : ctx.rec.inputs).push(record);
  const node = helper.getNode(nodeId);
  const m = typeof msg === "function" ? msg(n) : msg;
  // The wiring flow's source, stopped by a full deploy: the message has nowhere to start.
  if (!node && input.kind === "wired") {
    ctx.rec.inputs.pop();
    ctx.n--;
    return record;
  }
  node.receive({ ...m, fuzz: { n, shape: input.shape } });
  return record;
}

/**
 * A command through send → Function node → await; with `deploy` ({type, afterMs}), a deploy that
 * restarts the await node once the server ran the command and `afterMs` more passed: while the
 * wait is pending, when the device answers slower than that.
 */
class SendCommand {
  constructor(device, shape, fault, deploy = null) {
    Object.assign(this, { device, shape, fault, deploy });
  }
  check() {
    return true;
  }
  async run(m, ctx) {
    m.sent++;
    const device = `dev${this.device}`;
    const bound = Date.now() + commandBound(ctx.config);
    const n = ctx.n + 1;
    const payload = { "/fuzz/n": n, ...(this.fault ? { "/fault": true } : {}) };
    give(
      ctx,
      "s1",
      { kind: "command", device, shape: this.shape, bound },
      { deviceId: device, payload },
    );
    const d = this.deploy;
    if (!d || m.deploys >= 3) return;
    const ran = () => ctx.server.log.executed.some((e) => e.elems["/fuzz/n"] === n);
    await settle(ran, Date.now() + 1000);
    await sleep(d.afterMs);
    await new Deploy(d.type, "a1").run(m, ctx);
  }
  toString() {
    const d = this.deploy;
    const then = d ? `,deploy(${d.type},a1)+${d.afterMs}ms` : "";
    return `send(dev${this.device},${this.shape}${this.fault ? ",fault" : ""}${then})`;
  }
}

/**
 * A command into the subflows property's subflow (flow.js, subflowNodes): through instance sfA
 * (`via` "A"), through a link out and in to sfB ("B"), or through a link call to sfC ("C").
 */
class SubSend {
  constructor(via, device, fault) {
    Object.assign(this, { via, device, fault });
  }
  check() {
    return true;
  }
  async run(m, ctx) {
    m.sent++;
    const device = `dev${this.device}`;
    const n = ctx.n + 1;
    const payload = { "/fuzz/n": n, ...(this.fault ? { "/fault": true } : {}) };
    give(
      ctx,
      `in${this.via}`,
      { kind: `sub${this.via}`, device, bound: Date.now() + commandBound(ctx.config) },
      { deviceId: device, payload },
    );
  }
  toString() {
    return `subSend(${this.via},dev${this.device}${this.fault ? ",fault" : ""})`;
  }
}

class Merge {
  constructor(device) {
    this.device = device;
  }
  check() {
    return true;
  }
  async run(_m, ctx) {
    const device = `dev${this.device}`;
    ctx.merges++;
    const bound = Date.now() + budgetOf(ctx.config) * 2 * ctx.merges + SLACK_MS;
    give(
      ctx,
      "m1",
      { kind: "merge", device, bound },
      { deviceId: device, payload: { "/lcd/txt1": `m${ctx.n}` } },
    );
  }
  toString() {
    return `merge(dev${this.device})`;
  }
}

class List {
  constructor(device) {
    this.device = device;
  }
  check() {
    return true;
  }
  async run(_m, ctx) {
    const streamId = `/${ctx.server.company}/devices/dev${this.device}/:command`;
    const bound = Date.now() + budgetOf(ctx.config) + SLACK_MS;
    give(ctx, "l1", { kind: "list", bound }, { streamId, limit: 5, start: 1 });
  }
  toString() {
    return `list(dev${this.device})`;
  }
}

/**
 * One fleet job, or two identical ones back to back; with `deploy` ({type, target, at}), a deploy
 * once the server has run `at` eighths of their commands (and one): mid-rollout, the moment a
 * resumed job must tell its own commands from the other job's.
 */
class Fleet {
  constructor(devices, twice, deploy = null) {
    Object.assign(this, { devices, twice, deploy });
  }
  // One step a schedule: at the tight rate limit a step of two jobs of 4 devices takes one to
  // three seconds, and two of them kept 50 schedules at 90 s, over the CI budget.
  check(m) {
    return m.fleets < 1;
  }
  async run(m, ctx) {
    m.fleets++;
    m.sent++;
    const group = ++ctx.group;
    const devices = this.devices.map((d) => `dev${d}`);
    for (let i = 0; i < (this.twice ? 2 : 1); i++) {
      // Jobs run one at a time per node: a job's bound starts where the one before it may end.
      ctx.fleetEnd = Math.max(ctx.fleetEnd, Date.now()) + fleetBound(ctx.config, devices.length);
      give(
        ctx,
        "f1",
        { kind: "fleet", devices, group, bound: ctx.fleetEnd },
        { devices, payload: { "/fuzz/job": group } },
      );
    }
    const d = this.deploy;
    // `at` eighths of the way through the jobs' commands: with two jobs, half the deploys land
    // while the second one sends.
    const k = 1 + Math.floor(((d?.at ?? 0) * devices.length * (this.twice ? 2 : 1)) / 8);
    if (d && m.deploys < 3) await new DeployAfter(d.type, d.target, k).run(m, ctx);
  }
  toString() {
    const d = this.deploy;
    const then = d ? `,deployAt(${d.at}/8,${d.type},${d.target})` : "";
    return `fleet([${this.devices}]${this.twice ? ",twice" : ""}${then})`;
  }
}

class Cancel {
  check(m) {
    return m.fleets > 0;
  }
  async run(_m, _ctx) {
    helper.getNode("f1").receive({ cancel: true });
  }
  toString() {
    return "cancel";
  }
}

/**
 * A Cancel in the editor's "edge devices" tab by an admin (issue 35, section 1, People), `afterMs`
 * after the step before: through the admin route the tab calls (POST
 * /edge-account/sidebar/cancel; the test helper's runtime has no adminAuth, so every call is an
 * admin's). `what` is "oldest" (the oldest pending wait's row), "dev<n>" (all of a device's
 * waits) or "job" (the fleet job listed running). What it cancelled goes into rec.tabCancels.
 */
class TabCancel {
  constructor(what, afterMs) {
    Object.assign(this, { what, afterMs });
  }
  check() {
    return true;
  }
  async run(_m, ctx) {
    await sleep(this.afterMs);
    const t = Date.now();
    const shown = await helper.request().get("/edge-account/sidebar");
    const account = shown.body?.accounts?.find((a) => a.id === "acc");
    let body;
    if (this.what === "job") {
      const row = account?.jobs?.rows.find((r) => r.state === "running");
      if (row) body = { job: row.id };
    } else if (this.what === "oldest") {
      const row = account?.pending?.devices[0]?.rows[0];
      if (row) body = { wait: row.id };
    } else body = { device: this.what };
    if (!body) {
      ctx.rec.tabCancels.push({ t, what: this.what, cancelled: 0 });
      return;
    }
    const res = await helper
      .request()
      .post("/edge-account/sidebar/cancel")
      .set("content-type", "application/json")
      .send({ account: "acc", ...body });
    ctx.rec.tabCancels.push({ t, what: this.what, cancelled: res.body?.cancelled ?? 0 });
  }
  toString() {
    return `tabCancel(${this.what}${this.afterMs ? `,+${this.afterMs}ms` : ""})`;
  }
}

/**
 * The read-only user's attempt at a Cancel in the edge devices tab (issue 35, section 1, People;
 * the readers property): it lists the tab (which it may) and posts the Cancel the tab would, of
 * the oldest wait's row, a device's waits or the running fleet job, with its own bearer token
 * (flow.js: a runtime with adminAuth). Node-RED must refuse it (401) before the route runs, and
 * nothing may end `cancelled`. Each attempt goes into rec.readerAttempts with the answer.
 */
class ReaderCancel {
  constructor(what, afterMs) {
    Object.assign(this, { what, afterMs });
  }
  check() {
    return true;
  }
  async run(_m, ctx) {
    await sleep(this.afterMs);
    const t = Date.now();
    const bearer = `Bearer ${READER_TOKEN}`;
    const shown = await helper.request().get("/edge-account/sidebar").set("authorization", bearer);
    const account = shown.body?.accounts?.find((a) => a.id === "acc");
    let body = { device: this.what };
    if (this.what === "job")
      body = { job: account?.jobs?.rows.find((r) => r.state === "running")?.id ?? "none" };
    else if (this.what === "oldest")
      body = { wait: account?.pending?.devices[0]?.rows[0]?.id ?? "none" };
    const res = await helper
      .request()
      .post("/edge-account/sidebar/cancel")
      .set("authorization", bearer)
      .set("content-type", "application/json")
      .send({ account: "acc", ...body });
    ctx.rec.readerAttempts.push({
      t,
      what: this.what,
      listed: shown.status,
      status: res.status,
      cancelled: res.body?.cancelled,
    });
  }
  toString() {
    return `readerCancel(${this.what}${this.afterMs ? `,+${this.afterMs}ms` : ""})`;
  }
}

class Deploy {
  constructor(type, target) {
    Object.assign(this, { type, target });
  }
  check(m) {
    return m.deploys < 3;
  }
  async run(m, ctx) {
    m.deploys++;
    if (this.target !== "none") ctx.names[this.target] = `${this.target}-${m.deploys}`;
    ctx.flow = flowOf(ctx.server, ctx.config, ctx.names);
    ctx.rec.deploys.push({ t: Date.now(), type: this.type, target: this.target });
    await redeploy(ctx.flow, this.type, ctx.recorder);
    endBroken(ctx);
  }
  toString() {
    return `deploy(${this.type},${this.target})`;
  }
}

/** Ends the window of a deploy that never started, once a later deploy started the flows. */
function endBroken(ctx) {
  const open = ctx.rec.broken.find((b) => b.to === Infinity);
  if (open) open.to = Date.now();
}

/**
 * A deploy that never starts (issue 35, item 2): it restarts `target` and adds a node of a type
 * no package installed, so Node-RED stops the changed nodes and waits for that type ("deploy
 * anyway"). `holdMs` later the user deploys the flow without it (the fix), of type `fixType`.
 * Messages keep coming meanwhile (the wiring flow's writer).
 */
class BrokenDeploy {
  constructor(type, target, holdMs, fixType) {
    Object.assign(this, { type, target, holdMs, fixType });
  }
  check(m) {
    return m.deploys < 2;
  }
  async run(m, ctx) {
    m.deploys += 2;
    ctx.names[this.target] = `${this.target}-${m.deploys}`;
    const broken = { from: Date.now(), to: Infinity };
    ctx.rec.broken.push(broken);
    ctx.rec.deploys.push({ t: Date.now(), type: this.type, target: this.target, broken: true });
    await redeploy(flowOf(ctx.server, ctx.config, ctx.names, true), this.type, ctx.recorder);
    await sleep(this.holdMs);
    ctx.flow = flowOf(ctx.server, ctx.config, ctx.names);
    ctx.rec.deploys.push({ t: Date.now(), type: this.fixType, target: "missing1" });
    await redeploy(ctx.flow, this.fixType, ctx.recorder);
    endBroken(ctx);
  }
  toString() {
    return `brokenDeploy(${this.type},${this.target},${this.holdMs}ms,fix:${this.fixType})`;
  }
}

/**
 * A deploy that disables the tab (`target` "tab") or one node (`d: true`), once the server has
 * executed `k` more commands of the flow (at most 1 s), and `holdMs` later the deploy that
 * enables it again, both of `type` (issue 35, item 5). Node-RED closes a disabled node with
 * `removed` as if it were deleted; what was pending in it must resume once it is enabled again,
 * and end then with msg.restored. While the tab is disabled its helper nodes are too: nothing
 * can end meanwhile, so every bound still open is moved on by the time it stood disabled.
 */
class DisableDeploy {
  constructor(target, type, holdMs, k) {
    Object.assign(this, { target, type, holdMs, k });
  }
  check(m) {
    return m.sent > 0 && m.deploys < 2;
  }
  async run(m, ctx) {
    m.deploys += 2;
    const count = () => ctx.server.log.executed.filter((e) => !e.other).length;
    const goal = count() + this.k;
    await settle(() => count() >= goal, Date.now() + 1000);
    const from = Date.now();
    const target = `disable:${this.target}`;
    ctx.rec.deploys.push({ t: from, type: this.type, target });
    await redeploy(
      flowOf(ctx.server, ctx.config, ctx.names, false, this.target),
      this.type,
      ctx.recorder,
    );
    await sleep(this.holdMs);
    const enabledAt = Date.now();
    ctx.rec.deploys.push({ t: enabledAt, type: this.type, target: `enable:${this.target}` });
    ctx.flow = flowOf(ctx.server, ctx.config, ctx.names);
    await redeploy(ctx.flow, this.type, ctx.recorder);
    const to = Date.now();
    ctx.rec.disables.push({ from, to, target: this.target });
    const stood = to - from;
    for (const input of ctx.rec.inputs) if (input.bound > from) input.bound += stood;
    if (ctx.fleetEnd > from) ctx.fleetEnd += stood;
  }
  toString() {
    return `disableDeploy(${this.target},${this.type},${this.holdMs}ms,after:${this.k})`;
  }
}

/**
 * The wiring flow's source gets a message every `everyMs` (at most 60): dev0 to dev3 in turn,
 * every `blockEvery`-th one flagged for another package's policy hook (flow.js).
 */
function startWiring(ctx) {
  const { everyMs, blockEvery } = ctx.config.wiring;
  let given = 0;
  const timer = setInterval(() => {
    if (given++ >= 60) return;
    const n = ctx.n + 1;
    const policyBlock = n % blockEvery === 0;
    const device = `dev${n % 4}`;
    const bound = Date.now() + budgetOf(ctx.config) + SLACK_MS;
    give(
      ctx,
      "src",
      { kind: "wired", device, policyBlock, bound },
      { deviceId: device, payload: { "/fuzz/n": n }, ...(policyBlock ? { policyBlock } : {}) },
    );
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * A deploy at a moment of the server's progress rather than of the clock: once it has executed
 * `k` more commands of the flow (at most 1 s), so that a deploy lands mid-rollout as often as not.
 */
class DeployAfter extends Deploy {
  constructor(type, target, k) {
    super(type, target);
    this.k = k;
  }
  async run(m, ctx) {
    const count = () => ctx.server.log.executed.filter((e) => !e.other).length;
    const goal = count() + this.k;
    await settle(() => count() >= goal, Date.now() + 1000);
    await super.run(m, ctx);
  }
  check(m) {
    return m.sent > 0 && super.check(m);
  }
  toString() {
    return `deployAfter(${this.k},${this.type},${this.target})`;
  }
}

class Fault {
  constructor(spec) {
    this.spec = spec;
  }
  check() {
    return true;
  }
  async run(_m, ctx) {
    ctx.server.fault(this.spec);
  }
  toString() {
    const s = this.spec;
    return `fault(${s.match},${s.kind}${s.kind === "late" ? `:${s.delayMs}` : ""}${/^(429|503)$/.test(s.kind) ? `:${s.retryAfter}` : ""})`;
  }
}

/** The same command sent by a flow of another runtime, straight to the server. */
class Other {
  constructor(device) {
    this.device = device;
  }
  check() {
    return true;
  }
  async run(_m, ctx) {
    const elems = ctx.group > 0 ? { "/fuzz/job": ctx.group } : { "/lcd/txt1": "other" };
    await ctx.server.otherCommand(`dev${this.device}`, elems);
  }
  toString() {
    return `other(dev${this.device})`;
  }
}

/**
 * Two or more steps run as one, in order: a fault queued for the very request the next step makes
 * (the gateway property's fault on the POST of the send right after it), which steps drawn apart
 * reach only when nothing else takes the fault first.
 */
class Together {
  constructor(...parts) {
    this.parts = parts;
  }
  check(m) {
    return this.parts.every((p) => p.check(m));
  }
  async run(m, ctx) {
    for (const p of this.parts) await p.run(m, ctx);
  }
  toString() {
    return this.parts.map(String).join("+");
  }
}

/** The watch node's Interval in the harness's flows (flow.js). */
const WATCH_INTERVAL_MS = 250;
/**
 * The longest Retry-After that the capacity property's faults on a watch's read ask (behindArb:
 * zero, small "1", a date 1 s on; server.js). Other properties' faults can ask more; the bound
 * below only ever lengthens the settle, so there it is at worst no longer than before.
 */
const WATCH_RETRY_AFTER_MS = 1000;

/**
 * When the watch reads again at the latest after the faulted reads that ended the schedule, as
 * docs/watch-events.md (Failures) promises: n failed reads in a row put the next one an Interval
 * plus 1, 2, 4 ... Intervals (n - 1 doublings, at most a minute) or the Retry-After, whichever is
 * longer, after the last one was due. The run of faulted telemetry reads at the end of the
 * server's log bounds n from above (a late answer inside the Timeout is a success; a client retry
 * is a request of its own), so this is never earlier than the watch's own next read. No faulted
 * read at the end: -Infinity. Found by the capacity property (seeds 251, 260, 263): four failed
 * reads in a row put the next read 2.25 s after the fourth, past the settle's former fixed
 * window, and the events the stream still held were counted as never delivered, though the
 * watch's next read delivered every one (the first with msg.gap).
 */
function watchRetryBound(log) {
  const telemetry = encodeURIComponent("/fuzz/telemetry");
  const reads = log.requests.filter(
    (r) => r.method === "GET" && !r.other && r.query.includes(telemetry),
  );
  let n = 0;
  while (n < reads.length && reads[reads.length - 1 - n].fault !== undefined) n++;
  if (n === 0) return -Infinity;
  const backoff = Math.min(WATCH_INTERVAL_MS * 2 ** (n - 1), 60_000);
  return reads[reads.length - 1].t + WATCH_INTERVAL_MS + Math.max(backoff, WATCH_RETRY_AFTER_MS);
}

/** Waits until `done()` or `until` (a time, or a function giving it anew), looking every 20 ms. */
async function settle(done, until) {
  const end = typeof until === "function" ? until : () => until;
  while (!done() && Date.now() < end()) await sleep(20);
}

/** Whether message `n` ended: its end reached a helper node, or Node-RED dropped it (flow.js). */
const endedAt = (ctx, n) =>
  [...ctx.rec.outputs, ...ctx.rec.dropped.filter((d) => d.sentBefore)].some(
    (o) => o.n === n && o.sink !== "f1.each" && o.sink !== "w1.out",
  );

/** After the schedule: every node takes and ends a new message within its bound (invariant 5). */
async function probe(ctx) {
  ctx.server.clearFaults();
  const c = ctx.config;
  const probes = [
    [
      "edge-send-command → edge-await-command",
      "s1",
      { kind: "command", probe: true, shape: "full" },
      (n) => ({ deviceId: "dev0", payload: { "/fuzz/n": n } }),
      commandBound(c),
    ],
    [
      "edge-device-state",
      "m1",
      { kind: "merge", probe: true },
      { deviceId: "dev0", payload: { "/probe": 1 } },
      budgetOf(c) * 2 + SLACK_MS,
    ],
    [
      "edge-list-events",
      "l1",
      { kind: "list", probe: true },
      { streamId: `/${ctx.server.company}/devices/dev0/:inbox` },
      budgetOf(c) + SLACK_MS,
    ],
    [
      "edge-fleet-command",
      "f1",
      { kind: "fleet", probe: true, devices: ["dev0"], group: 0 },
      { devices: ["dev0"], payload: { "/fuzz/job": 0 } },
      fleetBound(c, 1),
    ],
  ];
  const given = probes.map(([what, id, input, msg, bound]) => ({
    what,
    bound: Date.now() + bound,
    n: give(ctx, id, input, msg).n,
  }));
  await settle(
    () => given.every((g) => endedAt(ctx, g.n)),
    Math.max(...given.map((g) => g.bound)) + GRACE_MS,
  );
  for (const g of given) ctx.rec.probes.push({ what: g.what, ended: endedAt(ctx, g.n) });
}

/**
 * Runs one schedule: `server` (test/fuzz/server.js) reset with `behaviour`, the flow of `config`
 * loaded, the `cmds` run; throws when an invariant does not hold.
 */
async function runSchedule(server, { behaviour, config }, cmds) {
  server.reset(behaviour, { deviceCount: 6 });
  const rec = {
    inputs: [],
    probeInputs: [],
    outputs: [],
    dropped: [],
    deploys: [],
    broken: [],
    disables: [],
    probes: [],
    unhandled: [],
    tabCancels: [],
    readerAttempts: [],
  };
  if (config.watch) rec.watch = [];
  // What the flow put out, for a reader after the run (the simulation's determinism proof).
  server.lastRecord = rec;
  const recorder = (sink, msg, drop) => {
    if (drop) {
      // Lost by Node-RED on its way to a node a deploy stopped (flow.js): a helper node, or
      // (midway) a node between the input and its end.
      rec.dropped.push({
        sink,
        n: msg.fuzz?.n,
        t: Date.now(),
        sentBefore: drop.sentBefore,
        midway: drop.midway === true,
        msg,
      });
      return;
    }
    const code = sink === "caught" ? (msg.edgeError?.code ?? msg.error?.code) : undefined;
    rec.outputs.push({ sink, n: msg.fuzz?.n, t: Date.now(), msg, code });
    if (sink === "w1.out")
      rec.watch.push({ eventId: msg.eventId, t: Date.now(), gap: msg.gap === true });
  };
  const ctx = { server, config, rec, recorder, names: {}, n: 0, group: 0, merges: 0, fleetEnd: 0 };
  const onUnhandled = (reason) => rec.unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  let writer;
  let stopWiring = () => {};
  try {
    ctx.flow = flowOf(server, config, ctx.names);
    await load(ctx.flow, recorder, { readers: config.readers === true });
    ctx.loadedAt = Date.now();
    // Its first read (at once) fixes where "new" starts: what comes a read and a budget later is new.
    rec.watchDueAt = ctx.loadedAt + 250 + budgetOf(config);
    if (config.watch) {
      let written = 0;
      // A stream with a capacity keeps getting events until its watch, held back by faults on
      // its reads, has read it (below): more of them, still bounded.
      const most = behaviour.capacity > 0 ? 300 : 100;
      writer = setInterval(() => written++ < most && server.telemetry(), config.watchEveryMs);
    }
    if (config.wiring) stopWiring = startWiring(ctx);
    const t0 = Date.now();
    await fc.asyncModelRun(() => ({ model: { deploys: 0, fleets: 0, sent: 0 }, real: ctx }), cmds);
    // A watch reads every 250 ms: give it a few reads of the events written meanwhile, and at
    // least two events after its first read was due, without which a watch that delivers nothing
    // at all goes unseen (invariants.js counts only those).
    if (config.watch) {
      const until = Math.max(ctx.loadedAt + WATCH_MIN_MS, rec.watchDueAt + 2 * config.watchEveryMs);
      await sleep(Math.max(0, until - Date.now()));
      // Held back by faults on its reads (the capacity property), a new watch takes its start
      // from its first read that succeeds: the stream goes on until then, and two reads more.
      if (behaviour.capacity > 0) {
        await settle(() => rec.watch.length > 0, Date.now() + 8000);
        await sleep(2 * 250 + 2 * config.watchEveryMs);
      }
    }
    clearInterval(writer);
    stopWiring();
    const last = Math.max(0, ...rec.inputs.map((i) => i.bound));
    await settle(() => rec.inputs.every((i) => endedAt(ctx, i.n)), last + GRACE_MS);
    if (config.watch) {
      // An event the stream dropped (its capacity, when drawn) is never there to deliver.
      const ids = server.log.telemetry
        .filter((e) => e.droppedAt === undefined)
        .map((e) => String(e.id));
      // Done when every event from the first delivered on has come (nothing at all: the bound).
      const caughtUp = () => {
        const delivered = new Set(rec.watch.map((w) => String(w.eventId)));
        const first = ids.findIndex((id) => delivered.has(id));
        return first >= 0 && ids.slice(first).every((id) => delivered.has(id));
      };
      // A few reads from now, or from the watch's next read after the faulted reads that end the
      // server's log, when later: the watch backs off as documented, and an event it never had a
      // read to deliver is not one it lost (watchRetryBound). Asked anew while settling, since
      // faults queued by the steps can still meet reads made meanwhile.
      const from = Date.now();
      const until = () =>
        Math.max(from, watchRetryBound(server.log)) +
        4 * WATCH_INTERVAL_MS +
        budgetOf(config) +
        SLACK_MS;
      await settle(caughtUp, until);
    }
    // A second end of a message, if any, comes soon after its first.
    await sleep(50);
    const t1 = Date.now();
    await probe(ctx);
    if (process.env.FUZZ_DEBUG)
      console.log(
        `steps+settle ${t1 - t0} ms, probe ${Date.now() - t1} ms, ${String(cmds)}` +
          (rec.dropped.length > 0
            ? ` dropped by Node-RED: ${rec.dropped.map((d) => `${d.sink}#${d.n}${d.sentBefore ? "" : " (sent after the deploy began)"}`).join(", ")}`
            : "") +
          (rec.watch
            ? ` watch ${rec.watch.length}/${server.log.telemetry.length} ${JSON.stringify(behaviour)} ${JSON.stringify(rec.outputs.filter((o) => o.sink === "caught").map((o) => o.msg.error?.message))}`
            : ""),
      );
  } finally {
    clearInterval(writer);
    stopWiring();
    process.off("unhandledRejection", onUnhandled);
    // FUZZ_DEBUG=2 also prints Node-RED's warnings and errors of the run, for a replay.
    if (process.env.FUZZ_DEBUG === "2")
      for (const call of helper._logSpy?.getCalls() ?? []) {
        const entry = call.args[0];
        if (entry?.level <= 30)
          console.log(`  log ${entry.level}: ${entry.type}:${entry.id} ${entry.msg}`);
      }
    await unload();
  }
  for (const input of rec.inputs)
    if (input.kind === "wired") input.blocked = blocked.includes(input.n);
  const violations = check(rec, server.log, server.behaviour, config);
  // FUZZ_DUMP=1 prints the watched stream of a replay: each event with when it was written
  // (and dropped, xT), what the watch delivered when (G: msg.gap), and its reads.
  if (process.env.FUZZ_DUMP) {
    const by = {};
    for (const o of rec.outputs) by[o.sink] = (by[o.sink] ?? 0) + 1;
    console.log(`outputs by sink: ${JSON.stringify(by)}; ${String(cmds)}`);
  }
  if (process.env.FUZZ_DUMP && rec.watch) {
    const t0 = server.log.startedAt;
    console.log(
      "telemetry:",
      server.log.telemetry
        .map((e) => `${e.id}@${e.t - t0}${e.droppedAt !== undefined ? `x${e.droppedAt - t0}` : ""}`)
        .join(" "),
    );
    console.log(
      "watch:",
      rec.watch.map((w) => `${w.eventId}@${w.t - t0}${w.gap ? "G" : ""}`).join(" "),
    );
    console.log(
      "reads:",
      server.log.requests
        .filter((r) => r.query.includes("telemetry"))
        .map(
          (r) =>
            `${r.t - t0}:${r.status}${r.fault ? r.fault : ""}${r.query.replace(/.*limit/, "")}`,
        )
        .join(" "),
    );
  }
  if (violations.length > 0) {
    const text = violations.map((v) => `  invariant ${v.invariant}: ${v.text}`).join("\n");
    const err = new Error(`${violations.length} invariant(s) broken:\n${text}`);
    err.violations = violations;
    throw err;
  }
}

/**
 * Runs one schedule on `server`: in a simulated world of its own when the server is the
 * simulation's (test/sim/server.js), else on the wall clock.
 */
function runScheduleOn(server, drawn, cmds) {
  if (server.simulate) return server.simulate(drawn, cmds, () => runSchedule(server, drawn, cmds));
  return runSchedule(server, drawn, cmds);
}

const steps = {
  SendCommand,
  SubSend,
  Merge,
  List,
  Fleet,
  Cancel,
  TabCancel,
  ReaderCancel,
  Deploy,
  DeployAfter,
  BrokenDeploy,
  DisableDeploy,
  Fault,
  Other,
  Pause,
  Together,
};

/** A schedule written out in seeds.js (`named`): its steps as [class name, ...arguments]. */
const stepsOf = (written) => written.steps.map(([type, ...args]) => new steps[type](...args));

module.exports = { runSchedule, runScheduleOn, steps, stepsOf };
