// `npm run soak`: a long run of mixed traffic at a steady rate against one
// server process, to see that memory stays flat, nothing fails and latency
// holds. Reads, writes and cancels in the proportions of a busy platform:
//   60% GET /v1/donations, 20% GET /v1/non_profits/:ein, 15% POST /v1/donations,
//   5% DELETE /v1/donations/:id (a donation this run created).
// The server runs on core 0, this load on core 1. Each minute prints requests,
// errors, p50/p99 and the server's resident memory; the end checks RSS growth
// after the warm-up minute (< 10%), no errors, and p99 stable.
// Options: --minutes 10  --rate 300  --engine sqlite|postgres  --sqlite-cache-mb N
import { readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { freshDatabase, startServer } from './processes.ts';
import { seedBench } from './seed.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '300' },
    engine: { type: 'string', default: 'sqlite' },
    'sqlite-cache-mb': { type: 'string' },
  },
});
const MINUTES = Number(values.minutes);
const cacheMb = values['sqlite-cache-mb'];
const RATE = Number(values.rate);
const log = (line: string) => process.stdout.write(`${line}\n`);

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const { databaseUrl, cleanup } = await freshDatabase(values.engine ?? 'sqlite', 'soak');
log(`== soak on ${values.engine}: ${MINUTES} min at ${RATE} req/s${cacheMb === undefined ? '' : `, SQLite page cache ${cacheMb} MiB`}`);
const seeded = await seedBench(databaseUrl, 1, 10_000, log);
// SQLite's page cache grows with the database up to its size (64 MiB by default) and counts in
// RSS; a small cache (--sqlite-cache-mb 2, SQLite's own default) is full after the warm-up, so
// what RSS does then is everything else.
const { child, port } = await startServer('app', { DATABASE_URL: databaseUrl, METRICS_ON_PUBLIC_PORT: 'true', ...(cacheMb === undefined ? {} : { SQLITE_CACHE_MB: cacheMb }) });
const base = `http://127.0.0.1:${port}`;
const headers = { 'x-api-key': seeded.key, 'content-type': 'application/json' };
// Beside the public (METRICS_ON_PUBLIC_PORT), /metrics needs an operator token.
const scraper = /(alm_admin_[A-Za-z0-9]+)/.exec(
  execFileSync(process.execPath, [new URL('../bin/almoner.js', import.meta.url).pathname, 'admin', 'token', 'create', '--name', 'soak metrics'], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
  }),
)?.[1];
const created: number[] = [];

async function one(i: number): Promise<{ ok: boolean; ms: number; what: string }> {
  const roll = i % 20;
  const started = performance.now();
  let response: Response;
  let what: string;
  if (roll < 12) {
    what = 'list';
    response = await fetch(`${base}/v1/donations?page=1&per_page=25`, { headers });
  } else if (roll < 16) {
    what = 'non_profit';
    response = await fetch(`${base}/v1/non_profits/${seeded.ein}`, { headers });
  } else if (roll < 19 || created.length === 0) {
    what = 'create';
    response = await fetch(`${base}/v1/donations`, { method: 'POST', headers, body: JSON.stringify({ ein: seeded.ein, amount: 10 }) });
  } else {
    what = 'cancel';
    response = await fetch(`${base}/v1/donations/${created.shift()}`, { method: 'DELETE', headers });
  }
  const text = await response.text();
  if (what === 'create' && response.status === 201) created.push((JSON.parse(text) as { id: number }).id);
  return { ok: response.status < 300, ms: performance.now() - started, what };
}

interface Minute {
  requests: number;
  errors: number;
  latencies: number[];
  rss: number[];
  heap: number[];
}

/** The server's JavaScript heap in MiB, from its /metrics (RSS also counts the database pages SQLite maps). */
async function heapMiB(): Promise<number> {
  const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${scraper ?? ''}` } }).then((r) => r.text());
  return Number(/almoner_process_heap_used_bytes (\d+)/.exec(text)?.[1] ?? 0) / 1024 / 1024;
}
const minutes: Minute[] = [];
const startedAt = Date.now();
let sent = 0;
let inFlight = 0;
let maxInFlight = 0;
const errorsSeen = new Map<string, number>();
const sqliteFile = values.engine === 'sqlite' ? databaseUrl.replace(/^sqlite:/, '') : undefined;
const databaseMiB: number[] = [];
const byKind = new Map<string, number[]>();
await new Promise<void>((resolve) => {
  const tick = setInterval(() => {
    const elapsed = Date.now() - startedAt;
    const minute = Math.floor(elapsed / 60_000);
    if (minute >= MINUTES) {
      clearInterval(tick);
      const wait = setInterval(() => {
        if (inFlight === 0) {
          clearInterval(wait);
          resolve();
        }
      }, 50);
      return;
    }
    minutes[minute] ??= { requests: 0, errors: 0, latencies: [], rss: [], heap: [] };
    // Send what the schedule says is due by now: a steady rate, however the answers come.
    const due = Math.floor((elapsed / 1000) * RATE);
    for (; sent < due; sent++) {
      const m = minutes[minute]!;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      one(sent)
        .then(
          (r) => {
            m.requests++;
            m.latencies.push(r.ms);
            (byKind.get(r.what) ?? byKind.set(r.what, []).get(r.what)!).push(r.ms);
            if (!r.ok) {
              m.errors++;
              errorsSeen.set(r.what, (errorsSeen.get(r.what) ?? 0) + 1);
            }
          },
          (error: Error) => {
            m.requests++;
            m.errors++;
            errorsSeen.set(error.message, (errorsSeen.get(error.message) ?? 0) + 1);
          },
        )
        .finally(() => {
          inFlight--;
        });
    }
  }, 10);
  const sampler = setInterval(() => {
    const minute = Math.floor((Date.now() - startedAt) / 60_000);
    if (minute >= MINUTES) {
      clearInterval(sampler);
      return;
    }
    minutes[minute]?.rss.push(rssMiB(child.pid!));
    if (sqliteFile !== undefined) databaseMiB[minute] = statSync(sqliteFile).size / 1024 / 1024;
    void heapMiB().then(
      (h) => minutes[minute]?.heap.push(h),
      () => {},
    );
  }, 5_000);
  const printer = setInterval(() => {
    const minute = Math.floor((Date.now() - startedAt) / 60_000) - 1;
    const m = minutes[minute];
    if (m === undefined) return;
    const sorted = [...m.latencies].sort((a, b) => a - b);
    const rss = [...m.rss].sort((a, b) => a - b);
    log(
      `  minute ${minute + 1}: ${m.requests} requests, ${m.errors} errors, p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, RSS ${(rss[0] ?? 0).toFixed(0)}-${(rss.at(-1) ?? 0).toFixed(0)} MiB, heap ${(m.heap.at(-1) ?? 0).toFixed(0)} MiB`,
    );
    if (minute + 1 >= MINUTES) clearInterval(printer);
  }, 60_000);
});
const finalRss = rssMiB(child.pid!);
child.kill('SIGTERM');
await cleanup();

// Warm-up: the first two minutes of a long run (caches fill, the JIT settles), the first of a short one.
const warmIndex = MINUTES >= 5 ? 2 : Math.min(1, MINUTES - 1);
const warm = minutes[warmIndex]!;
const last = minutes.at(-1)!;
// Resident memory moves with each garbage collection: compare the medians of the
// samples (every 5 s) of the minute after warm-up and of the last minute.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const warmRss = median(warm.rss);
const lastRss = median(last.rss);
const growth = (lastRss - warmRss) / warmRss;
const heapGrowth = (median(last.heap) - median(warm.heap)) / median(warm.heap);
const p99 = (m: Minute) =>
  percentile(
    [...m.latencies].sort((a, b) => a - b),
    0.99,
  );
const errors = minutes.reduce((n, m) => n + m.errors, 0);
const total = minutes.reduce((n, m) => n + m.requests, 0);
log(`\nMachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
log(
  `| engine | minutes | rate | requests | errors | RSS median, minute ${warmIndex + 1} -> last (final) | growth | JS heap median | growth | p99 minute ${warmIndex + 1} -> last | most in flight |`,
);
log(`|---|---|---|---|---|---|---|---|---|---|---|`);
log(
  `| ${values.engine} | ${MINUTES} | ${RATE}/s | ${total} | ${errors} | ${warmRss.toFixed(0)} -> ${lastRss.toFixed(0)} MiB (${finalRss.toFixed(0)}) | ${(growth * 100).toFixed(1)}% | ${median(warm.heap).toFixed(0)} -> ${median(last.heap).toFixed(0)} MiB | ${(heapGrowth * 100).toFixed(1)}% | ${p99(warm).toFixed(1)} -> ${p99(last).toFixed(1)} ms | ${maxInFlight} |`,
);
if (sqliteFile !== undefined)
  log(
    `database file: ${(databaseMiB[warmIndex] ?? 0).toFixed(0)} MiB in minute ${warmIndex + 1} -> ${(databaseMiB.at(-1) ?? 0).toFixed(0)} MiB at the end (pages read or written stay in RSS up to the ${cacheMb ?? 64} MiB page cache)`,
  );
log(
  `p50 / p99 by request: ${[...byKind]
    .map(([k, v]) => {
      const s = [...v].sort((a, b) => a - b);
      return `${k} ${percentile(s, 0.5).toFixed(1)} / ${percentile(s, 0.99).toFixed(1)} ms`;
    })
    .join(', ')}`,
);
if (errors > 0) log(`errors: ${JSON.stringify(Object.fromEntries(errorsSeen))}`);
const ok = errors === 0 && growth < 0.1 && p99(last) < Math.max(2 * p99(warm), p99(warm) + 20);
log(ok ? 'PASS: memory flat, no error, p99 stable' : 'FAIL: see the figures above');
process.exit(ok ? 0 : 1);
