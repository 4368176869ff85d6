// A value that many concurrent requests read from the database, each needing
// a read no older than its own arrival: the counters that say whether what a
// node keeps in memory is still true (the auth epoch, the directory's records
// epoch). Instead of one read per request, a request waits for the next read
// to begin after it asked, shared by everyone who asks before it begins. With
// none under way, that read begins once the event loop has taken in what the
// network delivered this turn (setImmediate), so the requests read in one
// turn share it; with one under way (it may have begun before the ask), the
// next begins when it ends. Every answer is as fresh as a read of its own
// would be; N concurrent requests cost at most two reads instead of N.

export class FreshReads<T> {
  readonly #read: () => Promise<T>;
  #current: Promise<T> | undefined;
  /** The read not yet begun, which everyone who asks before it begins shares. */
  #next: Promise<T> | undefined;

  constructor(read: () => Promise<T>) {
    this.#read = read;
  }

  get(): Promise<T> {
    if (this.#next !== undefined) return this.#next;
    const begin = () => this.#start();
    this.#next = this.#current === undefined ? new Promise<void>((resolve) => setImmediate(resolve)).then(begin) : this.#current.then(begin, begin);
    return this.#next;
  }

  #start(): Promise<T> {
    this.#next = undefined;
    const read = this.#read().finally(() => {
      if (this.#current === read) this.#current = undefined;
    });
    this.#current = read;
    return read;
  }
}

/**
 * A counter of the database (an epoch) as a read found it, with the count of undone writes
 * (Deps.undone) taken before that read began. A node keeps what it reads under both: a read may
 * see an epoch raised by writes the database then undoes (SQLite's failed group commit), and the
 * same epoch raised again later by other writes; its undone count tells the two apart.
 */
export interface Stamp {
  readonly epoch: number;
  readonly undone: number;
}

/** A read of `epoch` that stamps it (FreshReads' read for a counter a node keeps things under). */
export function stamped(undone: () => number, epoch: () => Promise<number>): () => Promise<Stamp> {
  return async () => {
    const before = undone();
    return { epoch: await epoch(), undone: before };
  };
}

export function sameStamp(a: Stamp, b: Stamp): boolean {
  return a.epoch === b.epoch && a.undone === b.undone;
}
