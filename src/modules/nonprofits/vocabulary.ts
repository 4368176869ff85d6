// The directory's vocabulary in memory: every distinct name and city word
// with how many organisations use it, sorted for prefix ranges, with a
// trigram index for typo-tolerant lookups. Pure: no I/O.

export interface Expansion {
  word: string;
  /** 0 exact, 1 prefix, 1 + d for a word d edits away. */
  quality: number;
  df: number;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), stopping past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (prevPrev[j - 2] as number) + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prevPrev = prev;
    prev = cur;
  }
  return prev[b.length] as number;
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

export class Vocabulary {
  readonly words: string[];
  readonly df: number[];
  readonly #index = new Map<string, number>();
  readonly #trigrams = new Map<string, number[]>();

  /** `entries` in any order. */
  constructor(entries: ReadonlyArray<{ word: string; df: number }>) {
    const sorted = [...entries].sort((x, y) => (x.word < y.word ? -1 : x.word > y.word ? 1 : 0));
    this.words = sorted.map((e) => e.word);
    this.df = sorted.map((e) => e.df);
    this.words.forEach((w, i) => {
      this.#index.set(w, i);
      if (w.length >= 3) {
        for (const t of new Set(trigrams(w))) {
          let list = this.#trigrams.get(t);
          if (list === undefined) {
            list = [];
            this.#trigrams.set(t, list);
          }
          list.push(i);
        }
      }
    });
  }

  get size(): number {
    return this.words.length;
  }

  dfOf(word: string): number {
    const i = this.#index.get(word);
    return i === undefined ? 0 : (this.df[i] as number);
  }

  /** Words starting with `prefix` (not the word itself), most used first. */
  prefixed(prefix: string, limit: number): Expansion[] {
    let lo = 0;
    let hi = this.words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.words[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: Expansion[] = [];
    for (let i = lo; i < this.words.length && (this.words[i] as string).startsWith(prefix); i++) {
      if (this.words[i] !== prefix) out.push({ word: this.words[i] as string, quality: 1, df: this.df[i] as number });
    }
    return out.sort((a, b) => b.df - a.df).slice(0, limit);
  }

  /** Words within the allowed edits of `word` (not the word itself), closest and most used first. */
  similar(word: string, limit: number): Expansion[] {
    const max = editsAllowed(word.length);
    if (max === 0) return [];
    const grams = trigrams(word);
    const shared = new Map<number, number>();
    for (const t of new Set(grams)) for (const i of this.#trigrams.get(t) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    // An edit changes at most 3 trigrams (a transposition 4): a word within
    // `max` edits shares at least this many with the query word.
    const needed = Math.max(1, grams.length - 4 * max);
    const out: Expansion[] = [];
    for (const [i, count] of shared) {
      if (count < needed) continue;
      const candidate = this.words[i] as string;
      if (candidate === word) continue;
      const d = editDistance(word, candidate, max);
      if (d <= max) out.push({ word: candidate, quality: 1 + d, df: this.df[i] as number });
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
