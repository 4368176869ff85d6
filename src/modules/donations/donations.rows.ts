// The rows of donations a node has shown in lists, kept under the revision each was read at
// (ADR 33). A page of a list reads its rows' ids and revisions (two values a row), then only the
// rows this node does not hold at that revision: a list read again, or a row on many pages, costs
// no row's 19 values again, nor their JSON. Every update of a donation raises its revision
// (migration 064, a trigger), so a kept row is never shown once the database holds another.
// A page's keys are kept too, under the mark of the user's list they were read under (its count
// and revision, migration 069): while the owner's row shows the same mark, the page is the same
// rows, and its keys are not read again.
// A read may see writes the database then undoes (an SQLite group whose COMMIT failed, Deps.undone):
// everything kept is dropped when the count of such undoings moves, and what was read before it
// moved is not kept after.

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

/** How many pages' keys a node keeps at most (two numbers a row: under 2 KB for a page of 25, 10 MB for 5,000 such pages). */
export const KEPT_PAGE_KEYS_MAX = 5_000;

/**
 * What a user's list held when a page's keys were read (migration 069): their donations' count and
 * revision. Every insert moves the count, every update or delete the revision; while neither has
 * moved, the page's keys are the ones read then.
 */
export interface ListMark {
  readonly total: number;
  readonly revision: number;
}

/** A page's ids and revisions, in the list's order, as read under `mark`. */
export interface KeptKeys {
  readonly mark: ListMark;
  readonly keys: readonly Revised[];
}

/** A page put together from kept rows' bytes: the bytes, in order, and the text after them. */
interface KeptPage {
  readonly rows: readonly Buffer[];
  readonly tail: string;
  readonly page: Buffer;
}

/**
 * Kept rows by id, in two generations: a row is added to the young one; when that is full it
 * becomes the old one and the old one is dropped, and a row found in the old one is added to
 * the young one again. The most recently used rows stay; at most `capacity` are held.
 *
 * Beside them, the last page put together for each key (a list's owner) from kept rows' bytes:
 * a page is a function of its rows' bytes and its tail, so the same bytes objects in the same
 * order and the same tail are the same page. The pages are dropped whenever the young generation
 * turns over, so they never hold more than the rows they were made of.
 */
export class KeptDonationRows<R extends Revised> {
  readonly capacity: number;
  readonly #undone: () => number;
  /** The count of undone writes (Deps.undone) that everything held was read under. */
  #since: number;
  #young = new Map<number, KeptRow<R>>();
  #old = new Map<number, KeptRow<R>>();
  #pages = new Map<number, KeptPage>();
  #keys = new Map<string, KeptKeys>();

  constructor(capacity: number, undone: () => number = () => 0) {
    this.capacity = capacity;
    this.#undone = undone;
    this.#since = undone();
  }

  /**
   * What a read that begins now passes to `keep` and `keepKeys`: the count of undone writes. Rows
   * and keys read under a count that has since moved may show writes the database undid: not kept.
   */
  since(): number {
    this.#fresh();
    return this.#since;
  }

  /** The row `id` as it is at `revision`, if kept. */
  get(id: number, revision: number): KeptRow<R> | undefined {
    this.#fresh();
    const young = this.#young.get(id);
    if (young !== undefined) return young.row.revision === revision ? young : undefined;
    const old = this.#old.get(id);
    if (old === undefined || old.row.revision !== revision) return undefined;
    this.#add(old);
    return old;
  }

  /** Keeps `row` (a read of it, at its revision, begun at `since`) in place of any it had; returns it frozen, kept or not. */
  keep(row: R, since: number): KeptRow<R> {
    const kept: KeptRow<R> = { row: Object.freeze(row) };
    if (this.since() === since) this.#add(kept);
    return kept;
  }

  /** The page kept under `key` if it was put together from these very bytes, in this order, and this tail. */
  page(key: number, rows: readonly Buffer[], tail: string): Buffer | undefined {
    this.#fresh();
    const kept = this.#pages.get(key);
    if (kept === undefined || kept.tail !== tail || kept.rows.length !== rows.length) return undefined;
    for (let i = 0; i < rows.length; i += 1) if (kept.rows[i] !== rows[i]) return undefined;
    return kept.page;
  }

  /** Keeps `page`, put together from kept rows' `rows` and `tail`, under `key` (in place of the one it had). */
  keepPage(key: number, rows: readonly Buffer[], tail: string, page: Buffer): void {
    if (this.capacity < 2) return;
    this.#pages.set(key, { rows, tail, page });
  }

  /** The keys of the page `key` (a list's owner, view and page) as last read, with the mark they were read under. */
  keys(key: string): KeptKeys | undefined {
    this.#fresh();
    return this.#keys.get(key);
  }

  /** Keeps a page's `keys`, read under `mark` in a read begun at `since`, in place of those it had; all are dropped once KEPT_PAGE_KEYS_MAX are held. */
  keepKeys(key: string, mark: ListMark, keys: readonly Revised[], since: number): void {
    if (this.capacity < 2 || this.since() !== since) return;
    if (this.#keys.size >= KEPT_PAGE_KEYS_MAX && !this.#keys.has(key)) this.#keys = new Map();
    this.#keys.set(key, { mark, keys });
  }

  /** How many pages are kept. */
  get pages(): number {
    return this.#pages.size;
  }

  /** How many rows are held (a row in both generations counted twice). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** Drops everything held if the database undid writes since it was read. */
  #fresh(): void {
    const undone = this.#undone();
    if (undone === this.#since) return;
    this.#since = undone;
    this.#young = new Map();
    this.#old = new Map();
    this.#pages = new Map();
    this.#keys = new Map();
  }

  #add(kept: KeptRow<R>): void {
    if (this.capacity < 2) return;
    if (this.#young.size >= this.capacity / 2) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#pages = new Map();
    }
    this.#young.set(kept.row.id, kept);
  }
}
