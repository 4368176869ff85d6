// What the benchmarks share: a fresh database on either engine, a server
// process from bench/servers.ts pinned to a core, and a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const SERVERS = new URL('./servers.ts', import.meta.url).pathname;
const CHAINS_OFF = new URL('./chains-off.ts', import.meta.url).pathname;
export const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** An empty database: an SQLite file in a temp folder, or a schema of its own on PG_BASE. */
export async function freshDatabase(engine: string, prefix: string): Promise<{ databaseUrl: string; dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `almoner-${prefix}-`));
  if (engine === 'sqlite') {
    return { databaseUrl: `sqlite:${join(dir, `${prefix}.sqlite`)}`, dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(PG_BASE);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    dir,
    cleanup: async () => {
      const c = new pg.Client({ connectionString: PG_BASE });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
      rmSync(dir, { recursive: true, force: true });
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
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
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
