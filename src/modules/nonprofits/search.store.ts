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
const CANDIDATE_COLUMNS = [
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

/** The directory's epoch: raised by every import, so that search nodes reload their vocabulary. */
export async function directoryEpoch(db: Db): Promise<number> {
  const row = await db.selectFrom('directory_epoch').select('epoch').where('id', '=', 1).executeTakeFirst();
  return row?.epoch ?? 0;
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
