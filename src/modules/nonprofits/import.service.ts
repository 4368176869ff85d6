// `almoner nonprofits import`: IRS EO BMF files into the directory,
// streaming, in batches of one transaction each, in bounded memory.
// Re-importing is safe: rows are upserted by EIN; a row whose stored
// TAX_PERIOD is newer is kept; organisations a complete file no longer lists
// are marked removed (never on an interrupted run, never when the stored row
// is newer than the file).
import { readdirSync, statSync, createReadStream } from 'node:fs';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import type { Deps } from '../../deps.ts';
import type { Db, Trx } from '../../db/database.ts';
import { bulkInsert } from '../../db/bulk.ts';
import { readBmf, readZipCentroids, toNonProfitInput, type ZipCentroids } from './bmf.ts';
import { indexWords } from './nonprofits.ts';
import { bumpRecordsEpoch, type NonProfitInput } from './nonprofits.store.ts';

// Rows per database transaction: bigger batches write each hot index page once
// per commit instead of once per thousand rows.
export const IMPORT_BATCH_ROWS = 10_000;
const REJECTIONS_KEPT = 1000;
const REQUIRED_COLUMNS = ['EIN', 'NAME', 'CITY', 'STATE', 'ZIP', 'DEDUCTIBILITY', 'STATUS', 'NTEE_CD'];

export interface Rejection {
  file: string;
  line: number;
  reason: string;
}

export interface ImportSummary {
  files: number;
  rows: number;
  added: number;
  updated: number;
  unchanged: number;
  /** Rows skipped because the directory holds a newer filing of the organisation. */
  older: number;
  removed: number;
  rejected: number;
  rejections: Rejection[];
}

export interface ImportProgress {
  file: string;
  rows: number;
  bytes_done: number;
  bytes_total: number;
}

export interface ImportOptions {
  /** ZIP5,LATITUDE,LONGITUDE (plain or .gz); found beside the files when not given. */
  zipCentroids?: string;
  onProgress?: (progress: ImportProgress) => void;
  /** Told when the import moves to a step after the rows (indexes, vocabulary), which can take a while. */
  onStep?: (step: string) => void;
}

/** Files named *.csv or *.csv.gz, from files and folders, in name order. */
export function bmfFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    const stat = statSync(path); // throws ENOENT with the path: the CLI reports it
    if (stat.isDirectory()) {
      files.push(...readdirSync(path).filter((f) => /\.csv(\.gz)?$/i.test(f)).sort().map((f) => join(path, f)));
    } else {
      files.push(path);
    }
  }
  return files;
}

export function sourceOf(file: string): string {
  return basename(file).replace(/\.gz$/i, '').replace(/\.csv$/i, '').toLowerCase();
}

function defaultZipFile(files: readonly string[]): string | undefined {
  for (const file of files) {
    for (const candidate of [join(file, '..', '..', 'geo', 'zip_centroids_2021_zcta.csv.gz'), join(file, '..', 'geo', 'zip_centroids_2021_zcta.csv.gz')]) {
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch { /* not there */ }
    }
  }
  return undefined;
}

type Existing = { id: number; ein: string; tax_period: string; source: string; removed_at: string | null } & NonProfitInput;

const COMPARED: ReadonlyArray<keyof NonProfitInput> = [
  'name', 'name_lower', 'website', 'city', 'state', 'zip', 'latitude', 'longitude', 'ntee_code', 'cause_id', 'eligible', 'slug', 'income_amt', 'asset_amt', 'tax_period',
];

async function processBatch(deps: Deps, trx: Trx, batch: NonProfitInput[], source: string, runId: number, at: string, summary: ImportSummary): Promise<void> {
  const existing = await trx.selectFrom('non_profits').selectAll().where('ein', 'in', batch.map((b) => b.ein)).execute() as unknown as Existing[];
  const byEin = new Map(existing.map((e) => [e.ein, e]));
  const added: NonProfitInput[] = [];
  const seen: number[] = [];
  const updatedBefore = summary.updated;
  for (const input of batch) {
    const old = byEin.get(input.ein);
    if (old === undefined) {
      added.push(input);
      continue;
    }
    if (old.tax_period > input.tax_period) {
      summary.older += 1;
      if (old.source === source) seen.push(old.id);
      continue;
    }
    const changed = COMPARED.some((k) => old[k] !== input[k]) || old.source !== source || old.removed_at !== null;
    if (!changed) {
      summary.unchanged += 1;
      seen.push(old.id);
      continue;
    }
    await trx.updateTable('non_profits').set({ ...input, source, last_seen_run: runId, removed_at: null, updated_at: at }).where('id', '=', old.id).execute();
    if (old.name !== input.name || old.city !== input.city) {
      await trx.deleteFrom('non_profit_words').where('non_profit_id', '=', old.id).execute();
      await insertWords(deps, trx, [{ id: old.id, name: input.name, city: input.city, income_amt: input.income_amt }]);
    } else if (old.income_amt !== input.income_amt) {
      await trx.updateTable('non_profit_words').set({ size: input.income_amt }).where('non_profit_id', '=', old.id).execute();
    }
    summary.updated += 1;
  }
  if (seen.length > 0) await trx.updateTable('non_profits').set({ last_seen_run: runId }).where('id', 'in', seen).execute();
  if (summary.updated > updatedBefore) await bumpRecordsEpoch(trx);
  for (let i = 0; i < added.length; i += 1000) {
    const chunk = added.slice(i, i + 1000); // within every engine's limit on bound parameters
    const rows = await bulkInsert<{ id: number; name: string; city: string; income_amt: number }>(trx, deps.engine, 'non_profits', [...INSERTED, 'source', 'last_seen_run', 'created_at', 'updated_at'],
      chunk.map((a) => [...INSERTED.map((c) => a[c]), source, runId, at, at]), ['id', 'name', 'city', 'income_amt']);
    await insertWords(deps, trx, rows);
    summary.added += chunk.length;
  }
}

const INSERTED: ReadonlyArray<keyof NonProfitInput> = ['ein', ...COMPARED];

async function insertWords(deps: Deps, trx: Trx, rows: ReadonlyArray<{ id: number; name: string; city: string; income_amt: number }>): Promise<void> {
  const words = rows.flatMap((r) => indexWords(r.name, r.city).map((w) => [w.word, r.id, w.kind, r.income_amt] as const));
  for (let i = 0; i < words.length; i += 4000) await bulkInsert(trx, deps.engine, 'non_profit_words', ['word', 'non_profit_id', 'kind', 'size'], words.slice(i, i + 4000));
}

/**
 * Indexes that only reads use, dropped for the load and built again after it:
 * building an index once is far cheaper than updating it row by row. If an
 * import is cut short, the next start of the platform builds them
 * (ensureDirectoryIndexes).
 */
const BULK_INDEXES: ReadonlyArray<{ name: string; table: 'non_profits' | 'non_profit_words'; columns: string[] }> = [
  { name: 'non_profit_words_word_size', table: 'non_profit_words', columns: ['word', 'size desc', 'non_profit_id'] },
  { name: 'non_profits_cause', table: 'non_profits', columns: ['cause_id'] },
  { name: 'non_profits_state_size', table: 'non_profits', columns: ['state', 'income_amt'] },
];

export async function ensureDirectoryIndexes(db: Db): Promise<void> {
  for (const index of BULK_INDEXES) await db.schema.createIndex(index.name).ifNotExists().on(index.table).columns(index.columns).execute();
}

async function dropDirectoryIndexes(deps: Deps): Promise<void> {
  for (const index of BULK_INDEXES) await deps.db.schema.dropIndex(index.name).ifExists().execute();
}

/** Imports every file; see the header of this file for the rules. Throws on an unreadable file. */
export async function importBmf(deps: Deps, paths: readonly string[], options: ImportOptions = {}): Promise<ImportSummary> {
  const files = bmfFiles(paths);
  const zipFile = options.zipCentroids ?? defaultZipFile(files);
  const zips: ZipCentroids = zipFile === undefined ? new Map() : await readZipCentroids(zipFile);
  const bytesTotal = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const summary: ImportSummary = { files: files.length, rows: 0, added: 0, updated: 0, unchanged: 0, older: 0, removed: 0, rejected: 0, rejections: [] };
  const reject = (r: Rejection) => {
    summary.rejected += 1;
    if (summary.rejections.length < REJECTIONS_KEPT) summary.rejections.push(r);
  };
  // An import can be run again safely, so its commits need not each be
  // flushed to disk: on SQLite this connection's commits skip the fsync
  // (WAL, synchronous=NORMAL: a crash can lose the last batches, never
  // corrupt); the last step below is a full checkpoint.
  if (deps.engine === 'sqlite') {
    await sql`pragma synchronous = NORMAL`.execute(deps.db);
    // Index builds and the vocabulary count sort millions of words: on disk, so memory stays bounded.
    await sql`pragma temp_store = FILE`.execute(deps.db);
  }
  // Worth it only for a big load; a small file updates the indexes in place.
  const bulk = bytesTotal > 5_000_000;
  if (bulk) await dropDirectoryIndexes(deps);
  const run = await deps.db.insertInto('import_runs').values({ started_at: deps.clock.now().toISOString(), finished_at: null, summary: null }).returning('id').executeTakeFirstOrThrow();
  let bytesBefore = 0;

  for (const file of files) {
    const source = sourceOf(file);
    const name = basename(file);
    let fileBytes = 0;
    // Count compressed bytes as they are read, for the progress bar's ETA.
    const counter = createReadStream(file);
    counter.on('data', (chunk) => { fileBytes += chunk.length; });
    let batch: NonProfitInput[] = [];
    let fileMaxPeriod = '';
    let headerOk = true;
    // Errors while writing (or from the caller's progress callback) stop the import;
    // errors while reading the file are reported and the import goes on.
    let writeFailed = false;
    const flush = async () => {
      if (batch.length === 0) return;
      const at = deps.clock.now().toISOString();
      const current = batch;
      batch = [];
      try {
        await deps.db.transaction().execute((trx) => processBatch(deps, trx, current, source, run.id, at, summary));
        options.onProgress?.({ file: name, rows: summary.rows, bytes_done: bytesBefore + fileBytes, bytes_total: bytesTotal });
      } catch (error) {
        writeFailed = true;
        throw error;
      }
    };
    try {
      const seenInBatch = new Map<string, number>();
      let checkedHeader = false;
      for await (const { line, record, header, field_count } of readBmf(file, counter)) {
        if (!checkedHeader) {
          checkedHeader = true;
          const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
          if (missing.length > 0) {
            reject({ file: name, line: 1, reason: `not an EO BMF file: no column ${missing.join(', ')}` });
            headerOk = false;
            break;
          }
        }
        summary.rows += 1;
        if (field_count !== header.length) {
          reject({ file: name, line, reason: `${field_count} fields where the header has ${header.length}` });
          continue;
        }
        const input = toNonProfitInput(record, zips);
        if ('reject' in input) {
          reject({ file: name, line, reason: input.reject });
          continue;
        }
        if (input.tax_period > fileMaxPeriod) fileMaxPeriod = input.tax_period;
        const dup = seenInBatch.get(input.ein);
        if (dup !== undefined) batch.splice(dup, 1, input);
        else {
          seenInBatch.set(input.ein, batch.length);
          batch.push(input);
        }
        if (batch.length >= IMPORT_BATCH_ROWS) {
          await flush();
          seenInBatch.clear();
        }
      }
      await flush();
    } catch (error) {
      if (writeFailed) throw error;
      // A truncated gzip stream or an unreadable file: what was read is kept, the
      // file is reported, and nothing is marked removed for it.
      await flush();
      reject({ file: name, line: 0, reason: `the file could not be read to its end: ${(error as Error).message}` });
      headerOk = false;
    }
    if (headerOk) {
      const removed = await deps.db.updateTable('non_profits').set({ removed_at: deps.clock.now().toISOString() })
        .where('source', '=', source).where('removed_at', 'is', null).where('tax_period', '<=', fileMaxPeriod)
        .where((eb) => eb.or([eb('last_seen_run', 'is', null), eb('last_seen_run', '!=', run.id)]))
        .executeTakeFirst();
      summary.removed += Number(removed.numUpdatedRows);
    }
    bytesBefore += statSync(file).size;
  }

  if (bulk) {
    options.onStep?.('building the search indexes');
    await ensureDirectoryIndexes(deps.db);
  }
  options.onStep?.('counting words for search');
  await rebuildVocabulary(deps);
  if (deps.engine === 'sqlite') {
    await sql`pragma synchronous = FULL`.execute(deps.db);
    await sql`pragma temp_store = MEMORY`.execute(deps.db);
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(deps.db);
  }
  await deps.db.updateTable('import_runs').set({ finished_at: deps.clock.now().toISOString(), summary: JSON.stringify({ ...summary, rejections: summary.rejections.slice(0, 20) }) }).where('id', '=', run.id).execute();
  return summary;
}

/** Words used by more organisations than this get a precomputed list of their biggest (directory_top). */
export const COMMON_WORD_DF = 10_000;
export const COMMON_WORD_TOP = 1_000;

/** Recounts the vocabulary from the word index, lists the biggest users of common words, and tells search nodes to reload. */
export async function rebuildVocabulary(deps: Deps): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('directory_vocabulary').execute();
    await sql`insert into directory_vocabulary (word, df) select word, count(*) from non_profit_words group by word`.execute(trx);
    await trx.deleteFrom('directory_top').execute();
    const common = await trx.selectFrom('directory_vocabulary').select('word').where('df', '>', COMMON_WORD_DF).execute();
    // The word index lists a word's users biggest first: each list reads about COMMON_WORD_TOP entries.
    for (const { word } of common) {
      await sql`insert into directory_top (word, non_profit_id)
        select ${word}, w.non_profit_id from non_profit_words w join non_profits n on n.id = w.non_profit_id
        where w.word = ${word} and n.removed_at is null order by w.size desc, w.non_profit_id limit ${COMMON_WORD_TOP}`.execute(trx);
    }
    await trx.updateTable('directory_epoch').set((eb) => ({ epoch: eb('epoch', '+', 1) })).where('id', '=', 1).execute();
  });
}
