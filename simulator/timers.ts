// Every timer the simulator arms goes through here so that close() and reset can cancel them all
// at once: a test that closes the simulator must not leave the process alive or see a marker
// written after it moved on.

export type Cancel = () => void;

export class Timers {
  private readonly timeouts = new Set<NodeJS.Timeout>();
  private readonly immediates = new Set<NodeJS.Immediate>();

  /** Runs fn after ms; 0 or less runs it on the next turn (setTimeout would round up to 1 ms). */
  after(ms: number, fn: () => void): Cancel {
    if (ms <= 0) {
      const handle = setImmediate(() => {
        this.immediates.delete(handle);
        fn();
      });
      this.immediates.add(handle);
      return () => {
        clearImmediate(handle);
        this.immediates.delete(handle);
      };
    }
    const handle = setTimeout(() => {
      this.timeouts.delete(handle);
      fn();
    }, ms);
    this.timeouts.add(handle);
    return () => {
      clearTimeout(handle);
      this.timeouts.delete(handle);
    };
  }

  /** Resolves after ms; never settles when the timers are cleared first (the caller is gone too). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.after(ms, resolve);
    });
  }

  clear(): void {
    for (const handle of this.timeouts) clearTimeout(handle);
    for (const handle of this.immediates) clearImmediate(handle);
    this.timeouts.clear();
    this.immediates.clear();
  }

  get size(): number {
    return this.timeouts.size + this.immediates.size;
  }
}
