// Lists the events of a stream: one page, all pages gathered into one array, or one message per
// event (with msg.parts, so a core join node rebuilds the array) fetched a page at a time. A
// stream given as a path uses the documented `GET /event?path=` fall-back.
import type { Node, NodeAPI, NodeDef, NodeMessage } from "node-red";
import { EdgeError } from "../lib/api/errors";
import type { CallOptions } from "../lib/api/client";
import type { DeviceEvent, PageQuery } from "../lib/api/types";
import { accountOf, intakeOf } from "../lib/account/lookup";
import { pages } from "../lib/events/pager";
import type { PageRead } from "../lib/events/pager";
import { handleInput } from "../lib/node-red/handler";
import type { Translate } from "../lib/node-red/i18n";
import { resolveTarget } from "../lib/node-red/target";
import { checkInteger } from "../lib/node-red/validate";
import { checkTemplate } from "../lib/node-red/render";
import { configError } from "../lib/node-red/config";
import { LIST_EVENTS_RANGES, editorSettings } from "../lib/node-red/ranges";

interface ListEventsDef extends NodeDef {
  account: string;
  stream: string;
  limit: number | string;
  start: number | string;
  /** "page", "all" or "split"; anything else is an error at deploy and for every message. */
  mode: string;
  maxEvents: number | string;
}

const R = LIST_EVENTS_RANGES;

function blankToUndefined(value: unknown): unknown {
  return typeof value === "string" && value.trim() === "" ? undefined : value;
}

/** The node's Mode, numbers and Stream template, checked at deploy. */
function checkSettings(def: ListEventsDef, mode: string): void {
  if (mode !== "page" && mode !== "all" && mode !== "split")
    throw new EdgeError("bad-mode", { mode });
  for (const name of ["limit", "start", "maxEvents"] as const) {
    const value = blankToUndefined(def[name]);
    if (value !== undefined && value !== null) checkInteger(value, name, R[name].min, R[name].max);
  }
  if (typeof def.stream === "string") checkTemplate(def.stream, "stream");
}

export = function (RED: NodeAPI): void {
  function EdgeListEventsNode(this: Node, def: ListEventsDef) {
    RED.nodes.createNode(this, def);
    const mode = def.mode || "page";
    const invalid = configError(() => {
      checkSettings(def, mode);
    });
    /**
     * A listing the server's paging stopped (pager.ts) ends with what it found, `paging.more`
     * true as after Max events; the warning says why, since the stream's end was not reached.
     */
    const warnStopped = (page: PageRead | undefined, t: Translate, count: number): void => {
      if (!page?.stopped) return;
      this.warn(
        t(`edge-list-events.warn.${page.stopped}`, { count, start: page.start, pages: page.page }),
      );
    };
    // As many messages at once as the account sends; the others wait, not started (intake.ts).
    handleInput(
      RED,
      this,
      "edge-list-events",
      async (msg, { call, t, send, signal }) => {
        const { client } = accountOf(RED, def.account);
        const stream = resolveTarget(def.stream, msg, "streamId", "stream-empty");
        const limit = checkInteger(
          msg.limit ?? blankToUndefined(def.limit) ?? R.limit.default,
          "limit",
          R.limit.min,
          R.limit.max,
        );
        const start = checkInteger(
          msg.start ?? blankToUndefined(def.start) ?? R.start.default,
          "start",
          R.start.min,
          R.start.max,
        );
        const maxEvents = checkInteger(
          blankToUndefined(def.maxEvents) ?? R.maxEvents.default,
          "maxEvents",
          R.maxEvents.min,
          R.maxEvents.max,
        );
        const fetch = (page: PageQuery, options: CallOptions = call): Promise<DeviceEvent[]> =>
          stream.startsWith("/")
            ? client.listEventsByPath(stream, page, options)
            : client.listEvents(stream, page, options);

        if (mode === "page") {
          const events = await fetch({ limit, start });
          msg.payload = events;
          msg.paging = { start, limit, count: events.length, more: events.length >= limit };
          return {
            send: msg,
            status: () =>
              t(`edge-list-events.status.${events.length === 1 ? "pageOne" : "page"}`, {
                count: events.length,
                start,
              }),
          };
        }
        if (mode === "all") {
          // One message holds every page: bounded by Max events and, as one answer is, by the
          // account's Max answer in bytes (a few pages of huge events once filled the heap).
          const all: DeviceEvent[] = [];
          let more = false;
          let bytes = 0;
          const counted: CallOptions = {
            ...call,
            onAnswer: (n) => {
              bytes += n;
            },
          };
          const max = client.maxAnswerBytes;
          let last: PageRead | undefined;
          for await (const page of pages((p) => fetch(p, counted), { limit, start }, maxEvents)) {
            if (bytes > max) throw new EdgeError("too-much", { count: all.length, bytes, max });
            all.push(...page.events);
            more = page.full;
            last = page;
          }
          warnStopped(last, t, all.length);
          msg.payload = all;
          msg.paging = { start, limit, count: all.length, more };
          return {
            send: msg,
            status: () =>
              t(`edge-list-events.status.${all.length === 1 ? "allOne" : "all"}`, {
                count: all.length,
              }),
          };
        }
        if (mode === "split") {
          // One event is held back until the next is known, so the last message can carry
          // parts.count and a join node completes without a timeout.
          let held: DeviceEvent | undefined;
          let index = 0;
          let more = false;
          let last: PageRead | undefined;
          const emit = (event: DeviceEvent, count?: number): void => {
            const out: NodeMessage = { ...msg, payload: event };
            // Nest an incoming sequence the way the core split node does, so joins unwind in order.
            const outer = msg.parts ? { parts: msg.parts } : {};
            out.parts = {
              id: msg._msgid,
              index,
              type: "array",
              len: 1,
              ...(count ? { count } : {}),
              ...outer,
            };
            index++;
            send(out);
          };
          for await (const page of pages(fetch, { limit, start }, maxEvents)) {
            if (signal.aborted) break;
            for (const event of page.events) {
              if (held) emit(held);
              held = event;
            }
            more = page.full;
            last = page;
          }
          // Closed or reset meanwhile: the held event is not sent after the node stopped.
          if (signal.aborted) return null;
          warnStopped(last, t, held ? index + 1 : index);
          if (held) {
            msg.paging = { start, limit, count: index + 1, more };
            emit(held, index + 1);
          }
          return {
            status: () =>
              t(`edge-list-events.status.${index === 1 ? "splitOne" : "split"}`, { count: index }),
          };
        }
        throw new EdgeError("bad-mode", { mode });
      },
      { account: def.account, invalid },
    ).limitBy(intakeOf(RED, def.account));
  }

  RED.nodes.registerType("edge-list-events", EdgeListEventsNode, {
    settings: editorSettings("edge-list-events", R),
  });
};
