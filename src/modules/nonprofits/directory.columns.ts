// Columns of values for the directory held in memory (directory.memory.ts):
// numbers in typed arrays and strings joined into long strings, so that two
// million organisations are a few dozen objects for the garbage collector to
// trace, not tens of millions (rows kept as objects made it collect a quarter
// of the time: docs/performance-history.md, 2026-11-30 evening).

/** Strings joined a chunk at a time (a name that needs two bytes a character makes only its chunk wide). */
export class StringColumn {
  static readonly CHUNK = 1 << 14;
  readonly #chunks: string[] = [];
  /** Where each value starts in its chunk. */
  #starts: Uint32Array;
  #pending: string[] = [];
  #pendingLength = 0;
  #length = 0;

  constructor(capacity: number) {
    this.#starts = new Uint32Array(capacity);
  }

  get length(): number {
    return this.#length;
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

  get(i: number): string {
    const chunk = this.#chunks[i >>> 14] as string;
    const last = (i & (StringColumn.CHUNK - 1)) === StringColumn.CHUNK - 1 || i === this.#length - 1;
    return chunk.slice(this.#starts[i], last ? chunk.length : this.#starts[i + 1]);
  }
}

/** Strings of few distinct values (a state, an IRS code, a city): each value once, and a number for each row. */
export class CodedColumn {
  readonly #values: string[] = [];
  readonly #codeOf = new Map<string, number>();
  #codes: Uint32Array;
  #length = 0;

  constructor(capacity: number) {
    this.#codes = new Uint32Array(capacity);
  }

  push(value: string): void {
    let code = this.#codeOf.get(value);
    if (code === undefined) {
      code = this.#values.length;
      this.#values.push(value);
      this.#codeOf.set(value, code);
    }
    if (this.#length === this.#codes.length) this.#codes = grown(this.#codes);
    this.#codes[this.#length++] = code;
  }

  /** Ends loading: the map from value to code is no longer needed. */
  finish(): void {
    this.#codeOf.clear();
  }

  get(i: number): string {
    return this.#values[this.#codes[i] as number] as string;
  }
}

/** Numbers (null kept as NaN, which no stored number is). */
export class NumberColumn {
  #values: Float64Array;
  #length = 0;

  constructor(capacity: number) {
    this.#values = new Float64Array(capacity);
  }

  push(value: number | null): void {
    if (this.#length === this.#values.length) this.#values = grown(this.#values);
    this.#values[this.#length++] = value === null ? NaN : value;
  }

  get(i: number): number {
    return this.#values[i] as number;
  }

  getOrNull(i: number): number | null {
    const v = this.#values[i] as number;
    return Number.isNaN(v) ? null : v;
  }

  /** The values pushed so far (for a binary search over sorted ones). */
  view(): Float64Array {
    return this.#values.subarray(0, this.#length);
  }
}

function grown<A extends Uint32Array | Float64Array>(a: A): A {
  const next = new (a.constructor as new (n: number) => A)(Math.max(1024, a.length * 2));
  next.set(a);
  return next;
}

/** The index of `value` in ascending `sorted`, or -1. */
export function binarySearch(sorted: Float64Array, value: number): number {
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

  /** The position of `id`, or -1. */
  of(id: number): number {
    if (this.#table === undefined) return binarySearch(this.#ids, id);
    return Number.isInteger(id) && id >= 0 && id < this.#table.length ? (this.#table[id] as number) : -1;
  }
}
