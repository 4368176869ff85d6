// A value that many concurrent requests read from the database, each needing
// a read no older than its own arrival: the counters that say whether what a
// node keeps in memory is still true (the auth epoch, the directory's records
// epoch). Instead of one read per request, a request waits for the next read
// to begin after it asked: if none is under way, it starts one; if one is,
// that one may have begun before it asked, so it waits for the one that
// starts when the current one ends, shared by everyone who asked meanwhile.
// Every answer is as fresh as a read of its own would be; N concurrent
// requests cost at most two reads instead of N.
import { onePer } from '../shared/one-per.ts';

export class FreshReads<T> {
  readonly #read: () => Promise<T>;
  #current: Promise<T> | undefined;
  #next: Promise<T> | undefined;

  constructor(read: () => Promise<T>) {
    this.#read = read;
  }

  get(): Promise<T> {
    if (this.#current === undefined) return this.#start();
    const restart = () => this.#start();
    this.#next ??= this.#current.then(restart, restart);
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

/** One FreshReads per database handle and read (tests open several databases in one process). */
export function freshReadsOf<D extends object, T>(cache: WeakMap<D, FreshReads<T>>, db: D, read: (db: D) => Promise<T>): FreshReads<T> {
  return onePer(cache, db, () => new FreshReads(() => read(db)));
}
