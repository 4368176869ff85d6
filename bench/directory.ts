// The directory at national size: `npm run bench -- --only directory`.
// Generates 1.9M rows (deterministic, cached), imports them into SQLite
// (timed, with the progress bar), then measures EIN lookups and searches of
// 1-3 words with and without typos: single-client latency and throughput at
// 50 connections. The server runs on core 0, the client on core 1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { createUser } from '../src/modules/users/index.ts';
import { createKey } from '../src/modules/keys/index.ts';
import { tokenize } from '../src/modules/nonprofits/nonprofits.ts';
import { generateDirectory, NATIONAL_SIZE } from './generate-directory.ts';
import { startServer } from './processes.ts';

const HERE = new URL('.', import.meta.url).pathname;
const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;
const SHARED = join(process.cwd(), '..', 'shared', 'data', 'nonprofits');

const EXACT = 'search, 1-3 words';
const TYPOS = 'search, 1-3 words with a typo';
const SPREAD = 'search, 4,000 queries of 2,000 names';

/** What bench/fts-anchor.ts measured. */
interface Anchor {
  rows: number;
  load_s: number;
  index_s: number;
  latency: Record<string, { p50: number; p95: number; p99: number; queries: number }>;
}

interface ClientResult {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

function client(base: string, key: string, paths: string[], concurrency: number, seconds: number): ClientResult {
  const file = join(tmpdir(), `almoner-paths-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(paths));
  const out = execFileSync('taskset', ['-c', '1', process.execPath, join(HERE, 'search-client.ts'), base, key, file, String(concurrency), String(seconds)]);
  return JSON.parse(out.toString()) as ClientResult;
}

/** Queries from real names: 1 to 3 of their words, as typed and with the last word's letters swapped. */
function queriesOf(names: ReadonlyArray<{ name: string }>): { exact: string[]; typos: string[] } {
  const swap = (w: string) => (w.length >= 5 ? `${w.slice(0, 1)}${w.slice(2, 3)}${w.slice(1, 2)}${w.slice(3)}` : w);
  const exact: string[] = [];
  const typos: string[] = [];
  names.forEach((r, i) => {
    const words = tokenize(r.name)
      .filter((w) => !['inc', 'of', 'the', 'and'].includes(w))
      .slice(0, 1 + (i % 3));
    if (words.length === 0) return;
    exact.push(words.join(' '));
    typos.push(words.map((w, j) => (j === words.length - 1 ? swap(w) : w)).join(' '));
  });
  return { exact, typos };
}

export async function benchDirectory(log: (line: string) => void, total = NATIONAL_SIZE): Promise<string[]> {
  const generated = join(tmpdir(), 'almoner-national');
  log(`\n== directory: generating ${total.toLocaleString('en-US')} rows (cached in ${generated})`);
  await generateDirectory(join(SHARED, 'bmf'), generated, total, 1);
  const dir = mkdtempSync(join(tmpdir(), 'almoner-dirbench-'));
  const databaseUrl = `sqlite:${join(dir, 'directory.sqlite')}`;
  try {
    log('== directory: importing into SQLite');
    const started = Date.now();
    execFileSync(process.execPath, [BIN, 'nonprofits', 'import', generated, '--zips', join(SHARED, 'geo', 'zip_centroids_2021_zcta.csv.gz')], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const importSeconds = (Date.now() - started) / 1000;

    const platform = await openPlatform(loadConfig({}, { databaseUrl }), { log: pino({ level: 'warn' }) });
    const { deps } = platform;
    const user = await deps.db.transaction().execute((trx) => createUser(deps, { name: 'Bench' }, trx));
    const key = (await createKey(deps, user.user_id, 'bench', 'live')).key;
    // Queries from real names: 1 to 3 of their words, as typed and with a typo.
    const sample = await deps.db
      .selectFrom('non_profits')
      .select(['ein', 'name'])
      .where('id', '<=', 374_000)
      .where(sql<boolean>`id % 997 = 0`)
      .limit(200)
      .execute();
    // And 2,000 names from the whole directory, as typed and with a typo: 4,000 queries, each asked
    // about once in a turn, so that nothing a node keeps between searches is reused more than real
    // queries would let it (the 200 names above are asked again and again).
    const spread = await deps.db
      .selectFrom('non_profits')
      .select(['ein', 'name'])
      .where(sql<boolean>`id % 947 = 0`)
      .limit(2000)
      .execute();
    await platform.close();
    const { exact: exactTexts, typos: typoTexts } = queriesOf(sample);
    const spreadTexts = queriesOf(spread);
    const asPaths = (texts: string[]) => texts.map((text) => `/v1/non_profits?per_page=25&query=${encodeURIComponent(text)}`);
    const [exact, typos] = [asPaths(exactTexts), asPaths(typoTexts)];
    const eins = sample.map((r) => `/v1/non_profits/${r.ein}`);

    // The anchors (bench/fts-anchor.ts), before the server starts: nothing else runs meanwhile.
    log('== directory: anchors: a plain load of the same rows and an FTS5 index over them; FTS5 answering the same queries');
    const queriesFile = join(dir, 'queries.json');
    writeFileSync(queriesFile, JSON.stringify({ [EXACT]: exactTexts, [TYPOS]: typoTexts }));
    const anchor = JSON.parse(execFileSync(process.execPath, [join(HERE, 'fts-anchor.ts'), generated, queriesFile, '8']).toString()) as Anchor;
    const baseline = anchor.load_s + anchor.index_s;
    log(
      `  import ${importSeconds.toFixed(1)} s; plain load ${anchor.load_s} s + FTS5 index ${anchor.index_s} s = ${baseline.toFixed(1)} s: import ${(importSeconds / baseline).toFixed(2)}x`,
    );

    const { child: server, port } = await startServer('app', { DATABASE_URL: databaseUrl });
    const base = `http://127.0.0.1:${port}`;
    try {
      client(base, key, [...exact, ...typos], 4, 3); // warm-up: vocabulary, caches
      const rows: string[] = [];
      for (const [label, paths] of [
        ['EIN lookup', eins],
        [EXACT, exact],
        [TYPOS, typos],
        [SPREAD, asPaths([...spreadTexts.exact, ...spreadTexts.typos])],
      ] as const) {
        const single = client(base, key, paths, 1, 8);
        const loaded = client(base, key, paths, 50, 8);
        const fts = anchor.latency[label];
        const versus = fts === undefined ? '' : `; FTS5 p95 ${fts.p95} / p99 ${fts.p99} ms: ${(single.p95 / fts.p95).toFixed(2)}x / ${(single.p99 / fts.p99).toFixed(2)}x`;
        log(
          `  ${label.padEnd(37)} single client p50 ${single.p50} / p95 ${single.p95} / p99 ${single.p99} ms${versus}; 50 connections ${loaded.rps} req/s (p99 ${loaded.p99} ms)${single.errors + loaded.errors > 0 ? ` ERRORS ${single.errors + loaded.errors}` : ''}`,
        );
        const ftsCells = fts === undefined ? '- | -' : `${fts.p95} / ${fts.p99} | **${(single.p95 / fts.p95).toFixed(2)}x** / **${(single.p99 / fts.p99).toFixed(2)}x**`;
        rows.push(`| ${label} | ${single.p50} / **${single.p95}** / **${single.p99}** | ${ftsCells} | ${loaded.rps} | ${loaded.p99} |`);
      }
      return [
        `Import of ${total.toLocaleString('en-US')} rows into SQLite: **${importSeconds.toFixed(1)} s**, against a plain load of the same rows into one table (${anchor.load_s} s) plus an FTS5 index over it (${anchor.index_s} s): **${(importSeconds / baseline).toFixed(2)}x**.`,
        '',
        '| at 1.9M rows | single client p50 / p95 / p99 ms | FTS5 in process p95 / p99 ms | ratio p95 / p99 | 50 connections req/s | p99 ms |',
        '|---|---|---|---|---|---|',
        ...rows,
      ];
    } finally {
      server.removeAllListeners('exit');
      server.kill('SIGTERM');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
