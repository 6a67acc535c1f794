// One "abort" listener per signal, however many requests and queued calls wait on it. Every
// message of a node shares one signal, and Node 20's EventTarget walks the signal's whole listener
// list on each add and each remove: under a burst of 1,000 messages, one listener per queued call
// cost about 14 µs per message (addEventListener + removeEventListener in the profile), and grew
// with the queue. Here a signal gets a single listener and a Set of followers: O(1) to follow and
// to stop following.

/** Something told once when a signal it follows aborts. */
export interface AbortFollower {
  onAbort(): void;
}

const followers = new WeakMap<AbortSignal, Set<AbortFollower>>();

/** Tells `f` when `signal` aborts (never, when it already has: check `signal.aborted` first). */
export function follow(signal: AbortSignal, f: AbortFollower): void {
  let set = followers.get(signal);
  if (set === undefined) {
    const fresh = new Set<AbortFollower>();
    followers.set(signal, fresh);
    signal.addEventListener(
      "abort",
      () => {
        // A follower may stop following others while it is told: tell a copy.
        const told = [...fresh];
        fresh.clear();
        for (const each of told) each.onAbort();
      },
      { once: true },
    );
    set = fresh;
  }
  set.add(f);
}

export function unfollow(signal: AbortSignal, f: AbortFollower): void {
  followers.get(signal)?.delete(f);
}
