// A node behind PgBouncer in transaction pooling (Debian's 1.18, which keeps no prepared
// statement across transactions): with DATABASE_POOLER=transaction it migrates, serves 40
// donations at once through 4 server connections, lists them, and `almoner check` holds; without
// the setting the pooler refuses its connections, and the node says what to set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runCli, startServerProcess } from './harness.ts';
import { emptyDatabase } from './fresh-databases.ts';

const PGBOUNCER = '/usr/sbin/pgbouncer';
const url = process.env.TEST_DATABASE_URL;
const skip =
  url === undefined
    ? 'TEST_DATABASE_URL is not set: the pooler test needs PostgreSQL'
    : !existsSync(PGBOUNCER)
      ? `${PGBOUNCER} is missing (apt-get install pgbouncer): not tested`
      : false;

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

test('a node behind PgBouncer in transaction pooling: donations at once, the list, almoner check', { skip, timeout: 180_000 }, async () => {
  const direct = new URL(url as string);
  // Marked as this process's (fresh-databases.ts): a run killed before its cleanup leaves nothing the next does not drop.
  const fresh = await emptyDatabase(url as string);
  const database = fresh.name;
  const dir = mkdtempSync(join(tmpdir(), 'almoner-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'users.txt'), `"${direct.username || 'postgres'}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${direct.hostname} port=${direct.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      // Fewer server connections than the node's pool and its lookups: they are shared by transaction.
      'default_pool_size = 4',
      'max_client_conn = 100',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // PgBouncer refuses to run as root: as nobody when we are root.
  const bouncer: ChildProcess = spawn(PGBOUNCER, [...(process.getuid?.() === 0 ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const through = `postgres://${direct.username || 'postgres'}@127.0.0.1:${port}/${database}`;
  let node: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    for (let i = 0; i < 50; i++) {
      const probe = new pg.Client({ connectionString: through });
      const ok = await probe.connect().then(
        () => true,
        () => false,
      );
      await probe.end().catch(() => {});
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pooled = { DATABASE_POOLER: 'transaction' };
    // Without the setting the pooler refuses the node's connections (a start parameter it does not know), and the node says what to set.
    const refused = await runCli(['users', 'create', '--name', 'Refused'], through);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /DATABASE_POOLER=transaction/);
    const made = await runCli(['users', 'create', '--name', 'Pooled Donor'], through, pooled);
    assert.equal(made.code, 0, made.stderr);
    const key = /API key \(shown once\): (\S+)/.exec(made.stdout)?.[1] ?? '';
    const userId = /Created user (\d+)/.exec(made.stdout)?.[1] ?? '';
    const funded = await runCli(
      ['contributions', 'record', '--user', userId, '--type', 'wire_payment', '--units', '1000', '--valuation', '1', '--currency', 'USD', '--status', 'success'],
      through,
      pooled,
    );
    assert.equal(funded.code, 0, funded.stderr);
    assert.equal((await runCli(['nonprofits', 'import', new URL('../src/demo/nonprofits.csv', import.meta.url).pathname], through, pooled)).code, 0);
    node = await startServerProcess(through, { ...pooled, DB_POOL_MAX: '8' });
    const base = node.base;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${base}/v1/donations`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': `pooled-${i}` },
          body: JSON.stringify({ ein: '030219309', amount: 12 }),
        }).then(async (r) => (r.status === 201 ? 201 : `${r.status} ${await r.text()}`)),
      ),
    );
    assert.deepEqual(
      results.filter((s) => s !== 201),
      [],
      'every donation through the pooler',
    );
    const listed = await fetch(`${base}/v1/donations?per_page=100`, { headers: { 'x-api-key': key } });
    assert.equal(listed.status, 200);
    assert.equal(((await listed.json()) as { items: unknown[] }).items.length, 40);
    const checked = await runCli(['check'], through, pooled);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  } finally {
    node?.server.kill('SIGTERM');
    if (node !== undefined) await node.exited;
    bouncer.kill('SIGTERM');
    await new Promise((resolve) => bouncer.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
    await fresh.cleanup();
  }
});
