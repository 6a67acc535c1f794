// Which editor connections may receive the sidebar's snapshots. RED.comms.publish sends to every
// editor connection, and Node-RED admits to its comms any user with status.read: a user whose
// permissions are ["status.read"] would get what GET /edge-account/sidebar refuses them. So the
// snapshots go to each connection alone (the runtime's "comms" event with a session, which is what
// RED.comms.publish emits without one), and only to those whose user has edge-account.read. The
// runtime tells of every connection as it is admitted, with its user.
import type { NodeAPI } from "node-red";

const READ = "edge-account.read";

/** Node-RED's own rule (editor-api auth/permissions.js): "*", "read", "*.read" or the name itself. */
function grants(scope: unknown): boolean {
  if (Array.isArray(scope)) return scope.some(grants);
  return scope === "*" || scope === "read" || scope === "*.read" || scope === READ;
}

interface Connection {
  session?: string;
  user?: { permissions?: unknown } | null;
}

/**
 * One per runtime's event bus: the type is registered once per process in Node-RED, but the test
 * helper registers it again for every flow it loads, on the same bus, and each registration added
 * two listeners that were never removed (Node's MaxListenersExceededWarning after ten).
 */
const byBus = new WeakMap<object, SidebarReaders>();

/** The readers of this runtime's sidebar, made at its first registration. */
export function sidebarReadersOf(RED: NodeAPI): SidebarReaders {
  let readers = byBus.get(RED.events);
  if (!readers) {
    readers = new SidebarReaders(RED);
    byBus.set(RED.events, readers);
  }
  return readers;
}

class SidebarReaders {
  private readonly sessions = new Set<string>();

  constructor(private readonly RED: NodeAPI) {
    RED.events.on("comms:connection-added", (c: Connection) => {
      // No user: Node-RED runs without adminAuth, and every route is open to everyone.
      const allowed = c.user === undefined || c.user === null || grants(c.user.permissions);
      if (typeof c.session === "string" && allowed) this.sessions.add(c.session);
    });
    RED.events.on("comms:connection-removed", (c: Connection) => {
      if (typeof c.session === "string") this.sessions.delete(c.session);
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sends `data` on `topic` to each connection that may read it, and to no other. */
  publish(topic: string, data: unknown): void {
    for (const session of this.sessions)
      this.RED.events.emit("comms", { topic, data, retain: false, session });
  }
}
