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
