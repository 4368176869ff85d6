// `npm run drill:pitr`: a point-in-time recovery drill on PostgreSQL, on one
// machine, with nothing shared: a PostgreSQL cluster of its own (initdb, on a
// spare port) archiving its WAL, an Almoner node on it taking donations, a
// base backup, more donations, a chosen recovery time T, more donations, then
// a restore of the base backup replayed to T into a new data directory.
// It checks that every donation acknowledged before T is there, none made
// after T is, and `almoner check` holds; and prints what it measured.
// Needs PostgreSQL's server binaries (Debian: postgresql-15; PG_BIN to point
// elsewhere) and, when run as root, the `postgres` account to run them as.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { almoner, EIN, log, PgCluster, query, ROOT, startNode } from './common.ts';

const PORT = Number(process.env.DRILL_PORT ?? 55432);

/** Makes `n` donations through the API; returns each acknowledged id with when it was acknowledged. */
export async function donate(base: string, key: string, n: number): Promise<Array<{ id: number; at: number }>> {
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

/** A donor with money and the demo's organisations, on a migrated database; returns their key. */
export function prepareDonor(url: string, release = ROOT): string {
  almoner(['migrate'], { DATABASE_URL: url }, release);
  const made = almoner(['users', 'create', '--name', 'Drill Donor'], { DATABASE_URL: url }, release);
  const key = /API key \(shown once\): (\S+)/.exec(made)?.[1];
  const userId = /Created user (\d+)/.exec(made)?.[1];
  if (key === undefined || userId === undefined) throw new Error(`no key in: ${made}`);
  almoner(
    ['contributions', 'record', '--user', userId, '--type', 'wire_payment', '--units', '1000000', '--valuation', '1', '--currency', 'USD', '--status', 'success'],
    { DATABASE_URL: url },
    release,
  );
  // The demo's real IRS extract, through the importer: the recipient of the drills' donations is one of its organisations.
  almoner(['nonprofits', 'import', join(ROOT, 'src', 'demo', 'nonprofits.csv')], { DATABASE_URL: url }, release);
  return key;
}

/** Restores `cluster`'s base backup `base` to `target` on `port`; waits for it to finish recovery; returns it and how long it took. */
export async function restore(cluster: PgCluster, base: string, port: number, target: Date): Promise<{ restored: PgCluster; ms: number }> {
  const restored = cluster.restoreTo(base, 'restored', port, target);
  const started = Date.now();
  restored.start();
  for (;;) {
    const r = await query(restored.url(), 'select pg_is_in_recovery() as r');
    if (r[0]?.r === false) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { restored, ms: Date.now() - started };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-pitr-'));
  const cluster = new PgCluster(dir, PORT);
  let restored: PgCluster | undefined;
  const started = Date.now();
  try {
    log(`== a PostgreSQL cluster of its own in ${dir}, WAL archived to ${cluster.wal}`);
    await cluster.create();
    const url = cluster.url();
    const key = prepareDonor(url);
    const node = await startNode({ DATABASE_URL: url, PORT: '0', SHUTDOWN_GRACE_MS: '0' });
    log('== donations before the base backup');
    const early = await donate(node.base, key, 50);
    log('== base backup (pg_basebackup)');
    const backupStarted = Date.now();
    const base = join(dir, 'base');
    cluster.baseBackup(base);
    const backupMs = Date.now() - backupStarted;
    const before = await donate(node.base, key, 100);
    // T: a moment between two acknowledged donations, as an operator would choose "just before the accident".
    await new Promise((resolve) => setTimeout(resolve, 200));
    const target = new Date(Number((await query(url, 'select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms'))[0]?.ms));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await donate(node.base, key, 100);
    await node.stop();
    await query(cluster.url('postgres'), 'select pg_switch_wal()');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the archiver copies the last segment
    cluster.stop();

    log(`== restore: the base backup replayed to ${target.toISOString()}`);
    const done = await restore(cluster, base, PORT + 1, target);
    restored = done.restored;
    const ids = new Set((await query(restored.url(), 'select id from donations')).map((r) => Number(r.id)));
    const lostBefore = [...early, ...before].filter((d) => !ids.has(d.id));
    const keptAfter = after.filter((d) => ids.has(d.id));
    const lastKept = [...before].reverse().find((d) => ids.has(d.id));
    const check = almoner(['check'], { DATABASE_URL: restored.url() });
    log('');
    log(`donations acknowledged before T: ${early.length + before.length}, missing after the restore: ${lostBefore.length}`);
    log(`donations made after T: ${after.length}, present after the restore: ${keptAfter.length}`);
    log(`recovery point: the last donation kept was acknowledged ${lastKept === undefined ? '?' : target.getTime() - lastKept.at} ms before T`);
    log(`base backup: ${backupMs} ms; restore and replay to T: ${done.ms} ms; the whole drill: ${Date.now() - started} ms`);
    log(`almoner check on the restored database: ${check.includes('All invariants hold.') ? 'all invariants hold' : `FAILED\n${check}`}`);
    if (lostBefore.length > 0 || keptAfter.length > 0 || !check.includes('All invariants hold.')) process.exitCode = 1;
  } finally {
    restored?.stop();
    cluster.stop();
    if (process.env.DRILL_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
