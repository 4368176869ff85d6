// Every SQL statement of directory search: the vocabulary, the word index's
// postings, the organisations a search reads, and browsing by filters.
import type { Db } from '../../db/database.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import type { toNonProfit } from './nonprofits.store.ts';
import type { Selectable } from 'kysely';
import type { NonProfitsTable } from '../../db/schema.ts';

export type SearchRow = Parameters<typeof toNonProfit>[0] & { income_amt: number; asset_amt: number };
const ROW_COLUMNS = ['id', 'ein', 'name', 'website', 'city', 'state', 'latitude', 'longitude', 'cause_id', 'eligible', 'slug', 'income_amt', 'asset_amt'] as const;
/** What ranking a candidate needs; the page's rows are then read whole. */
export const CANDIDATE_COLUMNS = [
  'id',
  'ein',
  'name',
  'city',
  'state',
  'latitude',
  'longitude',
  'cause_id',
  'eligible',
  'income_amt',
  'asset_amt',
  'revenue_amt',
  'subsection',
  'foundation',
  'affiliation',
  'organization',
  'filing_req',
  'status',
] as const;
export type Candidate = Pick<Selectable<NonProfitsTable>, (typeof CANDIDATE_COLUMNS)[number]>;

/**
 * The directory's two epochs, in one read: `epoch`, raised by every import (search nodes reload
 * their vocabulary), and `records`, raised by every change of an organisation in the transaction
 * that makes it (nodes drop what they hold of organisations: cards, the directory in memory).
 */
export async function directoryEpochs(db: Db): Promise<{ epoch: number; records: number }> {
  const row = await db.selectFrom('directory_epoch').select(['epoch', 'records_epoch']).where('id', '=', 1).executeTakeFirst();
  return { epoch: row?.epoch ?? 0, records: row?.records_epoch ?? 0 };
}

/** The vocabulary the last import counted (empty before any import). */
export async function vocabularyEntries(db: Db): Promise<Array<{ word: string; df: number }>> {
  return db.selectFrom('directory_vocabulary').select(['word', 'df']).execute();
}

/** The vocabulary counted from the word index itself (a directory filled without an import). */
export async function countWords(db: Db): Promise<Array<{ word: string; df: number }>> {
  const rows = await db
    .selectFrom('non_profit_words')
    .select(['word', (eb) => eb.fn.countAll<number>().as('df')])
    .groupBy('word')
    .execute();
  return rows.map((r) => ({ word: r.word, df: Number(r.df) }));
}

/** The organisations using any of `words`, each with its size. */
export async function postings(db: Db, words: readonly string[]): Promise<Map<number, number>> {
  if (words.length === 0) return new Map();
  const rows = await db.selectFrom('non_profit_words').select(['non_profit_id', 'size']).where('word', 'in', words).execute();
  // Up to tens of thousands of entries a search: no array of pairs in between.
  const sizes = new Map<number, number>();
  for (const r of rows) sizes.set(r.non_profit_id, r.size);
  return sizes;
}

/** The organisations using any of `words`. */
export async function usersOf(db: Db, words: readonly string[]): Promise<Set<number>> {
  if (words.length === 0) return new Set();
  const rows = await db.selectFrom('non_profit_words').select('non_profit_id').where('word', 'in', words).execute();
  const users = new Set<number>();
  for (const r of rows) users.add(r.non_profit_id);
  return users;
}

/** The biggest users of these common words, as the import listed them (directory_top). */
export async function topOfWords(db: Db, words: readonly string[]): Promise<number[]> {
  if (words.length === 0) return [];
  return (await db.selectFrom('directory_top').select('non_profit_id').where('word', 'in', words).execute()).map((r) => r.non_profit_id);
}

/** The organisations with these ids that are still listed. */
export async function listedRows(db: Db, ids: readonly number[]): Promise<SearchRow[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('non_profits').select(ROW_COLUMNS).where('removed_at', 'is', null).where('id', 'in', ids).execute()) as SearchRow[];
}

/** What ranking needs of the organisations with these ids (or this EIN) that are still listed. */
export async function listedCandidates(db: Db, ref: { ids: readonly number[] } | { ein: string }): Promise<Candidate[]> {
  const q = db.selectFrom('non_profits').select(CANDIDATE_COLUMNS).where('removed_at', 'is', null);
  if ('ein' in ref) return q.where('ein', '=', ref.ein).execute();
  return ref.ids.length === 0 ? [] : q.where('id', 'in', ref.ids).execute();
}

export interface Filters {
  cause_id?: number;
  state?: string;
  /** A box of latitudes and longitudes. */
  box?: { lat: [number, number]; lng: [number, number] };
}

function filtered(db: Db, f: Filters) {
  let base = db.selectFrom('non_profits').where('removed_at', 'is', null);
  if (f.cause_id !== undefined) base = base.where('cause_id', '=', f.cause_id);
  if (f.state !== undefined) base = base.where('state', '=', f.state.toUpperCase());
  if (f.box !== undefined) {
    base = base.where('latitude', '>=', f.box.lat[0]).where('latitude', '<=', f.box.lat[1]).where('longitude', '>=', f.box.lng[0]).where('longitude', '<=', f.box.lng[1]);
  }
  return base;
}

/** Up to `limit` listed organisations matching the filters, biggest first. */
export async function biggestMatching(db: Db, f: Filters, limit: number): Promise<SearchRow[]> {
  return (await filtered(db, f).select(ROW_COLUMNS).orderBy('income_amt', 'desc').orderBy('name').limit(limit).execute()) as SearchRow[];
}

/** A page of the listed organisations matching the filters, biggest first, and how many match. */
export async function pageMatching(db: Db, f: Filters, page: PageRequest): Promise<{ rows: SearchRow[]; count: number }> {
  const base = filtered(db, f);
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base.select(ROW_COLUMNS).orderBy('income_amt', 'desc').orderBy('name').orderBy('id').limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  return { rows: rows as SearchRow[], count: Number(counted.n) };
}

/** A ZIP code's centre, as the last import read it (undefined for a ZIP it did not list). */
export async function zipCentroid(db: Db, zip: string): Promise<{ latitude: number; longitude: number } | undefined> {
  return await db.selectFrom('zip_centroids').select(['latitude', 'longitude']).where('zip', '=', zip).executeTakeFirst();
}

// What a node reads to hold the directory in memory (directory.memory.ts): every organisation's
// candidate columns and the word index, a page at a time in key order (keyset, never an offset).

/** How many organisations and word entries there are: what the arrays are sized for. */
export async function directoryCounts(db: Db): Promise<{ organisations: number; words: number }> {
  const [n, w] = await Promise.all([
    db
      .selectFrom('non_profits')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('non_profit_words')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { organisations: Number(n.n), words: Number(w.n) };
}

/** Organisations after `afterId`, by id, listed or not (the word index names both), with what ranking needs. */
export async function candidatesPage(db: Db, afterId: number, limit: number): Promise<Array<Candidate & { removed_at: string | null }>> {
  return db
    .selectFrom('non_profits')
    .select([...CANDIDATE_COLUMNS, 'removed_at'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Word index entries of the words after `afterWord`, in word order (a word's users in any order),
 * at most `limit`; the last word may be cut short (wordUsers reads one whole). Both engines walk
 * an index on the word for it, with no sort.
 */
export async function wordsPage(db: Db, afterWord: string, limit: number): Promise<Array<{ word: string; non_profit_id: number }>> {
  return db.selectFrom('non_profit_words').select(['word', 'non_profit_id']).where('word', '>', afterWord).orderBy('word').limit(limit).execute();
}

/** One word's entries in the word index. */
export async function wordUsers(db: Db, word: string): Promise<Array<{ word: string; non_profit_id: number }>> {
  return db.selectFrom('non_profit_words').select(['word', 'non_profit_id']).where('word', '=', word).execute();
}

/** The import's lists of the biggest users of each common word (directory_top), whole. */
export async function topEntries(db: Db): Promise<Array<{ word: string; non_profit_id: number }>> {
  return db.selectFrom('directory_top').select(['word', 'non_profit_id']).execute();
}
