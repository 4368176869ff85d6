// The rows of donations a node has shown in lists, kept under the revision each was read at
// (ADR 33). A page of a list reads its rows' ids and revisions (two values a row), then only the
// rows this node does not hold at that revision: a list read again, or a row on many pages, costs
// no row's 19 values again, nor their JSON. Every update of a donation raises its revision
// (migration 064, a trigger), so a kept row is never shown once the database holds another.

/** How many rows a node keeps at most (about a kilobyte each with their JSON: 20 MB). */
export const KEPT_ROWS_MAX = 20_000;

/** What a row must have to be kept: its id and its revision. */
export interface Revised {
  readonly id: number;
  readonly revision: number;
}

/**
 * A row as the own list's JSON writes it, as UTF-8 bytes, with what besides the row they were written
 * from: the non-profit's card (by identity) and the fund's and owner's JSON text (donations.json.ts
 * uses them only while a page names the same).
 */
export interface RowBytes {
  readonly card: object;
  readonly fund: string;
  readonly owner: string;
  readonly bytes: Buffer;
}

export interface KeptRow<R extends Revised> {
  /** The row as read, frozen: shared by every page that shows it. */
  readonly row: Readonly<R>;
  /** The row as the own list's JSON writes it (donations.json.ts), made at first use. */
  bytes?: RowBytes;
}

/**
 * Kept rows by id, in two generations: a row is added to the young one; when that is full it
 * becomes the old one and the old one is dropped, and a row found in the old one is added to
 * the young one again. The most recently used rows stay; at most `capacity` are held.
 */
export class KeptDonationRows<R extends Revised> {
  readonly capacity: number;
  #young = new Map<number, KeptRow<R>>();
  #old = new Map<number, KeptRow<R>>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The row `id` as it is at `revision`, if kept. */
  get(id: number, revision: number): KeptRow<R> | undefined {
    const young = this.#young.get(id);
    if (young !== undefined) return young.row.revision === revision ? young : undefined;
    const old = this.#old.get(id);
    if (old === undefined || old.row.revision !== revision) return undefined;
    this.#add(old);
    return old;
  }

  /** Keeps `row` (a read of it, at its revision) in place of any it had. */
  keep(row: R): KeptRow<R> {
    const kept: KeptRow<R> = { row: Object.freeze(row) };
    this.#add(kept);
    return kept;
  }

  /** How many rows are held (a row in both generations counted twice). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #add(kept: KeptRow<R>): void {
    if (this.capacity < 2) return;
    if (this.#young.size >= this.capacity / 2) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(kept.row.id, kept);
  }
}
