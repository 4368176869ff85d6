// `almoner nonprofits import`: IRS EO BMF files into the directory,
// streaming, in batches of one transaction each, in bounded memory.
// Re-importing is safe: rows are upserted by EIN; a row whose stored
// TAX_PERIOD is newer is kept; organisations a complete file no longer lists
// are marked removed (never on an interrupted run, never when the stored row
// is newer than the file).
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import { readZipCentroids, type ZipCentroids } from './bmf.ts';
import { readBmfRows } from './bmf-reader.ts';
import { indexWords } from './nonprofits.ts';
import { bumpRecordsEpoch, type NonProfitInput } from './nonprofits.store.ts';
import * as store from './directory.store.ts';

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
      files.push(
        ...readdirSync(path)
          .filter((f) => /\.csv(\.gz)?$/i.test(f))
          .sort()
          .map((f) => join(path, f)),
      );
    } else {
      files.push(path);
    }
  }
  return files;
}

export function sourceOf(file: string): string {
  return basename(file)
    .replace(/\.gz$/i, '')
    .replace(/\.csv$/i, '')
    .toLowerCase();
}

function defaultZipFile(files: readonly string[]): string | undefined {
  for (const file of files) {
    for (const candidate of [join(file, '..', '..', 'geo', 'zip_centroids_2021_zcta.csv.gz'), join(file, '..', 'geo', 'zip_centroids_2021_zcta.csv.gz')]) {
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        /* not there */
      }
    }
  }
  return undefined;
}

async function processBatch(trx: Trx, batch: NonProfitInput[], source: string, runId: number, at: string, summary: ImportSummary): Promise<void> {
  const existing = await store.storedByEins(
    trx,
    batch.map((b) => b.ein),
  );
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
    const changed = store.FILE_COLUMNS.some((k) => old[k] !== input[k]) || old.source !== source || old.removed_at !== null;
    if (!changed) {
      summary.unchanged += 1;
      seen.push(old.id);
      continue;
    }
    await store.rewriteNonProfit(trx, old.id, input, source, runId, at);
    if (old.name !== input.name || old.city !== input.city) {
      await store.deleteWords(trx, old.id);
      await store.insertWords(trx, wordsOf([{ id: old.id, name: input.name, city: input.city, income_amt: input.income_amt }]));
    } else if (old.income_amt !== input.income_amt) {
      await store.resizeWords(trx, old.id, input.income_amt);
    }
    summary.updated += 1;
  }
  await store.markSeenByRun(trx, seen, runId);
  // Changed or new organisations: nodes drop their cards and the directory they hold.
  if (summary.updated > updatedBefore || added.length > 0) await bumpRecordsEpoch(trx);
  const inserted = await store.insertNonProfits(trx, added, source, runId, at);
  await store.insertWords(trx, wordsOf(inserted));
  summary.added += added.length;
}

function wordsOf(rows: readonly store.Indexed[]): store.WordRow[] {
  return rows.flatMap((r) => indexWords(r.name, r.city).map((w) => [w.word, r.id, w.kind, r.income_amt] as const));
}

/** Imports every file; see the header of this file for the rules. Throws on an unreadable file. */
export async function importBmf(deps: Deps, paths: readonly string[], options: ImportOptions = {}): Promise<ImportSummary> {
  const files = bmfFiles(paths);
  const zipFile = options.zipCentroids ?? defaultZipFile(files);
  const zips: ZipCentroids = zipFile === undefined ? new Map() : await readZipCentroids(zipFile);
  if (zips.size > 0) {
    const entries = [...zips]
      .filter(([zip, c]) => /^\d{5}$/.test(zip) && Number.isFinite(c.latitude) && Number.isFinite(c.longitude))
      .map(([zip, c]) => [zip, c.latitude, c.longitude] as const);
    await deps.db.transaction().execute((trx) => store.replaceZipCentroids(trx, entries));
  }
  const bytesTotal = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const summary: ImportSummary = { files: files.length, rows: 0, added: 0, updated: 0, unchanged: 0, older: 0, removed: 0, rejected: 0, rejections: [] };
  const reject = (r: Rejection) => {
    summary.rejected += 1;
    if (summary.rejections.length < REJECTIONS_KEPT) summary.rejections.push(r);
  };
  // An import can be run again safely, so its commits need not each be
  // flushed to disk; the last step below is a full checkpoint. Index builds
  // and the vocabulary count sort millions of words: on disk, so memory stays bounded.
  await store.bulkLoad(deps.db, true);
  // Restored however the import ends: a server that imported demo data goes on with every check on.
  try {
    // Worth it only for a big load; a small file updates the indexes in place.
    const bulk = bytesTotal > 5_000_000;
    if (bulk) await store.dropDirectoryIndexes(deps.db);
    const runId = await store.startImportRun(deps.db, deps.clock.now().toISOString());
    let bytesBefore = 0;

    for (const file of files) {
      const source = sourceOf(file);
      const name = basename(file);
      let fileBytes = 0;
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
          await deps.db.transaction().execute((trx) => processBatch(trx, current, source, runId, at, summary));
          options.onProgress?.({ file: name, rows: summary.rows, bytes_done: bytesBefore + fileBytes, bytes_total: bytesTotal });
        } catch (error) {
          writeFailed = true;
          throw error;
        }
      };
      try {
        const seenInBatch = new Map<string, number>();
        // Parsed on a worker thread while this one writes (bmf-reader.ts).
        for await (const chunk of readBmfRows(file, zips)) {
          if (chunk.kind === 'header') {
            const missing = REQUIRED_COLUMNS.filter((c) => !chunk.header.includes(c));
            if (missing.length > 0) {
              reject({ file: name, line: 1, reason: `not an EO BMF file: no column ${missing.join(', ')}` });
              headerOk = false;
              break;
            }
            continue;
          }
          fileBytes = chunk.bytes;
          for (const row of chunk.rows) {
            summary.rows += 1;
            if ('reject' in row) {
              reject({ file: name, line: row.line, reason: row.reject });
              continue;
            }
            const input = row.input;
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
        summary.removed += await store.markUnlisted(deps.db, source, runId, fileMaxPeriod, deps.clock.now().toISOString());
      }
      bytesBefore += statSync(file).size;
    }

    await readyForSearch(deps, bulk, options.onStep);
    await store.finishImportRun(deps.db, runId, { ...summary, rejections: summary.rejections.slice(0, 20) }, deps.clock.now().toISOString());
    return summary;
  } finally {
    await store.bulkLoad(deps.db, false);
  }
}

/** After the rows: the indexes a bulk load dropped, the vacuum, then the vocabulary's count (which tells search nodes to reload). */
async function readyForSearch(deps: Deps, bulk: boolean, onStep: ((step: string) => void) | undefined): Promise<void> {
  if (bulk) {
    onStep?.('building the search indexes');
    await store.ensureDirectoryIndexes(deps.db);
  }
  // Before the count reads the word index, and before nodes load it.
  onStep?.('vacuuming the directory');
  await store.vacuumDirectory(deps.db);
  onStep?.('counting words for search');
  await rebuildVocabulary(deps);
}

/** Words used by more organisations than this get a precomputed list of their biggest (directory_top). */
export const COMMON_WORD_DF = 10_000;
export const COMMON_WORD_TOP = 1_000;

/** Recounts the vocabulary from the word index, lists the biggest users of common words, and tells search nodes to reload. */
export async function rebuildVocabulary(deps: Deps): Promise<void> {
  await deps.db.transaction().execute((trx) => store.rebuildVocabularyTables(trx, COMMON_WORD_DF, COMMON_WORD_TOP));
}
