// Columns of values for the directory held in memory (directory.memory.ts):
// numbers in typed arrays and strings joined into long strings, so that two
// million organisations are a few dozen objects for the garbage collector to
// trace, not tens of millions (rows kept as objects made it collect a quarter
// of the time: docs/performance-history.md, 2026-11-30 evening).

/** Strings joined a chunk at a time (a name that needs two bytes a character makes only its chunk wide). */
export class StringColumn {
  static readonly SHIFT = 14;
  static readonly CHUNK = 1 << StringColumn.SHIFT;
  readonly #chunks: string[] = [];
  /** Where each value starts in its chunk. */
  #starts: Uint32Array;
  #pending: string[] = [];
  #pendingLength = 0;
  #length = 0;

  constructor(capacity: number) {
    this.#starts = new Uint32Array(capacity);
  }

  push(value: string): void {
    if (this.#length === this.#starts.length) this.#starts = grown(this.#starts);
    this.#starts[this.#length++] = this.#pendingLength;
    this.#pending.push(value);
    this.#pendingLength += value.length;
    if (this.#pending.length === StringColumn.CHUNK) this.#seal();
  }

  /** Ends loading: the last chunk joined. */
  finish(): void {
    if (this.#pending.length > 0) this.#seal();
  }

  #seal(): void {
    this.#chunks.push(this.#pending.join(''));
    this.#pending = [];
    this.#pendingLength = 0;
  }

  /** About how many bytes it holds (a byte a character, as names nearly always are). */
  get bytes(): number {
    return this.#starts.byteLength + this.#chunks.reduce((sum, c) => sum + c.length, 0);
  }

  get(i: number): string {
    const chunk = this.#chunks[i >>> StringColumn.SHIFT] as string;
    const last = (i & (StringColumn.CHUNK - 1)) === StringColumn.CHUNK - 1 || i === this.#length - 1;
    return chunk.slice(this.#starts[i], last ? chunk.length : this.#starts[i + 1]);
  }
}

/** Numbers, one a row (the ids). */
export class NumberColumn {
  #values: Float64Array;
  #length = 0;

  constructor(capacity: number) {
    this.#values = new Float64Array(capacity);
  }

  push(value: number): void {
    if (this.#length === this.#values.length) this.#values = grown(this.#values);
    this.#values[this.#length++] = value;
  }

  /** The values pushed so far (for a binary search over sorted ones). */
  view(): Float64Array {
    return this.#values.subarray(0, this.#length);
  }
}

/** A typed array twice as long (at least 1,024), holding `a`'s values first. */
export function grown<A extends Int32Array | Uint32Array | Float64Array>(a: A): A {
  const next = new (a.constructor as new (n: number) => A)(Math.max(1024, a.length * 2));
  next.set(a);
  return next;
}

/** The index of `value` in ascending `sorted`, or -1. */
function binarySearch(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] as number;
    if (v < value) lo = mid + 1;
    else if (v > value) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/**
 * Where each id is in ascending `ids`: a table indexed by id when the ids are dense enough (serial
 * ids are: one memory read a lookup), a binary search otherwise (about twenty, most of them
 * missing the CPU's caches at two million ids).
 */
export class Positions {
  readonly #ids: Float64Array;
  readonly #table: Int32Array | undefined;

  constructor(ids: Float64Array) {
    this.#ids = ids;
    const max = ids.length === 0 ? 0 : (ids[ids.length - 1] as number);
    if (max <= 2 * ids.length + 1024) {
      this.#table = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < ids.length; i++) this.#table[ids[i] as number] = i;
    }
  }

  get bytes(): number {
    return this.#table?.byteLength ?? 0;
  }

  /** The position of `id`, or -1. */
  of(id: number): number {
    if (this.#table === undefined) return binarySearch(this.#ids, id);
    return Number.isInteger(id) && id >= 0 && id < this.#table.length ? (this.#table[id] as number) : -1;
  }
}

/**
 * Rows of `width` numbers each, one row after another (null kept as NaN, which no stored number
 * is): what one candidate needs is in one or two cache lines, where a column each would cost a
 * cache miss each.
 */
export class NumberRows {
  readonly width: number;
  #values: Float64Array;
  #rows = 0;

  constructor(width: number, capacity: number) {
    this.width = width;
    this.#values = new Float64Array(width * capacity);
  }

  push(row: ReadonlyArray<number | null>): void {
    if ((this.#rows + 1) * this.width > this.#values.length) this.#values = grown(this.#values);
    const at = this.#rows++ * this.width;
    for (let f = 0; f < this.width; f++) {
      const v = row[f];
      this.#values[at + f] = v === null || v === undefined ? NaN : v;
    }
  }

  /** The rows read, `width` numbers a row. */
  values(): Float64Array {
    return this.#values.slice(0, this.#rows * this.width);
  }
}

/** Rows of `width` strings of few distinct values each (a state, an IRS code, a city): a number each, into a list of the values of its field. */
export class CodedRows {
  readonly width: number;
  readonly #values: string[][];
  readonly #codeOf: Array<Map<string, number>>;
  #codes: Uint32Array;
  #rows = 0;

  constructor(width: number, capacity: number) {
    this.width = width;
    this.#values = Array.from({ length: width }, () => []);
    this.#codeOf = Array.from({ length: width }, () => new Map());
    this.#codes = new Uint32Array(width * capacity);
  }

  push(row: readonly string[]): void {
    if ((this.#rows + 1) * this.width > this.#codes.length) this.#codes = grown(this.#codes);
    const at = this.#rows++ * this.width;
    for (let f = 0; f < this.width; f++) {
      const value = row[f] as string;
      const values = this.#values[f] as string[];
      const codeOf = this.#codeOf[f] as Map<string, number>;
      let code = codeOf.get(value);
      if (code === undefined) {
        code = values.length;
        values.push(value);
        codeOf.set(value, code);
      }
      this.#codes[at + f] = code;
    }
  }

  /** Ends loading: the codes, `width` a row, and each field's values (the maps from value to code are let go). */
  finish(): { codes: Uint32Array; values: string[][] } {
    return { codes: this.#codes.slice(0, this.#rows * this.width), values: this.#values };
  }
}

/** Runs of words as numbers, one dictionary for all of them: ranking then compares numbers, not text. */
export class WordRows {
  readonly #numberOf = new Map<string, number>();
  #words: Int32Array;
  #length = 0;

  constructor(capacity: number) {
    this.#words = new Int32Array(4 * capacity);
  }

  /** The number of `word`, a new one if no run had it. */
  number(word: string): number {
    let k = this.#numberOf.get(word);
    if (k === undefined) {
      k = this.#numberOf.size;
      this.#numberOf.set(word, k);
    }
    return k;
  }

  /** Adds a run of words; where it starts. */
  push(words: readonly string[]): number {
    const start = this.#length;
    for (const w of words) {
      if (this.#length === this.#words.length) this.#words = grown(this.#words);
      this.#words[this.#length++] = this.number(w);
    }
    return start;
  }

  finish(): { numberOf: Map<string, number>; words: Int32Array } {
    return { numberOf: this.#numberOf, words: this.#words.slice(0, this.#length) };
  }
}

/** Buckets of the lowest() histogram (a power of two). */
const BUCKETS = 4096;
/** lowest()'s counts, reused by every call (zero between calls). */
const bucketCounts = new Uint32Array(BUCKETS + 1);

/**
 * The `limit` lowest of `values` (distinct integers from 0 to below `bound`), in no particular
 * order; all of them when they fit. Found in two passes over them: a count of each bucket of
 * values, which says below which value the lowest `limit` lie, then those taken, the last bucket's
 * few sorted to cut it. Sorting them all (tens of thousands for a common word) cost a search
 * several times as much.
 */
export function lowest(values: Int32Array, limit: number, bound: number): Int32Array {
  if (values.length <= limit) return values;
  if (limit <= 0) return new Int32Array(0);
  // The smallest shift that puts every value below `bound` into BUCKETS buckets.
  let shift = 0;
  while (bound > BUCKETS * 2 ** shift) shift++;
  const counts = bucketCounts;
  try {
    for (let i = 0; i < values.length; i++) {
      const b = (values[i] as number) >>> shift;
      counts[b] = (counts[b] as number) + 1;
    }
    // The bucket the limit falls in, and how many lie in the buckets below it.
    let cut = 0;
    let below = 0;
    while (below + (counts[cut] as number) < limit) below += counts[cut++] as number;
    const out = new Int32Array(limit);
    const edge = new Int32Array(counts[cut] as number);
    let n = 0;
    let e = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      const b = v >>> shift;
      if (b < cut) out[n++] = v;
      else if (b === cut) edge[e++] = v;
    }
    out.set(edge.sort().subarray(0, limit - below), below);
    return out;
  } finally {
    counts.fill(0);
  }
}
