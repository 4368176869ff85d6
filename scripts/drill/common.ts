// What the operator drills share: a PostgreSQL cluster of their own (initdb on
// a spare port, WAL archived), Almoner nodes of a release started and stopped
// as an operator would, and the CLI.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, chmodSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const log = (line: string) => process.stdout.write(`${line}\n`);

/** PATH without any node_modules/.bin: npm and node are the machine's own, as on a fresh server. */
export function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(':')
    .filter((p) => !p.includes('node_modules'))
    .join(':');
}
/** University of Vermont Medical Center, in the demo's IRS extract (src/demo/nonprofits.csv). */
export const EIN = '030219309';

function findPgBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  throw new Error('PostgreSQL server binaries not found: install postgresql, or set PG_BIN');
}

// Looked up on first use: importing this file (the tests do, for its node helpers) needs no PostgreSQL.
let pgBin: string | undefined;

/** Runs a PostgreSQL binary, as the `postgres` account when this is root (initdb refuses root). */
export function pg(command: string, args: string[]): string {
  pgBin ??= process.env.PG_BIN ?? findPgBin();
  const full = join(pgBin, command);
  if (userInfo().uid === 0) return execFileSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' });
  return execFileSync(full, args, { encoding: 'utf8' });
}

/** A PostgreSQL cluster in `dir`, archiving its WAL to `dir/wal`, on `port`. */
export class PgCluster {
  readonly data: string;
  readonly wal: string;
  readonly dir: string;
  readonly port: number;
  #up = false;

  constructor(dir: string, port: number, data = 'primary') {
    this.dir = dir;
    this.port = port;
    this.data = join(dir, data);
    this.wal = join(dir, 'wal');
  }

  url(database = 'almoner'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async create(): Promise<void> {
    chmodSync(this.dir, 0o777);
    mkdirSync(this.wal, { recursive: true });
    chmodSync(this.wal, 0o777);
    pg('initdb', ['-D', this.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    appendFileSync(
      join(this.data, 'postgresql.conf'),
      `\nport = ${this.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${this.dir}'\nwal_level = replica\narchive_mode = on\narchive_command = 'cp %p ${this.wal}/%f'\narchive_timeout = 60\n`,
    );
    this.start();
    await query(this.url('postgres'), 'create database almoner');
  }

  start(): void {
    pg('pg_ctl', ['-D', this.data, '-l', `${this.data}.log`, '-w', '-t', '300', 'start']);
    this.#up = true;
  }

  stop(): void {
    if (!this.#up) return;
    pg('pg_ctl', ['-D', this.data, '-w', '-m', 'fast', 'stop']);
    this.#up = false;
  }

  baseBackup(to: string): void {
    pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-D', to, '-X', 'none', '-c', 'fast']);
  }

  /** A new cluster on `port` from base backup `from`, replayed from this cluster's WAL archive to `target`. */
  restoreTo(from: string, name: string, port: number, target: Date): PgCluster {
    const restored = new PgCluster(this.dir, port, name);
    execFileSync('cp', ['-a', from, restored.data]);
    const at = target.toISOString().replace('T', ' ').replace('Z', '+00');
    appendFileSync(
      join(restored.data, 'postgresql.conf'),
      `\nport = ${port}\narchive_mode = off\nrestore_command = 'cp ${this.wal}/%f %p'\nrecovery_target_time = '${at}'\nrecovery_target_action = 'promote'\n`,
    );
    writeFileSync(join(restored.data, 'recovery.signal'), '');
    if (userInfo().uid === 0) execFileSync('chown', ['-R', 'postgres:postgres', restored.data]);
    return restored;
  }
}

export async function query(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const { default: pgClient } = await import('pg');
  const client = new pgClient.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** Runs the `almoner` CLI of the release in `release` (this checkout by default). */
export function almoner(args: string[], env: Record<string, string>, release = ROOT): string {
  const node = join(release, 'node_modules', '.bin', 'node');
  return execFileSync(existsSync(node) ? node : process.execPath, [join(release, 'bin', 'almoner.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  });
}

/**
 * `almoner` as above, without blocking this process: the drill's load keeps its pace meanwhile
 * (a blocked event loop would hold every request, then send them all at once). Resolves to its
 * output; a non-zero exit resolves too, with what it printed.
 */
export async function almonerAsync(args: string[], env: Record<string, string>, release = ROOT): Promise<string> {
  const node = join(release, 'node_modules', '.bin', 'node');
  const run = promisify(execFile)(existsSync(node) ? node : process.execPath, [join(release, 'bin', 'almoner.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  });
  return run.then(
    (r) => r.stdout,
    (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
  );
}

export interface Node {
  base: string;
  /** SIGTERM: the node drains (readyz 503 for SHUTDOWN_GRACE_MS), then exits. */
  stop: () => Promise<void>;
}

/** `almoner serve` of the release in `release`, on `port`, resolved once it listens. */
export async function startNode(env: Record<string, string>, release = ROOT): Promise<Node> {
  const node = join(release, 'node_modules', '.bin', 'node');
  const server = spawn(existsSync(node) ? node : process.execPath, [join(release, 'bin', 'almoner.js'), 'serve'], {
    env: { ...process.env, SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => {
    server.on('exit', resolve);
    server.on('error', resolve);
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    // DRILL_LOGS=DIR keeps each node's log lines there (one file per node).
    const logs = process.env.DRILL_LOGS === undefined ? undefined : createWriteStream(join(process.env.DRILL_LOGS, `node-${server.pid}.log`));
    let listening = false;
    server.stdout?.on('data', (c: Buffer) => {
      logs?.write(c);
      if (listening) return;
      out += c.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        listening = true;
        resolve(m[1] as string);
      }
    });
    void exited.then(() => reject(new Error(`the node exited before listening: ${out.slice(-400)}`)));
  });
  return {
    base,
    stop: async () => {
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/** A release the changelog names: `## 0.2.0 (2026-11-27, commit 850adda)`. */
export interface Release {
  version: string;
  date: string;
  commit: string;
}

/** The releases CHANGELOG.md names with their commits, newest first (tags do not travel with a clone: the changelog does). */
export function releases(changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')): Release[] {
  return [...changelog.matchAll(/^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2}), commit ([0-9a-f]{7,40})\)$/gm)].map((m) => ({
    version: m[1] as string,
    date: m[2] as string,
    commit: m[3] as string,
  }));
}

/** The newest release the changelog names that is not this build's version: what an upgrade rolls from. */
export function previousRelease(version: string, changelog?: string): Release {
  const found = releases(changelog).find((r) => r.version !== version);
  if (found === undefined) throw new Error('CHANGELOG.md names no earlier release with its commit (## X.Y.Z (YYYY-MM-DD, commit HASH))');
  return found;
}
