// The commands this runtime sent to device `:command` streams, for the one place that has to tell
// its own command from another's by looking at a stream: a fleet job resumed after a redeploy or
// a restart, with a device whose send was cut off before its answer came. Two identical jobs back
// to back make identical commands; without this, the second job's resumed device adopted the
// first job's command as its own and reported it complete though it was never sent (issue 28).
// Process-level on purpose: every node of the runtime sends through here, and a redeploy keeps it.

/** Who sent a command: a fleet job's device (fleet-job.ts), or "" for any other flow. */
export type Sender = string;

/**
 * Ids remembered, oldest forgotten first. A resumed device reads the newest 100 events of its
 * stream: ten full fleets of 10,000 devices is more than any look-up can meet.
 */
const MAX_REMEMBERED = 100_000;

export class SentCommands {
  /** `path \n id` to its sender, in the order they were sent. */
  private readonly senders = new Map<string, Sender>();
  /**
   * An id to the creation date the server gave it (its clock), for a reference rebuilt by hand in
   * a Function node without its date: waiting "from its arrival, less a skew" let such a wait take
   * an earlier command's marker on a server whose markers name no command (the fault harness).
   */
  private readonly dates = new Map<string, number>();
  /** Requests of this runtime on the wire to a stream, and who waits for the stream to be quiet. */
  private readonly onWire = new Map<string, { count: number; quiet: (() => void)[] }>();

  /** A command this runtime made on `path` (a `:command` stream path), sent by `sender`. */
  remember(path: string, id: string, sender: Sender, creationDate?: number): void {
    const key = `${path}\n${id}`;
    this.senders.delete(key);
    this.senders.set(key, sender);
    if (this.senders.size > MAX_REMEMBERED) {
      const oldest = this.senders.keys().next().value;
      if (oldest !== undefined) this.senders.delete(oldest);
    }
    if (creationDate === undefined || !Number.isFinite(creationDate)) return;
    this.dates.delete(id);
    this.dates.set(id, creationDate);
    if (this.dates.size > MAX_REMEMBERED) {
      const oldest = this.dates.keys().next().value;
      if (oldest !== undefined) this.dates.delete(oldest);
    }
  }

  /** The server's creation date of the command `id` this runtime made, if it remembers one. */
  createdAt(id: string): number | undefined {
    return this.dates.get(id);
  }

  /** Who sent the command `id` on `path`: undefined when this runtime did not (or forgot). */
  senderOf(path: string, id: string): Sender | undefined {
    return this.senders.get(`${path}\n${id}`);
  }

  /** A request to `path` left the limiter; call the function returned when it has ended. */
  leaving(path: string): () => void {
    const entry = this.onWire.get(path) ?? { count: 0, quiet: [] };
    this.onWire.set(path, entry);
    entry.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.count--;
      if (entry.count > 0) return;
      this.onWire.delete(path);
      for (const resolve of entry.quiet.splice(0)) resolve();
    };
  }

  /**
   * Resolves when no request of this runtime is on the wire to `path`: a command another send is
   * making there now has no id here yet, and could pass for anyone's. Bounded by their budgets.
   */
  quiet(path: string): Promise<void> {
    const entry = this.onWire.get(path);
    if (!entry) return Promise.resolve();
    return new Promise<void>((resolve) => entry.quiet.push(resolve));
  }

  /** Whether a request of this runtime is on the wire to `path` now. */
  busy(path: string): boolean {
    return this.onWire.has(path);
  }
}

/** The runtime's one registry (a module is loaded once per process). */
export const sentCommands = new SentCommands();
