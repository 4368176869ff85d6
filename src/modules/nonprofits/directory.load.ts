// Reading the directory into a held image (directory.memory.ts, ADR 32): the organisations a
// page at a time into columns, each name's words as numbers and its prominence worked out once,
// then the word index a page at a time as each word's users.
import type { Db } from '../../db/database.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { CodedRows, grown, NumberColumn, NumberRows, Positions, StringColumn, WordRows } from './directory.columns.ts';
import { tokenize } from './nonprofits.ts';
import { FILLER, prominence } from './rank.ts';
import * as store from './search.store.ts';

export type Epochs = { epoch: number; records: number };

/** An organisation's coded strings, in this order: each field's values are listed once, a row holds their numbers. */
export const CODED = ['state', 'city'] as const;
/** What goes into an organisation's prominence (rank.ts), worked out at load: checked as numbers. */
const STANDING_NUMBERS = ['income_amt', 'asset_amt', 'revenue_amt', 'cause_id', 'eligible'] as const;
/**
 * An organisation's row of ROW numbers, by place: all that ranking reads of it but its state (only
 * for a state filter) and its words, in one 64-byte row (one cache line; a field a column cost a
 * cache miss a field, the most of a search's time). LISTED_CITY is the city's code, or -1 - the
 * code when the organisation is removed; NAME is where its name's words start times NAME_WORDS_MAX,
 * plus how many there are.
 */
export const [INCOME, ASSET, PROMINENCE, LATITUDE, LONGITUDE, CAUSE, LISTED_CITY, NAME] = [0, 1, 2, 3, 4, 5, 6, 7] as const;
export const ROW = 8;
export const NAME_WORDS_MAX = 1024;

/** Thrown inside a load: the epochs moved, or the node is closing. */
export class Abandoned extends Error {}
/** Thrown inside a load: the database holds what an image cannot answer alike (the log says what). */
export class Refused extends Error {}

export interface ImageParts {
  epochs: Epochs;
  ids: Float64Array;
  positions: Positions;
  ein: StringColumn;
  name: StringColumn;
  /** A row of ROW numbers an organisation (INCOME, ASSET, ...). */
  numbers: Float64Array;
  /** CODED, a row of codes an organisation, into `values`: each field's list of its values. */
  codes: Uint32Array;
  values: string[][];
  /** The words of names and cities as numbers: an organisation's name is a run of nameWords (its row's NAME). */
  numberOf: Map<string, number>;
  nameWords: Int32Array;
  /** Each city's words (by its code), as numbers. */
  cityWords: number[][];
  /** 1 for the numbers of FILLER words. */
  filler: Uint8Array;
  /** The position of each rank by size (sizeOrder); the word index holds ranks. */
  byRank: Int32Array;
  wordOf: Map<string, number>;
  wordStarts: Uint32Array;
  postings: Int32Array;
  top: Map<string, number[]>;
}

type Organisations = Pick<ImageParts, 'ids' | 'ein' | 'name' | 'numbers' | 'codes' | 'values' | 'numberOf' | 'nameWords' | 'cityWords' | 'filler'>;

/** Every organisation, listed or not (the word index names both), by id, into columns. */
export async function readOrganisations(db: Db, go: () => Promise<boolean>, perPage: number, capacity: number): Promise<Organisations> {
  const ids = new NumberColumn(capacity);
  const ein = new StringColumn(capacity);
  const name = new StringColumn(capacity);
  const coded = new CodedRows(CODED.length, capacity);
  const numbers = new NumberRows(ROW, capacity);
  const words = new WordRows(capacity);
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
      for (const c of ['state', 'city', 'subsection', 'foundation', 'affiliation', 'organization', 'filing_req', 'status'] as const) {
        assert(typeof r[c] === 'string', `an organisation's ${c} is text`);
      }
      coded.push(CODED.map((c) => r[c]));
      for (const c of STANDING_NUMBERS) assert(Number.isFinite(r[c]), `an organisation's ${c} is a number`);
      for (const c of ['latitude', 'longitude'] as const) assert(r[c] === null || Number.isFinite(r[c]), `an organisation's ${c} is a number or null`);
      const nameWords = tokenize(r.name);
      if (nameWords.length >= NAME_WORDS_MAX) throw new Refused(`organisation ${r.id}'s name has ${nameWords.length} words`);
      const start = words.push(nameWords);
      // LISTED_CITY is filled in below, once the cities have their codes.
      numbers.push([r.income_amt, r.asset_amt, prominence(r), r.latitude, r.longitude, r.cause_id, r.removed_at === null ? 1 : 0, start * NAME_WORDS_MAX + nameWords.length]);
    }
    if (page.length < perPage) break;
    if (!(await go())) throw new Abandoned();
  }
  for (const c of [ein, name]) c.finish();
  const { codes, values } = coded.finish();
  const rows = numbers.values();
  const city = CODED.indexOf('city');
  for (let p = 0, n = 0; n < rows.length; p++, n += ROW) {
    const code = codes[p * CODED.length + city] as number;
    rows[n + LISTED_CITY] = rows[n + LISTED_CITY] === 1 ? code : -1 - code;
  }
  const cityWords = (values[city] as string[]).map((text) => tokenize(text).map((w) => words.number(w)));
  const { numberOf, words: nameWords } = words.finish();
  const filler = new Uint8Array(numberOf.size);
  for (const w of FILLER) {
    const k = numberOf.get(w);
    if (k !== undefined) filler[k] = 1;
  }
  return { ids: ids.view().slice(), ein, name, numbers: rows, codes, values, numberOf, nameWords, cityWords, filler };
}

/**
 * The word index as each word's users, a word's users once, each as its rank by size (sizeOrder):
 * a word's users are kept in that order, so the biggest of them are its first.
 */
export async function readWords(
  db: Db,
  go: () => Promise<boolean>,
  perPage: number,
  positions: Positions,
  rankOf: Int32Array,
  capacity: number,
): Promise<Pick<ImageParts, 'wordOf' | 'wordStarts' | 'postings'>> {
  const wordOf = new Map<string, number>();
  const starts: number[] = [];
  let postings = new Int32Array(capacity);
  let n = 0;
  // Which word last counted each organisation: a word of both its name and its city is one user.
  const counted = new Int32Array(rankOf.length).fill(-1);
  // A word's users are all read before the next word's: its run is put in order when the next begins.
  const ordered = () => {
    if (starts.length > 0) postings.subarray(starts[starts.length - 1], n).sort();
  };
  const take = (rows: ReadonlyArray<{ word: string; non_profit_id: number }>) => {
    for (const r of rows) {
      const position = positions.of(r.non_profit_id);
      // The word index names only organisations the directory holds (a foreign key): a load that
      // met one it does not is refused rather than answering otherwise than the database would.
      if (position < 0) throw new Refused(`the word index names organisation ${r.non_profit_id}, which the directory does not hold`);
      let k = wordOf.get(r.word);
      if (k === undefined) {
        ordered();
        k = starts.length;
        wordOf.set(r.word, k);
        starts.push(n);
      }
      assert(k === starts.length - 1, 'the word index is read a word at a time, in word order');
      if (counted[position] === k) continue;
      counted[position] = k;
      if (n === postings.length) postings = grown(postings);
      postings[n++] = rankOf[position] as number;
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
  ordered();
  starts.push(n);
  return { wordOf, wordStarts: Uint32Array.from(starts), postings: postings.slice(0, n) };
}

export async function readTop(db: Db): Promise<Map<string, number[]>> {
  const top = new Map<string, number[]>();
  for (const r of await store.topEntries(db)) {
    const list = top.get(r.word) ?? [];
    list.push(r.non_profit_id);
    top.set(r.word, list);
  }
  return top;
}

/**
 * Each organisation's rank by size, biggest first (income, then the lowest id: positions follow
 * ids), and the position of each rank: the order in which a word's biggest users are wanted. Found
 * without a comparison callback: incomes sorted as plain numbers, each position's rank then the
 * number of bigger incomes (a binary search) plus the earlier positions of its own income. The
 * sort goes a run of `run` incomes at a time, then merges runs two by two, serving the event loop
 * between steps (sorting 1.9M at once held it for about 0.3 s).
 */
export async function sizeOrder(rows: Float64Array, go: () => Promise<boolean>, run = 1 << 17): Promise<{ rankOf: Int32Array; byRank: Int32Array }> {
  const count = rows.length / ROW;
  const incomes = new Float64Array(count);
  const sorted = await sortedInSteps(rows, incomes, run, go);
  const seen = new Int32Array(count + 1);
  const rankOf = new Int32Array(count);
  const byRank = new Int32Array(count);
  for (let p = 0; p < count; p++) {
    const income = incomes[p] as number;
    // The first place in `sorted` past every income equal to this one.
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sorted[mid] as number) <= income) lo = mid + 1;
      else hi = mid;
    }
    const rank = count - lo + (seen[lo] as number);
    seen[lo] = (seen[lo] as number) + 1;
    rankOf[p] = rank;
    byRank[rank] = p;
    // The event loop is served now and then (each search misses the caches: about 30 ms of work at a time).
    if (p % 20_000 === 19_999 && !(await go())) throw new Abandoned();
  }
  return { rankOf, byRank };
}

/**
 * The rows' incomes into `incomes`, and sorted into a new array: a run at a time copied and sorted
 * natively, then runs merged two by two, `go` asked after every `run` values.
 */
async function sortedInSteps(rows: Float64Array, incomes: Float64Array, run: number, go: () => Promise<boolean>): Promise<Float64Array> {
  const count = incomes.length;
  let from = new Float64Array(count);
  for (let at = 0; at < count; at += run) {
    const end = Math.min(at + run, count);
    for (let p = at; p < end; p++) incomes[p] = rows[p * ROW + INCOME] as number;
    from.set(incomes.subarray(at, end), at);
    from.subarray(at, end).sort();
    if (!(await go())) throw new Abandoned();
  }
  let to = new Float64Array(count);
  for (let width = run; width < count; width *= 2) {
    for (let lo = 0; lo < count; lo += 2 * width) {
      const mid = Math.min(lo + width, count);
      const hi = Math.min(lo + 2 * width, count);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi;) {
        const stop = Math.min(k + run, hi);
        for (; k < stop; k++) to[k] = j >= hi || (i < mid && (from[i] as number) <= (from[j] as number)) ? (from[i++] as number) : (from[j++] as number);
        if (!(await go())) throw new Abandoned();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
