// The directory held in memory (ADR 32, rules §9): what ranking reads of the
// organisations and the word index, in columns, so that a search reads no
// candidate row from the database. Held under the two directory epochs it was
// read at; a search at other epochs reads the database (the same statements
// as without it) while a new image loads, one load at a time. Every write to
// the organisations, their words or the import's lists raises an epoch in its
// transaction, so an image read entirely between two equal readings of the
// epochs is the database as it was then: both answer every search alike.
import type { Db } from '../../db/database.ts';
import { grown, lowest, Positions, type StringColumn } from './directory.columns.ts';
import {
  Abandoned,
  ASSET,
  CAUSE,
  CODED,
  INCOME,
  LATITUDE,
  LISTED_CITY,
  LONGITUDE,
  NAME,
  NAME_WORDS_MAX,
  PROMINENCE,
  readOrganisations,
  readTop,
  readWords,
  sizeOrder,
  ROW,
  type Epochs,
  type ImageParts,
} from './directory.load.ts';
import { tokenize } from './nonprofits.ts';
import { best, inFilters, isFillerText, prominence, readingsScore, type Ranking, type Scored, type Term } from './rank.ts';
import * as store from './search.store.ts';
import type { Candidate } from './search.store.ts';

/**
 * Organisations from the word index, each with its size: what a search narrows, then cuts to the
 * biggest. They are handed out as the reads' handles (CandidateReads).
 */
export interface Users {
  readonly size: number;
  /** Keeps only the organisations that use any of `words`. */
  narrow(words: readonly string[]): Promise<void>;
  /** At most `limit` of their handles, each once: all of them, or the biggest (then lowest id) `limit`. */
  biggest(limit: number): number[];
}

/**
 * What a search reads of the word index and the organisations: the database, or the image. Each
 * names organisations by its own handles (the database by their ids, the image by where it holds
 * them, which saves it looking every candidate up), taken back by `ranked`; `ranked` answers ids.
 */
export interface CandidateReads {
  /** The organisations using any of `words`. */
  postings(words: readonly string[]): Promise<Users>;
  /** The handles of the biggest users of these common words, as the import listed them. */
  topOfWords(words: readonly string[]): Promise<number[]>;
  /** The handles of the organisations with these ids (those it holds). */
  handlesOf(ids: readonly number[]): number[];
  /** The ids of these handles. */
  idsOf(handles: readonly number[]): number[];
  /**
   * Of the organisations among `handles` that are still listed, pass the filters and match a
   * reading: how many there are, and the ids of the best `k` of them, best first (rank.ts).
   */
  ranked(handles: readonly number[], how: Ranking, k: number): Promise<Best>;
}

/** How many organisations a search matched, and the best of them. */
export type Best = { ids: number[]; count: number };

/** Ids by size, biggest first (then by id); at most `limit`, all of them in any order when they fit. */
export function biggestOf(sizes: ReadonlyMap<number, number>, limit: number): number[] {
  if (sizes.size <= limit) return [...sizes.keys()];
  return [...sizes]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([id]) => id);
}

export function databaseReads(db: Db): CandidateReads {
  return {
    postings: async (words) => {
      const sizes = await store.postings(db, words);
      return {
        get size() {
          return sizes.size;
        },
        narrow: async (others) => {
          const users = await store.usersOf(db, others);
          for (const id of sizes.keys()) if (!users.has(id)) sizes.delete(id);
        },
        biggest: (limit) => biggestOf(sizes, limit),
      };
    },
    topOfWords: (words) => store.topOfWords(db, words),
    handlesOf: (ids) => [...ids],
    idsOf: (handles) => [...handles],
    ranked: async (ids, how, k) => {
      const rows: Candidate[] = [];
      for (let i = 0; i < ids.length; i += IDS_A_STATEMENT) rows.push(...(await store.listedCandidates(db, { ids: ids.slice(i, i + IDS_A_STATEMENT) })));
      return rankRows(rows, how, k);
    },
  };
}

/** Bound values a statement at most (SQLite's default limit is 32,766). */
const IDS_A_STATEMENT = 5_000;

/** Ranks rows read from the database: each name and city tokenized, its prominence worked out. */
function rankRows(rows: readonly Candidate[], how: Ranking, k: number): Best {
  const scored: Scored[] = [];
  rows.forEach((row, at) => {
    if (!inFilters(how, row.cause_id, row.state, row.latitude, row.longitude)) return;
    const text = row.ein === how.ein ? Infinity : readingsScore(tokenize(row.name), tokenize(row.city), how.readings, isFillerText);
    if (text !== undefined) scored.push({ id: row.id, score: text + prominence(row), income: row.income_amt, asset: row.asset_amt, at });
  });
  return { ids: best(scored, k, (at) => (rows[at] as Candidate).name).map((s) => s.id), count: scored.length };
}

export { Abandoned, Refused, type Epochs } from './directory.load.ts';
export const sameEpochs = (a: Epochs, b: Epochs) => a.epoch === b.epoch && a.records === b.records;

const ORGANISATIONS_A_PAGE = 5_000;
const WORDS_A_PAGE = 20_000;
const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** One reading of the directory, at `epochs`. Sizes are incomes: every word row's size is its organisation's income (writers keep it so). */
export class DirectoryImage implements CandidateReads {
  readonly epochs: Epochs;
  readonly organisations: number;
  readonly #ids: Float64Array;
  readonly #ein: StringColumn;
  readonly #name: StringColumn;
  readonly #numbers: Float64Array;
  readonly #codes: Uint32Array;
  readonly #values: string[][];
  /** Names' and cities' words as numbers, which ranking compares (ImageParts). */
  readonly #numberOf: Map<string, number>;
  readonly #nameWords: Int32Array;
  readonly #cityWords: number[][];
  readonly #isFiller: (w: number) => boolean;
  /** Each word's users, as ranks by size, in order: word k's from #wordStarts[k] to #wordStarts[k + 1]. */
  readonly #wordOf: Map<string, number>;
  readonly #wordStarts: Uint32Array;
  readonly #postings: Int32Array;
  readonly #top: Map<string, number[]>;
  /** narrow's marks: the number of the narrowing that last marked each organisation. */
  readonly #marks: Uint32Array;
  readonly #positions: Positions;
  /** The position of each rank by size: the word index's entries are ranks (directory.load.ts, sizeOrder). */
  readonly #byRank: Int32Array;
  #marking = 0;

  private constructor(parts: ImageParts) {
    this.epochs = parts.epochs;
    this.organisations = parts.ids.length;
    this.#ids = parts.ids;
    this.#ein = parts.ein;
    this.#name = parts.name;
    this.#numbers = parts.numbers;
    this.#codes = parts.codes;
    this.#values = parts.values;
    this.#numberOf = parts.numberOf;
    this.#nameWords = parts.nameWords;
    this.#cityWords = parts.cityWords;
    const filler = parts.filler;
    this.#isFiller = (w) => filler[w] === 1;
    this.#wordOf = parts.wordOf;
    this.#wordStarts = parts.wordStarts;
    this.#postings = parts.postings;
    this.#top = parts.top;
    this.#marks = new Uint32Array(parts.ids.length);
    this.#positions = parts.positions;
    this.#byRank = parts.byRank;
  }

  /** About how many bytes the image holds (its arrays and strings; not the word map's few dozen thousand words). */
  get bytes(): number {
    const arrays = [this.#ids, this.#numbers, this.#codes, this.#nameWords, this.#byRank, this.#postings, this.#wordStarts, this.#marks];
    return arrays.reduce((sum, a) => sum + a.byteLength, 0) + this.#positions.bytes + this.#ein.bytes + this.#name.bytes;
  }

  get entries(): number {
    return this.#postings.length;
  }

  /** Reads the directory a page at a time; `go` is asked between pages and abandons the load when false. */
  static async load(db: Db, go: () => Promise<boolean>, pages = { organisations: ORGANISATIONS_A_PAGE, words: WORDS_A_PAGE }): Promise<DirectoryImage> {
    const epochs = await store.directoryEpochs(db);
    const counts = await store.directoryCounts(db);
    const organisations = await readOrganisations(db, go, pages.organisations, counts.organisations + 1024);
    const positions = new Positions(organisations.ids);
    const { rankOf, byRank } = await sizeOrder(organisations.numbers, go);
    const words = await readWords(db, go, pages.words, positions, rankOf, counts.words + 1024);
    const top = await readTop(db);
    if (!sameEpochs(epochs, await store.directoryEpochs(db))) throw new Abandoned();
    return new DirectoryImage({ epochs, ...organisations, positions, byRank, ...words, top });
  }

  async postings(words: readonly string[]): Promise<Users> {
    const postings = this.#postings;
    const marks = this.#marks;
    const ranges = this.#ranges(words);
    // One word's users are each listed once: read where they are, copied only if narrowed. Several
    // words' are put in an array, each once (the marks say which are in), rather than a map of ids.
    let found: Int32Array;
    let n = 0;
    let own = ranges.length !== 1;
    if (!own) {
      const [from, to] = ranges[0] as [number, number];
      found = postings.subarray(from, to);
      n = to - from;
    } else {
      found = new Int32Array(64);
      const mark = this.#nextMark();
      for (const [from, to] of ranges) {
        for (let i = from; i < to; i++) {
          const r = postings[i] as number;
          if (marks[r] === mark) continue;
          marks[r] = mark;
          if (n === found.length) found = grown(found);
          found[n++] = r;
        }
      }
    }
    return {
      get size() {
        return n;
      },
      narrow: async (others) => {
        // Their users marked in place, then kept in order (no set of tens of thousands of ids).
        const by = this.#nextMark();
        for (const [from, to] of this.#ranges(others)) for (let i = from; i < to; i++) marks[postings[i] as number] = by;
        if (!own) {
          found = found.slice(0, n);
          own = true;
        }
        let kept = 0;
        for (let i = 0; i < n; i++) if (marks[found[i] as number] === by) found[kept++] = found[i] as number;
        n = kept;
      },
      biggest: (limit) => this.#biggest(found.subarray(0, n), limit),
    };
  }

  /** A number no organisation is marked with yet (every mark cleared when they run out, after four billion). */
  #nextMark(): number {
    if (this.#marking === 0xffff_ffff) {
      this.#marks.fill(0);
      this.#marking = 0;
    }
    return ++this.#marking;
  }

  /**
   * Where the `limit` biggest of these organisations (then the lowest id), or all of them, are
   * held: they are ranks by size, so the biggest are the lowest (lowest(): no organisation's
   * income is read, and none is put in order but a few at the cut).
   */
  #biggest(ranks: Int32Array, limit: number): number[] {
    const byRank = this.#byRank;
    const kept = lowest(ranks, limit, this.organisations);
    const out: number[] = [];
    for (let i = 0; i < kept.length; i++) out.push(byRank[kept[i] as number] as number);
    return out;
  }

  async topOfWords(words: readonly string[]): Promise<number[]> {
    return this.handlesOf(words.flatMap((w) => this.#top.get(w) ?? []));
  }

  /** An organisation's handle is where the image holds it. */
  handlesOf(ids: readonly number[]): number[] {
    const out: number[] = [];
    for (const id of ids) {
      const p = this.#positions.of(id);
      if (p >= 0) out.push(p);
    }
    return out;
  }

  idsOf(handles: readonly number[]): number[] {
    return handles.map((p) => this.#ids[p] as number);
  }

  async ranked(handles: readonly number[], how: Ranking, k: number): Promise<Best> {
    // As rankRows does from rows, here from each organisation's row of numbers (its prominence
    // worked out at load) and its name's and city's words as numbers.
    const readings = how.readings.map((terms) => terms.map((t) => this.#numbered(t)));
    const filtered = how.cause_id !== undefined || how.state !== undefined || how.near !== undefined;
    const v = this.#numbers;
    const words = this.#nameWords;
    const states = this.#values[CODED.indexOf('state')] as string[];
    // Each candidate's row and its name's first words, each in a short loop whose turns do not
    // wait on one another: the processor has many of their cache misses under way at once, where
    // one candidate at a time waited for each in turn (most of the ranking's time). A candidate's
    // handle is its place: no id is looked up.
    const at = handles;
    // The listed, by their index in `handles`, with their name's first word (-1: a name of no word).
    const kept = new Int32Array(handles.length);
    const first = new Int32Array(handles.length);
    let listed = 0;
    for (let i = 0; i < handles.length; i++) {
      const p = at[i] as number;
      if ((v[p * ROW + LISTED_CITY] as number) < 0) continue;
      const from = v[p * ROW + NAME] as number;
      first[listed] = from % NAME_WORDS_MAX === 0 ? -1 : (words[Math.floor(from / NAME_WORDS_MAX)] as number);
      kept[listed++] = i;
    }
    const name: number[] = [];
    const scored: Scored[] = [];
    for (let j = 0; j < listed; j++) {
      const i = kept[j] as number;
      const p = at[i] as number;
      const n = p * ROW;
      if (filtered) {
        const state = states[this.#codes[p * CODED.length] as number] as string;
        if (!inFilters(how, v[n + CAUSE] as number, state, orNull(v[n + LATITUDE] as number), orNull(v[n + LONGITUDE] as number))) continue;
      }
      let text: number | undefined = Infinity;
      if (how.ein === null || this.#ein.get(p) !== how.ein) {
        const from = v[n + NAME] as number;
        const start = Math.floor(from / NAME_WORDS_MAX);
        name.length = 0;
        if (first[j] !== -1) name.push(first[j] as number);
        for (let w = start + 1, end = start + (from % NAME_WORDS_MAX); w < end; w++) name.push(words[w] as number);
        text = readingsScore(name, this.#cityWords[v[n + LISTED_CITY] as number] as number[], readings, this.#isFiller);
      }
      if (text !== undefined)
        // Its place stands for its id: places follow ids, so the last tie-break orders them alike.
        scored.push({ id: p, score: text + (v[n + PROMINENCE] as number), income: v[n + INCOME] as number, asset: v[n + ASSET] as number, at: p });
    }
    return { ids: best(scored, k, (p) => this.#name.get(p)).map((s) => this.#ids[s.id] as number), count: scored.length };
  }

  /** A query word's expansions as the numbers of the words names and cities use (the others match none). */
  #numbered(t: Term): Term<number> {
    const map = new Map<number, number>();
    for (const [word, quality] of t.map) {
      const k = this.#numberOf.get(word);
      if (k !== undefined) map.set(k, quality);
    }
    return { map, optional: t.optional };
  }

  /** Where each of these words' users are in #postings (words the index lacks have none). */
  #ranges(words: readonly string[]): Array<[from: number, to: number]> {
    const ranges: Array<[number, number]> = [];
    for (const w of words) {
      const k = this.#wordOf.get(w);
      if (k !== undefined) ranges.push([this.#wordStarts[k] as number, this.#wordStarts[k + 1] as number]);
    }
    return ranges;
  }
}
