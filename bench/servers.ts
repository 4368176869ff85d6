// The servers a benchmark run starts, one per process (pinned to a core by
// bench/run.ts):
//   app       the real Almoner server on DATABASE_URL
//   ceiling   a bare node:http server answering a pre-serialized body (BODY_FILE)
//   naive     a bare node:http server doing one durable INSERT per POST on DATABASE_URL
// Each prints `listening <port>` when ready.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pino from 'pino';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { runLedgerLog } from '../src/modules/ledger/index.ts';
import { NodeSqliteDatabase } from '../src/db/sqlite-adapter.ts';
import { engineOf } from '../src/db/database.ts';
import { setWaitingTrigger } from './waiting-trigger.ts';
import { keepRequestObjectsYoung } from '../src/heap.ts';

const mode = process.argv[2];
// A normal exit, so that --cpu-prof can write its profile.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
const url = process.env.DATABASE_URL ?? '';

function listen(server: ReturnType<typeof createServer>): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
  });
}

if (mode === 'app') {
  // As `almoner serve` does (src/heap.ts); BENCH_PRETENURING=on leaves V8's default, to measure it.
  if (process.env.BENCH_PRETENURING !== 'on') keepRequestObjectsYoung();
  const config = loadConfig(process.env, { rateLimitPerMinute: 100_000_000, logLevel: 'warn' });
  const platform = await openPlatform(config, { log: pino({ level: 'warn' }) });
  const app = await buildApp(platform.deps);
  // --only chains: the chains-off arm (started with bench/chains-off.ts) without what names new entries as waiting, the other with it.
  if (process.env.BENCH_CHAINS !== undefined) await setWaitingTrigger(platform.deps.db, engineOf(url), process.env.BENCH_CHAINS !== 'off');
  // With LEDGER_JOB_MS: the ledger's log taken up and checkpointed that often, as a server's job does (rules §26).
  const ledgerEvery = Number(process.env.LEDGER_JOB_MS ?? 0);
  if (ledgerEvery > 0) {
    const ledgerRun = { busy: false };
    setInterval(() => {
      if (ledgerRun.busy) return;
      ledgerRun.busy = true;
      void runLedgerLog(platform.deps).finally(() => {
        ledgerRun.busy = false;
      });
    }, ledgerEvery).unref();
  }
  // The directory held in memory before the first search is measured (it loads in the background otherwise).
  await platform.deps.runtime.directory.warm();
  // BENCH_STALL_MS=N: a line `stall <ms since the process started> <ms late>` on standard output
  // whenever a 5 ms timer fires more than N ms late (the event loop held that long).
  const stallMs = Number(process.env.BENCH_STALL_MS ?? 0);
  if (stallMs > 0) {
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      if (now - last - 5 > stallMs) process.stdout.write(`stall ${now.toFixed(0)} ${(now - last - 5).toFixed(1)}\n`);
      last = now;
    }, 5).unref();
  }
  // BENCH_HEAP_SAMPLE=FILE: every allocation sampled (1 in 32 KiB), the collected ones too, written
  // there as a .heapprofile at exit: what a request allocates, not only what it leaves alive.
  const heapSample = process.env.BENCH_HEAP_SAMPLE;
  if (heapSample !== undefined && heapSample !== '') {
    // BENCH_HEAP_SAMPLE_KEEP=promoted: only what outlived the young generation (the old space's garbage and the live).
    const promoted = process.env.BENCH_HEAP_SAMPLE_KEEP === 'promoted';
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !promoted });
    process.removeAllListeners('SIGTERM');
    process.on('SIGTERM', () => {
      void session.post('HeapProfiler.stopSampling').then(({ profile }) => {
        writeFileSync(heapSample, JSON.stringify(profile));
        process.exit(0);
      });
    });
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
} else if (mode === 'ceiling') {
  const body = readFileSync(process.env.BODY_FILE ?? '');
  listen(
    createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    }),
  );
} else if (mode === 'naive') {
  const now = () => new Date().toISOString();
  let insert: (body: string) => Promise<void>;
  if (engineOf(url) === 'sqlite') {
    // WAL, synchronous=FULL; checkpoints at SQLite's default of 1,000 pages, where one-row
    // commits measured fastest (a longer WAL grows the file on every commit).
    const db = new NodeSqliteDatabase(url.replace(/^sqlite:/, ''), { walPages: 1000 });
    db.raw.exec('create table if not exists bench_naive (id integer primary key, body text not null, created_at text not null)');
    const stmt = db.raw.prepare('insert into bench_naive (body, created_at) values (?, ?)');
    insert = async (body) => {
      stmt.run(body, now());
    };
  } else {
    const pool = new pg.Pool({ connectionString: url, max: 10 }); // synchronous_commit is on by default
    await pool.query('create table if not exists bench_naive (id bigint generated by default as identity primary key, body text not null, created_at text not null)');
    insert = async (body) => {
      await pool.query('insert into bench_naive (body, created_at) values ($1, $2)', [body, now()]);
    };
  }
  listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        insert(body).then(
          () => {
            res.writeHead(201, { 'content-type': 'application/json' });
            res.end('{"ok":true}');
          },
          () => {
            res.writeHead(500);
            res.end();
          },
        );
      });
    }),
  );
} else {
  process.stderr.write('usage: servers.ts app|ceiling|naive\n');
  process.exit(2);
}
