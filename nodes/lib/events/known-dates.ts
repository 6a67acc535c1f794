// The creation date each event of a watched stream had when this runtime first listed it, so that
// an event the server re-dated since is placed where it was (stream-watcher.ts, placed). Kept per
// stream for the process, as the registry of sent commands is: a deploy makes the account's
// stream watcher anew, and an event the server re-dated after the watch had delivered it came
// again after a redeploy, above the saved position (the redates property, seed 2 path 4).
//
// An id is the same event only with the same elems: a server that counts its ids from 1 again
// after its own restart (ids reused after an earlier run) lists new events under old ids, and
// placed at the old events' dates they would be taken for delivered. Their elems differ.

/** Creation dates remembered per stream, the most recently first listed kept. */
const MAX_PER_STREAM = 1000;
/** Streams remembered, the least recently read forgotten first. */
const MAX_STREAMS = 1000;

/** One stream's dates: an event's first date, with what it held then. */
export class KnownDates {
  private readonly dates = new Map<string, { date: number; elems: string }>();

  /**
   * The date the event `id` had when first listed, remembering `date` when it is new: new too
   * when the id was listed before with other elems (another event). `elems` gives its elems as
   * JSON, asked only when the id is known at another date or is new: most events are listed at
   * the date they had, read after read, and need no JSON.
   */
  first(id: string, date: number, elems: () => string): number {
    const known = this.dates.get(id);
    if (known !== undefined && known.date === date) return date;
    const json = elems();
    if (known !== undefined && known.elems === json) return known.date;
    this.dates.delete(id);
    this.dates.set(id, { date, elems: json });
    if (this.dates.size > MAX_PER_STREAM) {
      for (const oldest of this.dates.keys()) {
        this.dates.delete(oldest);
        break;
      }
    }
    return date;
  }
}

const streams = new Map<string, KnownDates>();

/** The dates of the stream `key` (its server's origin and its id or path). */
export function knownDatesOf(key: string): KnownDates {
  let known = streams.get(key);
  if (known) streams.delete(key);
  else known = new KnownDates();
  streams.set(key, known);
  if (streams.size > MAX_STREAMS) {
    for (const oldest of streams.keys()) {
      streams.delete(oldest);
      break;
    }
  }
  return known;
}

/** Forgets every stream's dates (the simulation, before each schedule, as a new process would). */
export function forgetKnownDates(): void {
  streams.clear();
}
