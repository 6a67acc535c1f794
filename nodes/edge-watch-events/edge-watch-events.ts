// Starts a flow on every new event of a stream: one message per event, oldest first, each event
// once while the node runs. The reading is shared per stream and account (lib/events/
// stream-watcher.ts); this node chooses where to start, sends, keeps its position so that a
// redeploy continues from the last event sent (in this process's memory, whatever the settings:
// Node-RED deletes a node's context at its close when no context store is configured) and `resume`
// also after a restart (in node context, with a persistent store), and shows how the watch is doing.
//
// A redeploy that restarts the node (a changed name, a full deploy) continues where the node it
// replaces stopped, whatever Start says: Start is where a watch starts, and a redeploy does not
// start a new one. A "new" watch once took the stream's head again at every such deploy, and the
// events of its last read and of the deploy itself were never sent (issue 28). A changed Stream
// or Start setting starts afresh, as asked. While Node-RED deploys, the node sends nothing and its
// position stays (lib/node-red/deploying.ts): a message to a node being restarted is dropped.
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeStatus } from "node-red";
import { EdgeError } from "../lib/api/errors";
import type { DeviceEvent } from "../lib/api/types";
import { accountFault, accountOf, healthOf } from "../lib/account/lookup";
import type { Position } from "../lib/events/position";
import { checkSavedPosition } from "../lib/records/saved-position";
import type { SavedPosition } from "../lib/records/saved-position";
import type {
  ReadResult,
  StartFrom,
  StreamRef,
  StreamWatcher,
  Watch,
} from "../lib/events/stream-watcher";
import { errorText, translator } from "../lib/node-red/i18n";
import type { Translate } from "../lib/node-red/i18n";
import { checkInteger } from "../lib/node-red/validate";
import { contextIdOf } from "../lib/records/context-id";
import { deployingOf } from "../lib/node-red/deploying";
import { isPersistentStore } from "../lib/records/persistent-store";
import { WATCH_EVENTS_RANGES, editorSettings } from "../lib/node-red/ranges";
import { MAX_MSG_DEPTH, uncopyable } from "../lib/node-red/copyable";
import { textOf } from "../lib/node-red/thrown";
import { blank } from "../lib/node-red/config";
import { accountFaultStatus, accountStatus, errorStatus } from "../lib/node-red/status";

interface WatchEventsDef extends NodeDef {
  account: string;
  stream: string;
  interval: number | string;
  /** "new", "resume" or "last". */
  start: string;
  last: number | string;
  /** A context store's name; empty = Node-RED's default store. */
  store: string;
}

const R = WATCH_EVENTS_RANGES;
/** The key of the position in node context. */
const KEY = "position";

/** The node's settings, checked at deploy (there is no message to fail instead). */
function settingsOf(def: WatchEventsDef) {
  // Absent in a flow file written by hand: a property is not guaranteed to be there.
  const stream = typeof def.stream === "string" ? def.stream.trim() : "";
  if (!stream) throw new EdgeError("stream-empty");
  const start = blank(def.start) ? "new" : def.start;
  if (start !== "new" && start !== "resume" && start !== "last")
    throw new EdgeError("bad-mode", { mode: start });
  const intervalMs = checkInteger(
    blank(def.interval) ? R.interval.default : def.interval,
    "interval",
    R.interval.min,
    R.interval.max,
  );
  const last =
    start === "last"
      ? checkInteger(blank(def.last) ? R.last.default : def.last, "last", R.last.min, R.last.max)
      : R.last.default;
  const ref: StreamRef = stream.startsWith("/") ? { path: stream } : { streamId: stream };
  const store = blank(def.store) ? undefined : def.store.trim();
  return { stream, ref, start, intervalMs, last, store };
}

/** A node's last position in this process's memory, with the Start setting it was taken under. */
interface Remembered {
  saved: SavedPosition;
  startAs: string;
}

/** The Start setting as one value: a change of it (also of Last) starts the watch afresh. */
function startKey(settings: ReturnType<typeof settingsOf>): string {
  return settings.start === "last" ? `last:${settings.last}` : settings.start;
}

function positionOf(saved: SavedPosition): Position {
  return { date: saved.date, ids: saved.ids };
}

/** hh:mm:ss of a creation date, in the runtime's time zone. */
function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

/** The node's part in a shared watch: what it sends, saves and shows. */
class NodeWatch implements Watch {
  private count = 0;
  private lastDate: number | undefined;
  private failing = false;
  /** The warning that the server re-dates events was given (once per deploy). */
  private redatedWarned = false;
  private shown = "";
  /** The node's own latest status, shown again when the account's clears. */
  private own: NodeStatus = {};
  /** The account's status (queue, 429 wait, failed authentication), shown over the node's own. */
  private override: NodeStatus | undefined;
  private closed = false;
  unwatch: (() => void) | undefined;

  constructor(
    private readonly node: Node,
    private readonly t: Translate,
    private readonly settings: ReturnType<typeof settingsOf>,
    /** Keeps the position in memory for the node a redeploy puts in this one's place. */
    private readonly remember: (saved: SavedPosition) => void,
    /** True while Node-RED deploys: messages sent then to a node it restarts are dropped. */
    private readonly deploying: () => boolean,
  ) {}

  holding(): boolean {
    return this.deploying();
  }

  get intervalMs(): number {
    return this.settings.intervalMs;
  }

  get nodeId(): string {
    return this.node.id;
  }

  start(from: StartFrom, watcher: StreamWatcher): void {
    if (this.closed) return;
    this.status({
      fill: "green",
      shape: "ring",
      text: this.t("edge-watch-events.status.starting"),
    });
    this.unwatch = watcher.watch(this.settings.ref, this, from);
  }

  close(): void {
    this.closed = true;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  onRead(result: ReadResult): void {
    if (this.closed) return;
    try {
      this.deliver(result);
    } catch (err) {
      // Not expected from send or context; logged rather than lost in the shared watcher.
      this.node.error(String(err));
    }
  }

  private deliver({ events, position, moved, gap, redated }: ReadResult): void {
    // Said once per deploy: a server that re-dates events does so at every read.
    if (redated && !this.redatedWarned) {
      this.redatedWarned = true;
      this.node.warn(this.t("edge-watch-events.warn.redated", { stream: this.settings.stream }));
    }
    // The gap flag goes on the first event sent: a skipped one (too deep) does not take it along.
    let flagGap = gap;
    for (const event of events) if (this.send(event, flagGap)) flagGap = false;
    if (moved) this.save(position);
    this.failing = false;
    const last = events.at(-1);
    if (last) {
      this.count += events.length;
      this.lastDate = last.creationDate;
    }
    const params = {
      count: this.count,
      time: this.lastDate === undefined ? "" : clock(this.lastDate),
    };
    if (gap) {
      this.node.warn(
        this.t("edge-watch-events.warn.gap", {
          stream: this.settings.stream,
          time: last ? clock(last.creationDate) : "",
        }),
      );
      this.status({
        fill: "yellow",
        shape: "dot",
        text: this.t("edge-watch-events.status.gap", params),
      });
    } else if (last || !this.shown.startsWith("yellow")) {
      // A gap stays shown until the next events; anything else (starting, a failed read that
      // recovered) turns back to green.
      this.status(
        this.count === 0
          ? { fill: "green", shape: "ring", text: this.t("edge-watch-events.status.watching") }
          : {
              fill: "green",
              shape: "dot",
              text: this.t("edge-watch-events.status.events", params),
            },
      );
    }
  }

  onError(err: EdgeError, lasting: boolean, retryInMs: number): void {
    if (this.closed) return;
    const message = errorText(this.t, err);
    if (lasting) {
      this.unwatch = undefined;
      this.node.error(this.t("edge-watch-events.errors.stopped", { message }));
      this.status({
        fill: "red",
        shape: "ring",
        text: this.t("edge-watch-events.status.stopped", { reason: errorStatus(this.t, err) }),
      });
      return;
    }
    // Logged once per run of failures: a watch read every second must not flood the log.
    if (!this.failing)
      this.node.warn(
        this.t("edge-watch-events.warn.failed", { message, seconds: Math.ceil(retryInMs / 1000) }),
      );
    this.failing = true;
    this.status({
      fill: "red",
      shape: "ring",
      text: this.t("edge-watch-events.status.failed", { reason: errorStatus(this.t, err) }),
    });
  }

  /** Sends one event; false when it could not go out (too deep) and was reported instead. */
  private send(event: DeviceEvent, gap: boolean): boolean {
    const topic = typeof event.path === "string" && event.path ? event.path : this.settings.stream;
    if (uncopyable(event)) {
      // Node-RED could not copy it for a second wire or a Catch node: the event is reported once,
      // as an error without it, and the watch moves past it (it used to overflow at every send).
      const err = new EdgeError("too-deep-msg", { max: MAX_MSG_DEPTH });
      err.message = errorText(this.t, err);
      // The error itself, not its text: Node-RED copies its code into the Catch node's msg.error.
      this.node.error(err, { topic, eventId: event.id, edgeError: err.toJSON() });
      return false;
    }
    const msg: NodeMessage & { eventId: string; gap?: boolean } = {
      payload: event,
      topic,
      eventId: event.id,
    };
    if (gap) msg.gap = true;
    try {
      this.node.send(msg);
    } catch (caught) {
      // Handed over: a throw from Node-RED's side is logged; the other events still go out.
      this.node.error(textOf(caught));
    }
    return true;
  }

  private save(position: Position): void {
    const saved: SavedPosition = {
      stream: this.settings.stream,
      date: position.date,
      ids: position.ids,
    };
    this.remember(saved);
    const { store } = this.settings;
    this.node.context().set(KEY, saved, store as string, (err?: Error) => {
      if (err) this.node.warn(this.t("edge-watch-events.warn.save", { message: String(err) }));
    });
  }

  /** Shows the account's health over the node's own status, or the node's own when undefined. */
  account(status: NodeStatus | undefined): void {
    this.override = status;
    this.show(status ?? this.own);
  }

  private status(status: NodeStatus): void {
    this.own = status;
    if (!this.override) this.show(status);
  }

  /** Sets the status only when it changed: 200 watches reading every second stay quiet. */
  private show(status: NodeStatus): void {
    const shown = `${status.fill}|${status.shape}|${String(status.text)}`;
    if (shown === this.shown) return;
    this.shown = shown;
    this.node.status(status);
  }
}

export = function (RED: NodeAPI): void {
  const t = translator(RED, "edge-watch-events");
  // The last position of each node, by context id, across its close and re-creation by a deploy.
  // Per registration of the type, which Node-RED makes once per process.
  const positions = new Map<string, Remembered>();
  /** The nodes already told that a restart loses their position: once each. */
  const toldVolatile = new Set<string>();
  const deploying = deployingOf(RED.events);

  function EdgeWatchEventsNode(this: Node, def: WatchEventsDef) {
    RED.nodes.createNode(this, def);
    let settings: ReturnType<typeof settingsOf>;
    let watcher: StreamWatcher;
    try {
      settings = settingsOf(def);
      watcher = accountOf(RED, def.account).watcher;
    } catch (caught) {
      const err =
        caught instanceof EdgeError
          ? caught
          : new EdgeError("bad-config", { detail: String(caught) });
      this.error(errorText(t, err));
      const fault = accountFault(RED, def.account);
      this.status(
        fault?.error === err
          ? accountFaultStatus(t, fault)
          : {
              fill: "red",
              shape: "ring",
              text: t("edge-watch-events.status.stopped", { reason: errorStatus(t, err) }),
            },
      );
      return;
    }
    const contextId = contextIdOf(this);
    const startAs = startKey(settings);
    const watch = new NodeWatch(
      this,
      t,
      settings,
      (saved) => {
        positions.set(contextId, { saved, startAs });
      },
      deploying,
    );
    // The account's health shows on this node as on the others of the account.
    const unwatchHealth = healthOf(RED, def.account)?.watch((s) => {
      watch.account(accountStatus(t, s));
    });
    this.on("close", (removed: boolean, done: () => void) => {
      unwatchHealth?.();
      watch.close();
      if (removed) {
        positions.delete(contextId);
        toldVolatile.delete(contextId);
      }
      done();
    });

    const begin = (saved: SavedPosition | undefined): void => {
      let from: StartFrom;
      if (settings.start === "resume" && saved && saved.stream === settings.stream) {
        from = { kind: "position", position: positionOf(saved) };
      } else if (settings.start === "last") from = { kind: "last", count: settings.last };
      else from = { kind: "new" };
      watch.start(from, watcher);
    };
    // Memory holds the newest position this process saved: the store may lag or be emptied.
    const inMemory = positions.get(contextId);
    if (settings.start !== "resume") {
      // The node a redeploy replaced, with the same Start: it goes on from its last event sent.
      const same = inMemory?.startAs === startAs && inMemory.saved.stream === settings.stream;
      if (same) watch.start({ kind: "position", position: positionOf(inMemory.saved) }, watcher);
      else begin(undefined);
      return;
    }
    if (!isPersistentStore(RED.settings, settings.store) && !toldVolatile.has(contextId)) {
      toldVolatile.add(contextId);
      this.warn(t("edge-watch-events.warn.volatile"));
    }
    if (inMemory) {
      begin(inMemory.saved);
      return;
    }
    this.context().get(KEY, settings.store as string, (err: Error | undefined, value: unknown) => {
      if (err) {
        this.warn(t("edge-watch-events.warn.load", { message: String(err) }));
        begin(undefined);
        return;
      }
      if (value === undefined) {
        begin(undefined);
        return;
      }
      const checked = checkSavedPosition(value, Date.now());
      if (!checked.ok) {
        this.warn(t("edge-watch-events.warn.badSaved", { field: checked.field }));
        begin(undefined);
        return;
      }
      begin(checked.saved);
    });
  }

  RED.nodes.registerType("edge-watch-events", EdgeWatchEventsNode, {
    settings: editorSettings("edge-watch-events", R),
  });
};
