// CSV exports at size: `npm run bench -- --only exports`. A donor with
// 100,000 donations and 100,000 contributions; the real server streams each
// list as CSV (Accept: text/csv) while its resident memory is sampled every
// 10 ms from /proc. Beside it, in the same run, a bare node:http server
// answering the same bytes from memory: the floor for moving that much text
// over the same loopback. Reported: rows, bytes, time, RSS growth (must stay
// under 100 MB: the export streams, it does not build the file in memory).
// The first export's growth includes what warms up once: SQLite's page cache
// (64 MB at most) and the heap's growth to its working size; a second export
// on the same server shows what one more costs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { seedBench } from './seed.ts';
import { freshDatabase, startServer } from './processes.ts';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
const RSS_LIMIT_MB = 100;

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Downloads `url` with `headers`, sampling `pid`'s RSS; returns the body, the time, and the growth over the RSS before. */
async function download(pid: number, url: string, headers: Record<string, string>): Promise<{ body: string; ms: number; growthMb: number }> {
  const before = rssKb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb(pid));
  }, 10);
  const started = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.text();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssKb(pid));
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`);
  return { body, ms, growthMb: (peak - before) / 1024 };
}

/** A donor's 100k contributions, written straight into the table (failed, so no money moved and no receipt is due). */
async function seedContributions(databaseUrl: string): Promise<void> {
  const platform = await openPlatform(loadConfig({}, { databaseUrl }), { log: pino({ level: 'warn' }) });
  const { db } = platform.deps;
  const { engine } = platform.handle;
  try {
    const user = await db.selectFrom('users').select(['users.id']).where('name', '=', 'Bench User 0').executeTakeFirstOrThrow();
    const fund = await db.selectFrom('funds').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    const series =
      engine === 'sqlite'
        ? sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS}) select i from s`
        : sql`select i from generate_series(1, ${ROWS}) as i`;
    const at =
      engine === 'sqlite'
        ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds')`
        : sql`to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    await sql`insert into contributions (book, user_id, fund_id, type, status, units, valuation, currency, frequency, amount_cents, created_at, received_at, completed_at, reference, declared_at)
      select 'live', ${user.id}, ${fund.id}, case when i % 2 = 0 then 'wire_payment' else 'stock_payment' end, 'failed', '12.5', '1', case when i % 2 = 0 then 'USD' else '=AAPL' end, 'OneTime', 1250, ${at}, null, ${at}, 'BENCH-' || i, ${at}
      from (${series}) s`.execute(db);
  } finally {
    await platform.close();
  }
}

export async function benchExports(engines: string[], log: (line: string) => void): Promise<string[]> {
  const rows: string[] = [];
  for (const engine of engines) {
    const { databaseUrl, dir, cleanup } = await freshDatabase(engine, 'exports');
    try {
      log(`\n== exports (${engine}): seeding a donor with ${ROWS.toLocaleString('en-US')} donations and ${ROWS.toLocaleString('en-US')} contributions`);
      const { key } = await seedBench(databaseUrl, 1, ROWS, log);
      await seedContributions(databaseUrl);
      for (const list of ['donations', 'contributions']) {
        const app = await startServer('app', { DATABASE_URL: databaseUrl });
        let result: Awaited<ReturnType<typeof download>>;
        let again: Awaited<ReturnType<typeof download>>;
        try {
          const url = `http://127.0.0.1:${app.port}/v1/${list}`;
          await fetch(`${url}?per_page=1`, { headers: { 'x-api-key': key } }).then((r) => r.text()); // warm: the key, the plan
          result = await download(app.child.pid ?? 0, url, { 'x-api-key': key, accept: 'text/csv' });
          // A second export on the same server: what one more costs once the database's page cache and the heap are warm.
          again = await download(app.child.pid ?? 0, url, { 'x-api-key': key, accept: 'text/csv' });
        } finally {
          app.child.kill('SIGTERM');
        }
        const lines = result.body.split('\n').filter((l) => l !== '').length - 1;
        if (lines < ROWS) throw new Error(`${list}: ${lines} rows exported, expected at least ${ROWS}`);
        const file = join(dir, `${list}.csv`);
        writeFileSync(file, result.body);
        const ceiling = await startServer('ceiling', { BODY_FILE: file });
        let floor: Awaited<ReturnType<typeof download>>;
        try {
          floor = await download(ceiling.child.pid ?? 0, `http://127.0.0.1:${ceiling.port}/`, {});
        } finally {
          ceiling.child.kill('SIGTERM');
        }
        const mb = (result.body.length / 1024 / 1024).toFixed(1);
        log(
          `  ${list}: ${lines.toLocaleString('en-US')} rows, ${mb} MB in ${result.ms.toFixed(0)} ms (${((lines / result.ms) * 1000).toFixed(0)} rows/s), RSS +${result.growthMb.toFixed(1)} MB (a second export: ${again.ms.toFixed(0)} ms, +${again.growthMb.toFixed(1)} MB); the same bytes from memory: ${floor.ms.toFixed(0)} ms`,
        );
        if (result.growthMb >= RSS_LIMIT_MB) throw new Error(`${list}: the export grew the server's memory by ${result.growthMb.toFixed(1)} MB (limit ${RSS_LIMIT_MB} MB)`);
        rows.push(
          `| ${engine} | CSV export of ${list} | ${lines.toLocaleString('en-US')} rows, ${mb} MB | ${result.ms.toFixed(0)} ms (again: ${again.ms.toFixed(0)} ms) | **+${result.growthMb.toFixed(1)} MB** (again: +${again.growthMb.toFixed(1)} MB) | same bytes from memory: ${floor.ms.toFixed(0)} ms (**${(result.ms / floor.ms).toFixed(1)}x**) |`,
        );
      }
    } finally {
      await cleanup();
    }
  }
  return ['| engine | export | size | time | server RSS growth | baseline |', '|---|---|---|---|---|---|', ...rows, ''];
}
