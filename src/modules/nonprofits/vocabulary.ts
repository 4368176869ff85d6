// The directory's vocabulary in memory: every distinct name and city word
// with how many organisations use it, sorted for prefix ranges, with a
// trigram index for typo-tolerant lookups. Pure: no I/O.

export interface Expansion {
  word: string;
  /** 0 exact, 1 prefix, 1 + d for a word d edits away. */
  quality: number;
  df: number;
}

/** Three rows of the distance table, reused by every call (the table is at most as wide as a word). */
let rows = new Int32Array(3 * 64);

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), stopping past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  if (rows.length < 3 * width) rows = new Int32Array(3 * width);
  // Rows i - 2, i - 1 and i of the table, rotating through `rows`.
  let prevPrev = 0;
  let prev = width;
  let cur = 2 * width;
  for (let j = 0; j < width; j++) rows[prev + j] = j;
  for (let i = 1; i <= a.length; i++) {
    const ai = a.charCodeAt(i - 1);
    const aPrev = i > 1 ? a.charCodeAt(i - 2) : -1;
    rows[cur] = i;
    let rowMin = i;
    for (let j = 1; j < width; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min((rows[prev + j] as number) + 1, (rows[cur + j - 1] as number) + 1, (rows[prev + j - 1] as number) + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && aPrev === bj) v = Math.min(v, (rows[prevPrev + j - 2] as number) + 1);
      rows[cur + j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, cur] = [prev, cur, prevPrev];
  }
  return rows[prev + b.length] as number;
}

/** Which of 32 letter classes a word uses: a word `d` edits away differs in at most `d` classes each way. */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) mask |= 1 << (word.charCodeAt(i) & 31);
  return mask;
}

/** The set bits of a 32-bit integer. */
function bitCount(n: number): number {
  let v = n - ((n >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function trigrams(word: string): string[] {
  const padded = `$$${word}$`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return out;
}

/** Edits allowed in a word of this length: none below 4 letters, 1 up to 7, 2 from 8. */
export function editsAllowed(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

/** Words used by fewer organisations than this are also matched to their near neighbours. */
export const TYPO_CHECK_BELOW_DF = 5;

/**
 * The vocabulary is held for as long as the directory is, and every full collection of the heap
 * visits what it holds: so it holds no object per word or per trigram. The words are one string,
 * each a slice of it; a word's number is its place in sorted order (found by a binary search), its
 * count and letters are typed arrays, and the trigrams' word lists are slices of one typed array.
 */
export class Vocabulary {
  /** The words in sorted order, each followed by a newline: word i is #text[#wordStarts[i] .. #wordStarts[i + 1] - 1). */
  readonly #text: string;
  readonly #wordStarts: Int32Array;
  /** Each word's count of organisations, by word number. */
  readonly #df: Int32Array;
  /** Each trigram's slot: its words are #lists[#starts[slot] .. #starts[slot + 1]), ascending. */
  readonly #slots = new Map<string, number>();
  readonly #starts: Int32Array;
  readonly #lists: Int32Array;
  /** Scratch for similar(): trigrams shared with the query word, by word index (zero between calls). */
  readonly #shared: Uint8Array;
  /** Scratch for similar(): the words it counted, in order (a list of as many as the vocabulary). */
  readonly #touched: Int32Array;
  /** Each word's letterMask(). */
  readonly #masks: Int32Array;

  /** `entries` in any order. */
  constructor(entries: ReadonlyArray<{ word: string; df: number }>) {
    const sorted = [...entries].sort((x, y) => (x.word < y.word ? -1 : x.word > y.word ? 1 : 0));
    const words = sorted.map((e) => e.word);
    this.#text = words.map((w) => `${w}\n`).join('');
    this.#wordStarts = new Int32Array(words.length + 1);
    words.forEach((w, i) => (this.#wordStarts[i + 1] = (this.#wordStarts[i] as number) + w.length + 1));
    this.#df = Int32Array.from(sorted, (e) => e.df);
    this.#shared = new Uint8Array(words.length);
    this.#touched = new Int32Array(words.length);
    this.#masks = Int32Array.from(words, letterMask);
    // Two passes over the words' trigrams: each trigram's count, then its words in their slice.
    const counts: number[] = [];
    const eachTrigram = (visit: (slot: number, word: number) => void) =>
      words.forEach((w, i) => {
        if (w.length >= 3) for (const t of new Set(trigrams(w))) visit(this.#slotOf(t, counts), i);
      });
    eachTrigram((slot) => (counts[slot] = (counts[slot] as number) + 1));
    this.#starts = new Int32Array(counts.length + 1);
    for (let slot = 0; slot < counts.length; slot++) this.#starts[slot + 1] = (this.#starts[slot] as number) + (counts[slot] as number);
    this.#lists = new Int32Array(this.#starts[counts.length] as number);
    const filled = this.#starts.slice(0, counts.length);
    eachTrigram((slot, word) => (this.#lists[(filled[slot] as number)++] = word));
  }

  /** The slot of trigram `t`, made (with a count of zero) if it has none yet. */
  #slotOf(t: string, counts: number[]): number {
    let slot = this.#slots.get(t);
    if (slot === undefined) {
      slot = counts.push(0) - 1;
      this.#slots.set(t, slot);
    }
    return slot;
  }

  get size(): number {
    return this.#df.length;
  }

  /** Word number `i`. */
  #word(i: number): string {
    return this.#text.slice(this.#wordStarts[i], (this.#wordStarts[i + 1] as number) - 1);
  }

  /** The first word's number that is not before `word` in sorted order. */
  #lowerBound(word: string): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#word(mid) < word) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  dfOf(word: string): number {
    const i = this.#lowerBound(word);
    return i < this.size && this.#word(i) === word ? (this.#df[i] as number) : 0;
  }

  /** Words starting with `prefix` (not the word itself), most used first. */
  prefixed(prefix: string, limit: number): Expansion[] {
    const lo = this.#lowerBound(prefix);
    const out: Expansion[] = [];
    for (let i = lo; i < this.size && this.#text.startsWith(prefix, this.#wordStarts[i]); i++) {
      const word = this.#word(i);
      if (word !== prefix) out.push({ word, quality: 1, df: this.#df[i] as number });
    }
    return out.sort((a, b) => b.df - a.df).slice(0, limit);
  }

  /** Words within the allowed edits of `word` (not the word itself), closest and most used first. */
  similar(word: string, limit: number): Expansion[] {
    const max = editsAllowed(word.length);
    if (max === 0) return [];
    const grams = trigrams(word);
    // Counted in typed arrays kept between calls, not a Map or a list: a short word's trigrams
    // reach tens of thousands of words, and this runs for every typo of every search.
    const shared = this.#shared;
    const touched = this.#touched;
    let reached = 0;
    for (const t of new Set(grams)) {
      const slot = this.#slots.get(t);
      if (slot === undefined) continue;
      const lists = this.#lists;
      for (let k = this.#starts[slot] as number, end = this.#starts[slot + 1] as number; k < end; k++) {
        const i = lists[k] as number;
        if (shared[i] === 0) touched[reached++] = i;
        shared[i] = (shared[i] as number) + 1;
      }
    }
    // An edit changes at most 3 trigrams (a transposition 4): a word within
    // `max` edits shares at least this many with the query word.
    const needed = Math.max(1, grams.length - 4 * max);
    const mask = letterMask(word);
    const out: Expansion[] = [];
    for (let k = 0; k < reached; k++) {
      const i = touched[k] as number;
      const count = shared[i] as number;
      shared[i] = 0;
      if (count < needed) continue;
      // A cheap bound first: each edit adds or removes at most one letter class (editDistance bounds the length itself).
      const other = this.#masks[i] as number;
      if (bitCount(mask & ~other) > max || bitCount(other & ~mask) > max) continue;
      const candidate = this.#word(i);
      if (candidate === word) continue;
      const d = editDistance(word, candidate, max);
      if (d <= max) out.push({ word: candidate, quality: 1 + d, df: this.#df[i] as number });
    }
    return out.sort((a, b) => a.quality - b.quality || b.df - a.df).slice(0, limit);
  }

  /**
   * The words a query word may stand for. `asPrefix`: the word may be
   * unfinished (search as you type). A word that many names use is taken as
   * typed: looking for its near neighbours ("legion" -> "region") would cost
   * time and bring noise; a word few or no names use may be a typo.
   */
  expand(word: string, asPrefix: boolean, limit = 40): Expansion[] {
    const out: Expansion[] = [];
    const own = this.dfOf(word);
    if (own > 0) out.push({ word, quality: 0, df: own });
    // One or two letters begin too many words to mean anything yet.
    if (asPrefix && word.length >= 3) out.push(...this.prefixed(word, limit));
    if (own < TYPO_CHECK_BELOW_DF) out.push(...this.similar(word, limit));
    const best = new Map<string, Expansion>();
    for (const e of out) {
      const known = best.get(e.word);
      if (known === undefined || e.quality < known.quality) best.set(e.word, e);
    }
    return [...best.values()].sort((a, b) => a.quality - b.quality || b.df - a.df).slice(0, limit);
  }
}
