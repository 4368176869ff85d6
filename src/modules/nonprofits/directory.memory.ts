// The directory held in memory (ADR 32, rules §9): what ranking reads of the
// organisations and the word index, in columns, so that a search reads no
// candidate row from the database. Held under the two directory epochs it was
// read at; a search at other epochs reads the database (the same statements
// as without it) while a new image loads, one load at a time. Every write to
// the organisations, their words or the import's lists raises an epoch in its
// transaction, so an image read entirely between two equal readings of the
// epochs is the database as it was then: both answer every search alike.
import type { Db } from '../../db/database.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { CodedRows, grown, NumberColumn, NumberRows, Positions, StringColumn } from './directory.columns.ts';
import * as store from './search.store.ts';
import type { Candidate } from './search.store.ts';

/** Organisations from the word index, each with its size: what a search narrows, then cuts to the biggest. */
export interface Users {
  readonly size: number;
  /** Keeps only the organisations that use any of `words`. */
  narrow(words: readonly string[]): Promise<void>;
  /** At most `limit` of their ids: all of them, or the biggest (then lowest id) `limit`. */
  biggest(limit: number): number[];
}

/** What a search reads of the word index and the organisations: the database, or the image. */
export interface CandidateReads {
  /** The organisations using any of `words`. */
  postings(words: readonly string[]): Promise<Users>;
  /** The biggest users of these common words, as the import listed them. */
  topOfWords(words: readonly string[]): Promise<number[]>;
  /** What ranking needs of the organisations with these ids that are still listed. */
  listedCandidates(ids: readonly number[]): Promise<Candidate[]>;
}

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
    listedCandidates: (ids) => store.listedCandidates(db, { ids }),
  };
}

export type Epochs = { epoch: number; records: number };
export const sameEpochs = (a: Epochs, b: Epochs) => a.epoch === b.epoch && a.records === b.records;

const ORGANISATIONS_A_PAGE = 5_000;
const WORDS_A_PAGE = 20_000;
/** An organisation's coded strings, in this order (listedCandidates reads them by place). */
const CODED = ['state', 'subsection', 'foundation', 'affiliation', 'organization', 'filing_req', 'status', 'city'] as const;
/** An organisation's numbers, in this order, then whether it is listed: a row of ROW numbers. */
const NUMBERS = ['income_amt', 'asset_amt', 'revenue_amt', 'latitude', 'longitude', 'cause_id', 'eligible'] as const;
const LISTED = NUMBERS.length;
const ROW = NUMBERS.length + 1;
const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** Thrown inside a load: the epochs moved, or the node is closing. */
export class Abandoned extends Error {}
/** Thrown inside a load: the database holds what an image cannot answer alike (the log says what). */
export class Refused extends Error {}

interface ImageParts {
  epochs: Epochs;
  ids: Float64Array;
  positions: Positions;
  ein: StringColumn;
  name: StringColumn;
  /** NUMBERS, a row of them an organisation; then whether it is listed (1 or 0). */
  numbers: Float64Array;
  /** CODED, a row of codes an organisation, into `values`: each field's list of its values. */
  codes: Uint32Array;
  values: string[][];
  wordOf: Map<string, number>;
  wordStarts: Uint32Array;
  postings: Int32Array;
  top: Map<string, number[]>;
}

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
  /** Each word's users, as positions in the columns: word k's from #wordStarts[k] to #wordStarts[k + 1]. */
  readonly #wordOf: Map<string, number>;
  readonly #wordStarts: Uint32Array;
  readonly #postings: Int32Array;
  readonly #top: Map<string, number[]>;
  /** narrow's marks: the number of the narrowing that last marked each organisation. */
  readonly #marks: Uint32Array;
  readonly #positions: Positions;
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
    this.#wordOf = parts.wordOf;
    this.#wordStarts = parts.wordStarts;
    this.#postings = parts.postings;
    this.#top = parts.top;
    this.#marks = new Uint32Array(parts.ids.length);
    this.#positions = parts.positions;
  }

  /** About how many bytes the image holds (its arrays and strings; not the word map's few dozen thousand words). */
  get bytes(): number {
    const arrays = [this.#ids, this.#numbers, this.#codes, this.#postings, this.#wordStarts, this.#marks];
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
    const words = await readWords(db, go, pages.words, positions, organisations.ids.length, counts.words + 1024);
    const top = await readTop(db);
    if (!sameEpochs(epochs, await store.directoryEpochs(db))) throw new Abandoned();
    return new DirectoryImage({ epochs, ...organisations, positions, ...words, top });
  }

  async postings(words: readonly string[]): Promise<Users> {
    // Positions in an array, each once (the marks say which are in), rather than a map of ids.
    let n = 0;
    let found = new Int32Array(64);
    const mark = this.#nextMark();
    const marks = this.#marks;
    const postings = this.#postings;
    for (const [from, to] of this.#ranges(words)) {
      for (let i = from; i < to; i++) {
        const p = postings[i] as number;
        if (marks[p] === mark) continue;
        marks[p] = mark;
        if (n === found.length) found = grown(found);
        found[n++] = p;
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
   * The ids of the `limit` biggest of these positions (then the lowest id: positions follow ids),
   * or of all of them. Their incomes are copied once and sorted as numbers, which finds the
   * smallest income kept (a sort comparing positions would read an income at random twice a
   * comparison); only the positions tied at it are sorted.
   */
  #biggest(positions: Int32Array, limit: number): number[] {
    const ids = this.#ids;
    const out: number[] = [];
    if (positions.length <= limit) {
      for (const p of positions) out.push(ids[p] as number);
      return out;
    }
    const incomes = new Float64Array(positions.length);
    for (let i = 0; i < positions.length; i++) incomes[i] = this.#numbers[(positions[i] as number) * ROW] as number;
    const least = incomes.slice().sort()[positions.length - limit] as number;
    const tied: number[] = [];
    for (let i = 0; i < positions.length; i++) {
      const income = incomes[i] as number;
      if (income > least) out.push(ids[positions[i] as number] as number);
      else if (income === least) tied.push(positions[i] as number);
    }
    for (const p of Int32Array.from(tied).sort()) {
      if (out.length === limit) break;
      out.push(ids[p] as number);
    }
    return out;
  }

  async topOfWords(words: readonly string[]): Promise<number[]> {
    return words.flatMap((w) => this.#top.get(w) ?? []);
  }

  async listedCandidates(ids: readonly number[]): Promise<Candidate[]> {
    const rows: Candidate[] = [];
    const v = this.#numbers;
    const c = this.#codes;
    const [state, subsection, foundation, affiliation, organization, filingReq, status, city] = this.#values as Array<string[]>;
    for (const id of ids) {
      const p = this.#positions.of(id);
      if (p < 0 || v[p * ROW + LISTED] === 0) continue;
      const n = p * ROW;
      const k = p * CODED.length;
      rows.push({
        id,
        ein: this.#ein.get(p),
        name: this.#name.get(p),
        city: city?.[c[k + 7] as number] as string,
        state: state?.[c[k] as number] as string,
        latitude: orNull(v[n + 3] as number),
        longitude: orNull(v[n + 4] as number),
        cause_id: v[n + 5] as number,
        eligible: v[n + 6] as number,
        income_amt: v[n] as number,
        asset_amt: v[n + 1] as number,
        revenue_amt: v[n + 2] as number,
        subsection: subsection?.[c[k + 1] as number] as string,
        foundation: foundation?.[c[k + 2] as number] as string,
        affiliation: affiliation?.[c[k + 3] as number] as string,
        organization: organization?.[c[k + 4] as number] as string,
        filing_req: filingReq?.[c[k + 5] as number] as string,
        status: status?.[c[k + 6] as number] as string,
      });
    }
    return rows;
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

type Organisations = Pick<ImageParts, 'ids' | 'ein' | 'name' | 'numbers' | 'codes' | 'values'>;

/** Every organisation, listed or not (the word index names both), by id, into columns. */
async function readOrganisations(db: Db, go: () => Promise<boolean>, perPage: number, capacity: number): Promise<Organisations> {
  const ids = new NumberColumn(capacity);
  const ein = new StringColumn(capacity);
  const name = new StringColumn(capacity);
  const coded = new CodedRows(CODED.length, capacity);
  const numbers = new NumberRows(ROW, capacity);
  let after = 0;
  for (;;) {
    const page = await store.candidatesPage(db, after, perPage);
    for (const r of page) {
      assertSafeInteger(r.id, 'an organisation id');
      assert(r.id > after, 'organisations are read in ascending id order');
      after = r.id;
      ids.push(r.id);
      assert(typeof r.ein === 'string' && typeof r.name === 'string', 'an organisation has an EIN and a name');
      ein.push(r.ein);
      name.push(r.name);
      for (const c of CODED) assert(typeof r[c] === 'string', `an organisation's ${c} is text`);
      coded.push(CODED.map((c) => r[c]));
      for (const c of NUMBERS) {
        const v = r[c];
        assert(c === 'latitude' || c === 'longitude' ? v === null || Number.isFinite(v) : Number.isFinite(v), `an organisation's ${c} is a number`);
      }
      numbers.push([...NUMBERS.map((c) => r[c]), r.removed_at === null ? 1 : 0]);
    }
    if (page.length < perPage) break;
    if (!(await go())) throw new Abandoned();
  }
  for (const c of [ein, name]) c.finish();
  return { ids: ids.view().slice(), ein, name, numbers: numbers.values(), ...coded.finish() };
}

/** The word index as each word's users (positions in the columns), a word's users once. */
async function readWords(
  db: Db,
  go: () => Promise<boolean>,
  perPage: number,
  positions: Positions,
  organisations: number,
  capacity: number,
): Promise<Pick<ImageParts, 'wordOf' | 'wordStarts' | 'postings'>> {
  const wordOf = new Map<string, number>();
  const starts: number[] = [];
  let postings = new Int32Array(capacity);
  let n = 0;
  // Which word last counted each organisation: a word of both its name and its city is one user.
  const counted = new Int32Array(organisations).fill(-1);
  const take = (rows: ReadonlyArray<{ word: string; non_profit_id: number }>) => {
    for (const r of rows) {
      const position = positions.of(r.non_profit_id);
      // The word index names only organisations the directory holds (a foreign key): a load that
      // met one it does not is refused rather than answering otherwise than the database would.
      if (position < 0) throw new Refused(`the word index names organisation ${r.non_profit_id}, which the directory does not hold`);
      let k = wordOf.get(r.word);
      if (k === undefined) {
        k = starts.length;
        wordOf.set(r.word, k);
        starts.push(n);
      }
      assert(k === starts.length - 1, 'the word index is read a word at a time, in word order');
      if (counted[position] === k) continue;
      counted[position] = k;
      if (n === postings.length) postings = grown(postings);
      postings[n++] = position;
    }
  };
  // A page at a time in word order; a page's last word may be cut short, so it is read again
  // with the next page, or whole on its own when it filled the page.
  let afterWord = '';
  for (;;) {
    const page = await store.wordsPage(db, afterWord, perPage);
    if (page.length < perPage) {
      take(page);
      break;
    }
    const lastWord = (page[page.length - 1] as { word: string }).word;
    const whole = page.findIndex((r) => r.word === lastWord);
    const rows = whole > 0 ? page.slice(0, whole) : await store.wordUsers(db, lastWord);
    take(rows);
    afterWord = (rows[rows.length - 1] as { word: string }).word;
    if (!(await go())) throw new Abandoned();
  }
  starts.push(n);
  return { wordOf, wordStarts: Uint32Array.from(starts), postings: postings.slice(0, n) };
}

async function readTop(db: Db): Promise<Map<string, number[]>> {
  const top = new Map<string, number[]>();
  for (const r of await store.topEntries(db)) {
    const list = top.get(r.word) ?? [];
    list.push(r.non_profit_id);
    top.set(r.word, list);
  }
  return top;
}
