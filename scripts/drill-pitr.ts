// `npm run drill:pitr`: a point-in-time recovery drill on PostgreSQL, on one
// machine, with nothing shared: a PostgreSQL cluster of its own (initdb, on a
// spare port) archiving its WAL, an Almoner node on it taking donations, a
// base backup, more donations, a chosen recovery time T, more donations, then
// a restore of the base backup replayed to T into a new data directory.
// It checks that every donation acknowledged before T is there, none made
// after T is, and `almoner check` holds; and prints what it measured.
// Needs PostgreSQL's server binaries (Debian: postgresql-15; PG_BIN to point
// elsewhere) and, when run as root, the `postgres` account to run them as.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin', 'almoner.js');
const PG_BIN = process.env.PG_BIN ?? findPgBin();
const PRIMARY_PORT = Number(process.env.DRILL_PORT ?? 55432);
const RESTORE_PORT = PRIMARY_PORT + 1;
const log = (line: string) => process.stdout.write(`${line}\n`);
/** University of Vermont Medical Center, in the demo's extract. */
const EIN = '030219309';

function findPgBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  throw new Error('PostgreSQL server binaries not found: install postgresql, or set PG_BIN');
}

/** Runs a PostgreSQL binary as the `postgres` account when this is root (initdb refuses root). */
function pg(command: string, args: string[]): string {
  const full = join(PG_BIN, command);
  if (userInfo().uid === 0) return execFileSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' });
  return execFileSync(full, args, { encoding: 'utf8' });
}

function almoner(args: string[], url: string): string {
  return execFileSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' } });
}

async function startNode(url: string): Promise<{ base: string; stop: () => Promise<void> }> {
  const server = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, DATABASE_URL: url, PORT: '0', SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => server.on('exit', resolve));
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    void exited.then(() => reject(new Error('the node exited before listening')));
  });
  return {
    base,
    stop: async () => {
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/** Makes `n` donations of one cent and more through the API; returns each acknowledged id with when it was acknowledged. */
async function donate(base: string, key: string, n: number): Promise<Array<{ id: number; at: number }>> {
  const made: Array<{ id: number; at: number }> = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/v1/donations`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ein: EIN, amount: 10 }),
    });
    if (res.status !== 201) throw new Error(`donation refused: ${res.status} ${await res.text()}`);
    made.push({ id: ((await res.json()) as { id: number }).id, at: Date.now() });
  }
  return made;
}

async function query(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const { default: pgClient } = await import('pg');
  const client = new pgClient.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-pitr-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'primary');
  const wal = join(dir, 'wal');
  const base = join(dir, 'base');
  const restored = join(dir, 'restored');
  const started = Date.now();
  let primaryUp = false;
  let restoreUp = false;
  try {
    log(`== a PostgreSQL cluster of its own in ${dir} (${PG_BIN}), WAL archived to ${wal}`);
    for (const d of [wal]) execFileSync('mkdir', ['-p', d]);
    chmodSync(wal, 0o777);
    pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    appendFileSync(
      join(data, 'postgresql.conf'),
      `\nport = ${PRIMARY_PORT}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nwal_level = replica\narchive_mode = on\narchive_command = 'cp %p ${wal}/%f'\narchive_timeout = 60\n`,
    );
    pg('pg_ctl', ['-D', data, '-l', join(dir, 'primary.log'), '-w', 'start']);
    primaryUp = true;
    const admin = `postgres://postgres@127.0.0.1:${PRIMARY_PORT}/postgres`;
    await query(admin, 'create database almoner');
    const url = `postgres://postgres@127.0.0.1:${PRIMARY_PORT}/almoner`;
    almoner(['migrate'], url);
    const demo = almoner(['users', 'create', '--name', 'Drill Donor'], url);
    const key = /API key \(shown once\): (\S+)/.exec(demo)?.[1];
    const userId = /Created user (\d+)/.exec(demo)?.[1];
    if (key === undefined || userId === undefined) throw new Error(`no key in: ${demo}`);
    almoner(['contributions', 'record', '--user', userId, '--type', 'wire_payment', '--units', '100000', '--valuation', '1', '--currency', 'USD', '--status', 'success'], url);
    // The demo's real IRS extract, through the importer: the recipient below is one of its organisations.
    almoner(['nonprofits', 'import', join(ROOT, 'src', 'demo', 'nonprofits.csv')], url);

    const node = await startNode(url);
    log('== donations before the base backup');
    const early = await donate(node.base, key, 50);
    log('== base backup (pg_basebackup)');
    const backupStarted = Date.now();
    pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(PRIMARY_PORT), '-U', 'postgres', '-D', base, '-X', 'none', '-c', 'fast']);
    const backupMs = Date.now() - backupStarted;
    const before = await donate(node.base, key, 100);
    // T: a moment between two acknowledged donations, as an operator would choose "just before the accident".
    await new Promise((resolve) => setTimeout(resolve, 200));
    const targetRow = await query(url, 'select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms');
    const target = new Date(Number(targetRow[0]?.ms));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await donate(node.base, key, 100);
    await node.stop();
    await query(admin, 'select pg_switch_wal()');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the archiver copies the last segment
    pg('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
    primaryUp = false;

    log(`== restore: the base backup replayed to ${target.toISOString()} in ${restored}`);
    execFileSync('cp', ['-a', base, restored]);
    if (userInfo().uid === 0) execFileSync('chown', ['-R', 'postgres:postgres', restored]);
    appendFileSync(
      join(restored, 'postgresql.conf'),
      `\nport = ${RESTORE_PORT}\narchive_mode = off\nrestore_command = 'cp ${wal}/%f %p'\nrecovery_target_time = '${target.toISOString().replace('T', ' ').replace('Z', '+00')}'\nrecovery_target_action = 'promote'\n`,
    );
    writeFileSync(join(restored, 'recovery.signal'), '');
    if (userInfo().uid === 0) execFileSync('chown', ['postgres:postgres', join(restored, 'recovery.signal')]);
    const restoreStarted = Date.now();
    pg('pg_ctl', ['-D', restored, '-l', join(dir, 'restored.log'), '-w', '-t', '300', 'start']);
    restoreUp = true;
    const restoredUrl = `postgres://postgres@127.0.0.1:${RESTORE_PORT}/almoner`;
    for (;;) {
      const r = await query(restoredUrl, 'select pg_is_in_recovery() as r');
      if (r[0]?.r === false) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const restoreMs = Date.now() - restoreStarted;

    const ids = new Set((await query(restoredUrl, 'select id from donations')).map((r) => Number(r.id)));
    const lostBefore = [...early, ...before].filter((d) => !ids.has(d.id));
    const keptAfter = after.filter((d) => ids.has(d.id));
    const lastKept = [...before].reverse().find((d) => ids.has(d.id));
    const check = almoner(['check'], restoredUrl);
    log('');
    log(`donations acknowledged before T: ${early.length + before.length}, missing after the restore: ${lostBefore.length}`);
    log(`donations made after T: ${after.length}, present after the restore: ${keptAfter.length}`);
    log(`recovery point: the last donation kept was acknowledged ${lastKept === undefined ? '?' : target.getTime() - lastKept.at} ms before T`);
    log(`base backup: ${backupMs} ms; restore and replay to T: ${restoreMs} ms; the whole drill: ${Date.now() - started} ms`);
    log(`almoner check on the restored database: ${check.includes('All invariants hold.') ? 'all invariants hold' : `FAILED\n${check}`}`);
    if (lostBefore.length > 0 || keptAfter.length > 0 || !check.includes('All invariants hold.')) process.exitCode = 1;
  } finally {
    if (restoreUp) pg('pg_ctl', ['-D', restored, '-w', '-m', 'fast', 'stop']);
    if (primaryUp) pg('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
    if (process.env.DRILL_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
