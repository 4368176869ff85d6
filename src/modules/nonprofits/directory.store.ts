// Every SQL statement of the directory import: the organisations and their
// word index written in bulk, the import runs, the search indexes dropped
// and built around a big load, and the vocabulary counted from the words.
import { dialectOf } from '../../db/dialect.ts';
import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { bulkInsert } from '../../db/bulk.ts';
import { assert } from '../../shared/assert.ts';
import type { NonProfitsTable } from '../../db/schema.ts';
import { IRS_COLUMNS, bumpRecordsEpoch, type NonProfitInput } from './nonprofits.store.ts';

export type StoredNonProfit = Selectable<NonProfitsTable>;

/** The stored organisations among these EINs. */
export async function storedByEins(trx: Trx, eins: readonly string[]): Promise<StoredNonProfit[]> {
  if (eins.length === 0) return [];
  return trx.selectFrom('non_profits').selectAll().where('ein', 'in', eins).execute();
}

/** Rewrites an organisation from a file's row: listed again, seen by this run. */
export async function rewriteNonProfit(trx: Trx, id: number, input: NonProfitInput, source: string, runId: number, at: string): Promise<void> {
  await trx
    .updateTable('non_profits')
    .set({ ...input, source, last_seen_run: runId, removed_at: null, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Marks organisations as seen by this run (their rows unchanged). */
export async function markSeenByRun(trx: Trx, ids: readonly number[], runId: number): Promise<void> {
  if (ids.length > 0) await trx.updateTable('non_profits').set({ last_seen_run: runId }).where('id', 'in', ids).execute();
}

export interface Indexed {
  id: number;
  name: string;
  city: string;
  income_amt: number;
}

/** The columns a file's row sets: an organisation whose stored values all equal the row's is unchanged. */
export const FILE_COLUMNS = [
  'name',
  'name_lower',
  'website',
  'city',
  'state',
  'zip',
  'latitude',
  'longitude',
  'ntee_code',
  'cause_id',
  'eligible',
  'slug',
  'income_amt',
  'asset_amt',
  'tax_period',
  ...IRS_COLUMNS,
] as const satisfies ReadonlyArray<keyof NonProfitInput>;

const INSERTED = ['ein', ...FILE_COLUMNS] as const;

/** Inserts new organisations, as many a statement as the engines' limits on bound parameters allow. */
export async function insertNonProfits(trx: Trx, rows: readonly NonProfitInput[], source: string, runId: number, at: string): Promise<Indexed[]> {
  const inserted: Indexed[] = [];
  // Within every engine's limit on bound parameters (SQLite: 32,766).
  const perStatement = Math.floor(30_000 / (INSERTED.length + 4));
  for (let i = 0; i < rows.length; i += perStatement) {
    inserted.push(
      ...(await bulkInsert<Indexed>(
        trx,
        'non_profits',
        [...INSERTED, 'source', 'last_seen_run', 'created_at', 'updated_at'],
        rows.slice(i, i + perStatement).map((a) => [...INSERTED.map((c) => a[c]), source, runId, at, at]),
        ['id', 'name', 'city', 'income_amt'],
      )),
    );
  }
  return inserted;
}

export type WordRow = readonly [word: string, nonProfitId: number, kind: string, size: number];

/** Keeps the ZIP centroids an import read, for "near me" by ZIP code (replacing the ones kept before). */
export async function replaceZipCentroids(trx: Trx, zips: ReadonlyArray<readonly [zip: string, latitude: number, longitude: number]>): Promise<void> {
  await trx.deleteFrom('zip_centroids').execute();
  for (let i = 0; i < zips.length; i += 3000) await bulkInsert(trx, 'zip_centroids', ['zip', 'latitude', 'longitude'], zips.slice(i, i + 3000));
}

/** Adds words to the index. */
export async function insertWords(trx: Trx, words: readonly WordRow[]): Promise<void> {
  for (let i = 0; i < words.length; i += 4000) await bulkInsert(trx, 'non_profit_words', ['word', 'non_profit_id', 'kind', 'size'], words.slice(i, i + 4000));
}

/** Forgets an organisation's words (its name or city changed). */
export async function deleteWords(trx: Trx, nonProfitId: number): Promise<void> {
  await trx.deleteFrom('non_profit_words').where('non_profit_id', '=', nonProfitId).execute();
}

/** Gives an organisation's words its new size (the index lists a word's users biggest first). */
export async function resizeWords(trx: Trx, nonProfitId: number, size: number): Promise<void> {
  await trx.updateTable('non_profit_words').set({ size }).where('non_profit_id', '=', nonProfitId).execute();
}

/**
 * Indexes that only reads use, dropped for a big load and built again after it:
 * building an index once is far cheaper than updating it row by row. If an
 * import is cut short, the next start of the platform builds them.
 */
const BULK_INDEXES: ReadonlyArray<{ name: string; table: 'non_profits' | 'non_profit_words'; columns: string[] }> = [
  { name: 'non_profit_words_word_size', table: 'non_profit_words', columns: ['word', 'size desc', 'non_profit_id'] },
  { name: 'non_profits_cause_size', table: 'non_profits', columns: ['cause_id', 'income_amt'] },
  { name: 'non_profits_latitude', table: 'non_profits', columns: ['latitude'] },
  { name: 'non_profits_state_size', table: 'non_profits', columns: ['state', 'income_amt'] },
];

/**
 * After an import on PostgreSQL, the organisations and their words vacuumed and their statistics
 * made again: until a vacuum marks their pages all-visible, an index-only read of the word index
 * (a node loading its image, the vocabulary's count) visits the table for every entry. At 1.9M
 * organisations a page of 20,000 entries took 519 ms before and 17 ms after, and a node's image
 * loaded in 80-90 s before against 36 s (docs/performance-history.md, 2026-12-02 evening).
 * SQLite reads its indexes without it: nothing to do.
 */
export async function vacuumDirectory(db: Db): Promise<void> {
  if (dialectOf(db).engine === 'postgres') await sql`vacuum (analyze) non_profits, non_profit_words`.execute(db);
}

/**
 * Builds the indexes a big load dropped (none when they exist). On SQLite the
 * sorts behind them run on two threads, in runs of a 16 MiB page cache that
 * stay in the CPU's cache before they are merged: at 1.9M organisations the
 * word index (10M entries) was built in 5.3-6.3 s instead of 10.7 with one
 * thread and the 64 MiB cache (a 512 MiB cache took 17 s). The cache is
 * restored after.
 */
export async function ensureDirectoryIndexes(db: Db): Promise<void> {
  const { engine } = dialectOf(db);
  const build = async () => {
    for (const index of BULK_INDEXES) await db.schema.createIndex(index.name).ifNotExists().on(index.table).columns(index.columns).execute();
  };
  if (engine !== 'sqlite') return build();
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
  const cacheSize = Number(rows[0]?.cache_size);
  assert(Number.isSafeInteger(cacheSize), 'pragma cache_size answers an integer');
  await sql`pragma threads = 2`.execute(db);
  await sql`pragma cache_size = -16384`.execute(db);
  try {
    await build();
  } finally {
    await sql`pragma threads = 0`.execute(db);
    await sql.raw(`pragma cache_size = ${cacheSize}`).execute(db);
  }
}

export async function dropDirectoryIndexes(db: Db): Promise<void> {
  for (const index of BULK_INDEXES) await db.schema.dropIndex(index.name).ifExists().execute();
}

/**
 * SQLite, for a load that can be run again: commits skip the fsync (WAL,
 * synchronous=NORMAL: a crash can lose the last batches, never corrupt),
 * sorts go to disk, and foreign keys are not checked: the only rows that
 * reference another are the word rows, written with the ids the insert of
 * their organisations returned (10M checks, 2 s at national size; `almoner
 * check` finds a word of no organisation: check.store.ts danglingReferences). `false` restores full durability
 * and the checks, and checkpoints the WAL.
 */
export async function bulkLoad(db: Db, on: boolean): Promise<void> {
  // PostgreSQL needs no switch: its bulk writes are as safe as any.
  if (dialectOf(db).engine !== 'sqlite') return;
  if (on) {
    await sql`pragma synchronous = NORMAL`.execute(db);
    await sql`pragma temp_store = FILE`.execute(db);
    await sql`pragma foreign_keys = OFF`.execute(db);
    return;
  }
  await sql`pragma synchronous = FULL`.execute(db);
  await sql`pragma temp_store = MEMORY`.execute(db);
  await sql`pragma foreign_keys = ON`.execute(db);
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
}

export async function startImportRun(db: Db, at: string): Promise<number> {
  const run = await db.insertInto('import_runs').values({ started_at: at, finished_at: null, summary: null }).returning('id').executeTakeFirstOrThrow();
  return run.id;
}

export async function finishImportRun(db: Db, runId: number, summary: unknown, at: string): Promise<void> {
  await db
    .updateTable('import_runs')
    .set({ finished_at: at, summary: JSON.stringify(summary) })
    .where('id', '=', runId)
    .execute();
}

/**
 * Marks removed the organisations of `source` a complete file no longer lists:
 * not seen by this run, and not newer than the file. Returns how many.
 */
export async function markUnlisted(db: Db, source: string, runId: number, fileMaxPeriod: string, at: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('non_profits')
      .set({ removed_at: at })
      .where('source', '=', source)
      .where('removed_at', 'is', null)
      .where('tax_period', '<=', fileMaxPeriod)
      .where((eb) => eb.or([eb('last_seen_run', 'is', null), eb('last_seen_run', '!=', runId)]))
      .executeTakeFirst();
    const removed = Number(result.numUpdatedRows);
    // An organisation removed can no longer receive donations: nodes forget the recipients they remember.
    if (removed > 0) await bumpRecordsEpoch(trx);
    return removed;
  });
}

/**
 * Recounts the vocabulary from the word index, lists the `top` biggest users
 * of every word used by more than `commonDf` organisations, and raises the
 * directory epoch so that search nodes reload.
 */
export async function rebuildVocabularyTables(trx: Trx, commonDf: number, top: number): Promise<void> {
  await trx.deleteFrom('directory_vocabulary').execute();
  await sql`insert into directory_vocabulary (word, df) select word, count(*) from non_profit_words group by word`.execute(trx);
  await trx.deleteFrom('directory_top').execute();
  const common = await trx.selectFrom('directory_vocabulary').select('word').where('df', '>', commonDf).execute();
  // The word index lists a word's users biggest first: each list reads about `top` entries.
  for (const { word } of common) {
    await sql`insert into directory_top (word, non_profit_id)
      select ${word}, w.non_profit_id from non_profit_words w join non_profits n on n.id = w.non_profit_id
      where w.word = ${word} and n.removed_at is null order by w.size desc, w.non_profit_id limit ${top}`.execute(trx);
  }
  await trx
    .updateTable('directory_epoch')
    .set((eb) => ({ epoch: eb('epoch', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}
