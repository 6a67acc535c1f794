// The stand-ins of the inbox-watch unit specs (the inbox-watch specs in test/unit/commands/): a
// client
// whose inbox is served newest first, a wait that records what it is told, and ids of the
// service's shape. One module for the four specs, so that a change to what the fakes do is made
// once; each spec asks, by its options, for the little it records differently.
"use strict";

/**
 * The fakes of one spec file:
 * - `newId()`: ids of the service's shape, "e" and 24 hex digits, counted up from `idBase` + 1
 *   (a spec file keeps its own base, so that its ids are not another file's).
 * - `fakeClient()`: an inbox served newest first by start and limit; `marker()` adds an event to
 *   it, `failures` make the next reads throw, `hold` keeps each read until `release()`, `room` and
 *   `queued` are what its rate limiter says. Its `requests` count the reads, or with `list` list
 *   them as `{ streamId, start, limit, lane, retries }`, and `at` (ms since `t0`) when a `t0` is
 *   given.
 * - `recorder(commandId, over)`: a wait for `commandId` that records what it is told (`over` over
 *   it): `got` its markers as `[name, id]` (with `dated`, `[name, id, creationDate]`), `undated`
 *   the ids of the results it could not claim, `errors` and `finals` the errors of its reads and
 *   final reads (with `codes`, their codes and "read" for a final read that worked; with
 *   `countFinals`, `finals` is only how many final reads ended).
 */
function inboxFakes({
  idBase = 0,
  list = false,
  t0,
  dated = false,
  codes = false,
  countFinals = false,
} = {}) {
  let serial = 0;
  const newId = () => `e${(idBase + ++serial).toString(16).padStart(24, "0")}`;

  function fakeClient() {
    const c = {
      origin: "http://edge.test",
      events: [],
      requests: list ? [] : 0,
      failures: [],
      /** When set, each read waits for release() before it answers. */
      hold: false,
      pending: [],
      room: true,
      queued: 0,
      limiter: { hasRoomForEarlyPoll: () => c.room, queuedIn: () => c.queued },
      /** A marker for `ref` (a command id or anything), dated `at` (default now). */
      marker(status, ref, at = Date.now(), id = newId()) {
        const e = { id, creationDate: at, elems: { cmd: { status, ...(ref ? { ref } : {}) } } };
        c.events.unshift(e);
        return e;
      },
      async listEvents(streamId, page, call) {
        if (!list) c.requests++;
        else {
          const at = t0 === undefined ? {} : { at: Date.now() - t0 };
          c.requests.push({ streamId, ...page, lane: call.lane, retries: call.retries, ...at });
        }
        if (c.hold) await new Promise((r) => c.pending.push(r));
        const f = c.failures.shift();
        if (f) throw f;
        return c.events.slice(page.start, page.start + page.limit).map((e) => ({ ...e }));
      },
      async listEventsByPath(path, page, call) {
        return c.listEvents(`path:${path}`, page, call);
      },
      release() {
        for (const r of c.pending.splice(0)) r();
      },
    };
    return c;
  }

  function recorder(commandId, over = {}) {
    const w = {
      commandId,
      since: Date.now(),
      intervalMs: 1000,
      got: [],
      undated: [],
      errors: [],
      finals: countFinals ? 0 : [],
      onMarker: (event, name) =>
        w.got.push(dated ? [name, event.id, event.creationDate] : [name, event.id]),
      onUndated: (event) => w.undated.push(event.id),
      onError: (err) => w.errors.push(codes ? err.code : err),
      onFinalRead: (err) => {
        if (countFinals) w.finals++;
        else w.finals.push(codes ? (err?.code ?? "read") : err);
      },
      ...over,
    };
    return w;
  }

  return { newId, fakeClient, recorder };
}

module.exports = { inboxFakes };
