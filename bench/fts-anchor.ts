// The directory bench's anchors, measured in the same run as the directory
// itself because the machine's speed varies from hour to hour:
//  - load: the same BMF rows parsed and inserted into one SQLite table with
//    no index (a transaction per 50,000 rows, synchronous=NORMAL as the
//    import's bulk load), then the time to build an FTS5 index over it;
//  - search: FTS5 answering the same queries in this process, each word a
//    prefix, `order by rank limit 25`, one at a time (no typo tolerance).
//   node bench/fts-anchor.ts BMF_DIR QUERIES_JSON SECONDS  -> JSON on stdout
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBmf } from '../src/modules/nonprofits/bmf.ts';
import { bmfFiles } from '../src/modules/nonprofits/import.service.ts';
import { tokenize } from '../src/modules/nonprofits/nonprofits.ts';

const [bmfDir, queriesFile, secondsText] = process.argv.slice(2);
const queries = JSON.parse(readFileSync(queriesFile as string, 'utf8')) as Record<string, string[]>;
const COLUMNS = [
  'EIN',
  'NAME',
  'STREET',
  'CITY',
  'STATE',
  'ZIP',
  'SUBSECTION',
  'AFFILIATION',
  'RULING',
  'DEDUCTIBILITY',
  'FOUNDATION',
  'ORGANIZATION',
  'STATUS',
  'TAX_PERIOD',
  'FILING_REQ_CD',
  'ASSET_AMT',
  'INCOME_AMT',
  'REVENUE_AMT',
  'NTEE_CD',
];

const dir = mkdtempSync(join(tmpdir(), 'almoner-fts-'));
try {
  const db = new DatabaseSync(join(dir, 'fts.sqlite'));
  db.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL');
  db.exec(`create table np (${COLUMNS.map((c) => `${c.toLowerCase()} text`).join(', ')})`);
  const insert = db.prepare(`insert into np values (${COLUMNS.map(() => '?').join(', ')})`);

  let started = performance.now();
  let rows = 0;
  db.exec('begin');
  for (const file of bmfFiles([bmfDir as string])) {
    for await (const { record } of readBmf(file)) {
      insert.run(...COLUMNS.map((c) => record[c] ?? ''));
      rows += 1;
      if (rows % 50_000 === 0) db.exec('commit; begin');
    }
  }
  db.exec('commit');
  const loadSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  db.exec(`create virtual table fts using fts5(name, city, content='np', content_rowid='rowid'); insert into fts(fts) values ('rebuild')`);
  const indexSeconds = (performance.now() - started) / 1000;

  const search = db.prepare('select rowid, name, city from fts where fts match ? order by rank limit 25');
  const latency: Record<string, { p50: number; p95: number; p99: number; queries: number }> = {};
  for (const [label, texts] of Object.entries(queries)) {
    const matches = texts.map((text) =>
      tokenize(text)
        .map((word) => `"${word}"*`)
        .join(' '),
    );
    const times: number[] = [];
    const until = performance.now() + Number(secondsText) * 1000;
    for (let i = 0; performance.now() < until; i += 1) {
      const at = performance.now();
      search.all(matches[i % matches.length] as string);
      times.push(performance.now() - at);
    }
    times.sort((a, b) => a - b);
    const pct = (p: number) => Number((times[Math.min(times.length - 1, Math.floor(times.length * p))] ?? 0).toFixed(2));
    latency[label] = { p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), queries: times.length };
  }
  db.close();
  process.stdout.write(JSON.stringify({ rows, load_s: Number(loadSeconds.toFixed(1)), index_s: Number(indexSeconds.toFixed(1)), latency }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
