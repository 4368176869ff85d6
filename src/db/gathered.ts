// Small writes that many concurrent requests each make, written together:
// the ones asked for while the previous write of their kind runs (or in the
// same turn of the event loop) go as one statement, one commit, and each
// request still gets exactly its own result. One write of a kind is under
// way at a time, so under load the batches grow instead of the round trips
// (the group commit that donations.batches.ts runs for rounds of donations).
// A batch the database refuses is written again one item at a time, so one
// item cannot fail the others.

interface Pending<I, O> {
  item: I;
  resolve: (out: O) => void;
  reject: (error: unknown) => void;
}

export class Gathered<I, O> {
  /** Writes the items, returning each one's result in the same order. */
  readonly #write: (items: readonly I[]) => Promise<O[]>;
  #pending: Array<Pending<I, O>> = [];
  #running = false;
  #scheduled = false;
  /** Batches written, and the items they carried (tests, diagnostics). */
  readonly stats = { writes: 0, items: 0 };

  constructor(write: (items: readonly I[]) => Promise<O[]>) {
    this.#write = write;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#running || this.#scheduled) return;
      this.#scheduled = true;
      // Requests already read from the network join the same batch.
      setImmediate(() => {
        this.#scheduled = false;
        this.#next();
      });
    });
  }

  #next(): void {
    if (this.#running || this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#running = true;
    void this.#run(batch).finally(() => {
      this.#running = false;
      this.#next();
    });
  }

  async #run(batch: Array<Pending<I, O>>): Promise<void> {
    this.stats.writes += 1;
    this.stats.items += batch.length;
    let outs: O[];
    try {
      outs = await this.#write(batch.map((p) => p.item));
      if (outs.length !== batch.length) throw new Error(`a gathered write returned ${outs.length} results for ${batch.length} items`);
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const one of batch) await this.#run([one]);
      return;
    }
    batch.forEach((p, i) => p.resolve(outs[i] as O));
  }
}
