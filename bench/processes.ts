// What the benchmarks share: a fresh database on either engine, a server
// process from bench/servers.ts pinned to a core, and a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, copyFileSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const SERVERS = new URL('./servers.ts', import.meta.url).pathname;
const CHAINS_OFF = new URL('./chains-off.ts', import.meta.url).pathname;
export const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** An empty database: an SQLite file in a temp folder, or a PostgreSQL database of its own beside PG_BASE's. */
export async function freshDatabase(engine: string, prefix: string): Promise<{ databaseUrl: string; dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `almoner-${prefix}-`));
  if (engine === 'sqlite') {
    return { databaseUrl: `sqlite:${join(dir, `${prefix}.sqlite`)}`, dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  // A database, not a schema: it can be copied whole (snapshotOf) and dropped with its connections.
  const name = `bench_${prefix}_${Date.now()}`;
  // BENCH_PG_ICU=1: the database with ICU's en-US collation, as a server set up with a linguistic
  // default compares text (ADR 36); else the server's default (the bench machine's C.UTF-8).
  const collation = process.env.BENCH_PG_ICU === '1' ? " template template0 locale_provider icu icu_locale 'en-US'" : '';
  await onPostgres((c) => c.query(`create database ${name}${collation}`));
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dir,
    cleanup: async () => {
      await onPostgres((c) => c.query(`drop database if exists ${name} with (force)`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `use` given a PostgreSQL client connected to `url`, ended after, whatever `use` did (the tests' harness uses it too). */
export async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const onPostgres = <T>(use: (client: pg.Client) => Promise<T>): Promise<T> => withClient(PG_BASE, use);

/**
 * A copy of the database as it is now, to start each of a bench's runs from (`restore`), so that a
 * run does not meet the rows the runs before it wrote: an SQLite file copied beside it (its WAL
 * checkpointed into it first), or a PostgreSQL database made from it as a template. Nothing may be
 * connected to it when the copy is made or restored. `drop` removes the copy.
 */
export async function snapshotOf(databaseUrl: string): Promise<{ restore: () => Promise<void>; drop: () => Promise<void> }> {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length);
    const copy = `${file}.snapshot`;
    const db = new DatabaseSync(file);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    copyFileSync(file, copy);
    return {
      restore: async () => {
        for (const extra of ['-wal', '-shm']) rmSync(`${file}${extra}`, { force: true });
        copyFileSync(copy, file);
        // On the disk before the run starts: otherwise the kernel writes the copy's pages back
        // during the run, beside the commits measured (PostgreSQL's FILE_COPY syncs its files itself).
        const fd = openSync(file, 'r+');
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      },
      drop: async () => rmSync(copy, { force: true }),
    };
  }
  const name = new URL(databaseUrl).pathname.slice(1);
  const copy = `${name}_snapshot`;
  // FILE_COPY copies the files at once (after a checkpoint) rather than writing every page to the WAL.
  const copyOf = (from: string, to: string) => onPostgres((c) => c.query(`create database ${to} template ${from} strategy file_copy`));
  await copyOf(name, copy);
  return {
    restore: async () => {
      await onPostgres((c) => c.query(`drop database ${name} with (force)`));
      await copyOf(copy, name);
    },
    drop: async () => {
      await onPostgres((c) => c.query(`drop database if exists ${copy} with (force)`));
    },
  };
}

/** Starts a bench/servers.ts server (`app`, `ceiling`, `naive`) on `core`; resolves when it listens. */
export function startServer(mode: string, env: Record<string, string>, core = 0): Promise<{ child: ChildProcess; port: number }> {
  // BENCH_CPU_PROF=<dir>: the app server writes its CPU profile there when it stops.
  const profile = mode === 'app' && process.env.BENCH_CPU_PROF !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_NODE_FLAGS="--flag ...": Node's flags for the app server (a garbage collector's setting, say).
  const flags = mode === 'app' ? (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '') : [];
  // BENCH_CHAINS=off in `env`: the ledger's chains switched off as the server's modules load (bench/chains-off.ts).
  if (mode === 'app' && env.BENCH_CHAINS === 'off') flags.push('--import', CHAINS_OFF);
  const child = spawn('taskset', ['-c', String(core), process.execPath, ...profile, ...flags, SERVERS, mode], {
    // Every server with io_uring for its file syncs, as `almoner serve` starts (src/io-uring.ts), unless
    // the bench's environment says otherwise (UV_USE_IO_URING=0: the thread pool, to compare).
    env: { UV_USE_IO_URING: '1', ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // BENCH_SERVER_OUT=<file>: the app server's standard output appended there (`--trace-gc`'s lines, say).
  const keep = mode === 'app' ? process.env.BENCH_SERVER_OUT : undefined;
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      if (keep !== undefined) appendFileSync(keep, chunk);
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
      .listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      })
      .on('error', reject);
  });
}
