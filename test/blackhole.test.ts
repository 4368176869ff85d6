// A node never hangs when its PostgreSQL connections die without being closed
// (a failover behind a VIP, a dropped NAT entry, a host powered off): a real
// node behind a proxy that turns into a black hole (nothing passes, nothing is
// closed) under requests of each kind (lookups on the pipelined connections,
// writes in the pool's transactions). Each request is answered, 503 within its
// deadline; /readyz says not ready; once the path is back the node serves again
// on new connections; SIGTERM stops it within its deadline.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { CuttableProxy, freshDatabase, runCli, startServerProcess } from './harness.ts';
import { openDatabase } from '../src/db/database.ts';

const pgUrl = process.env.TEST_DATABASE_URL;

/** A request's status and how long it took (0: no answer within `limitMs`). */
async function timed(url: string, init: RequestInit, limitMs: number): Promise<{ status: number; ms: number; body: string }> {
  const started = Date.now();
  // A timer of its own, cleared once answered: nothing of a request outlives the test.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), limitMs);
  try {
    const response = await fetch(url, { ...init, signal: abort.signal, headers: { ...(init.headers as Record<string, string> | undefined), connection: 'close' } });
    return { status: response.status, ms: Date.now() - started, body: await response.text() };
  } catch {
    return { status: 0, ms: Date.now() - started, body: '' };
  } finally {
    clearTimeout(timer);
  }
}

describe('PostgreSQL gone silent', { skip: pgUrl === undefined && 'TEST_DATABASE_URL is not set: PostgreSQL is skipped' }, () => {
  test('every request is answered (503 within its deadline), /readyz is 503, service comes back on new connections, SIGTERM stops the node', { timeout: 180_000 }, async () => {
    const { databaseUrl, cleanup } = await freshDatabase('postgres');
    const target = new URL(databaseUrl);
    const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.up();
    const viaProxy = new URL(databaseUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    try {
      const made = await runCli(['users', 'create', '--name', 'Silent Donor'], databaseUrl);
      assert.equal(made.code, 0, made.stderr);
      const key = /(alm_live_[A-Za-z0-9]+)/.exec(made.stdout)?.[1] ?? '';
      const { server, base, exited } = await startServerProcess(viaProxy.toString(), {
        DB_STATEMENT_TIMEOUT_MS: '1000',
        DB_CONNECT_TIMEOUT_MS: '1000',
        DB_POOL_MAX: '4',
        SHUTDOWN_GRACE_MS: '200',
      });
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const lookup = () => timed(`${base}/v1/users/me`, { headers }, 20_000);
      const write = () => timed(`${base}/v1/api_keys`, { method: 'POST', headers, body: JSON.stringify({ name: 'during' }) }, 20_000);
      try {
        assert.equal((await lookup()).status, 200);
        assert.equal((await write()).status, 201);
        proxy.blackhole();
        // Under load, both kinds: every one answered, none hangs.
        const answers = await Promise.all([...Array.from({ length: 6 }, lookup), ...Array.from({ length: 4 }, write)]);
        for (const a of answers) {
          assert.equal(a.status, 503, `answered 503 (got ${a.status} after ${a.ms} ms)`);
          assert.match(a.body, /"code":"unavailable"/);
          assert.ok(a.ms < 15_000, `within its deadline (${a.ms} ms)`);
        }
        const ready = await timed(`${base}/readyz`, {}, 20_000);
        assert.equal(ready.status, 503, '/readyz is not ready while the database is silent');
        // The path comes back: new connections serve again.
        proxy.restore();
        let back = 0;
        for (let i = 0; i < 40 && back !== 200; i++) {
          back = (await lookup()).status;
          if (back !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        assert.equal(back, 200, 'lookups again');
        let wrote = 0;
        for (let i = 0; i < 40 && wrote !== 201; i++) {
          wrote = (await write()).status;
          if (wrote !== 201) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        assert.equal(wrote, 201, 'writes again');
        assert.equal((await timed(`${base}/readyz`, {}, 20_000)).status, 200);
        // Silent again, then SIGTERM: the node stops within its deadline, whatever it was waiting for.
        proxy.blackhole();
        const inFlight = Promise.allSettled([lookup(), write()]);
        const stopping = Date.now();
        server.kill('SIGTERM');
        let hung: ReturnType<typeof setTimeout> | undefined;
        const code = await Promise.race([exited, new Promise<'hung'>((resolve) => (hung = setTimeout(() => resolve('hung'), 30_000)))]);
        clearTimeout(hung);
        assert.notEqual(code, 'hung', 'SIGTERM stopped the node');
        assert.ok(Date.now() - stopping < 25_000);
        await inFlight;
      } finally {
        server.kill('SIGKILL');
      }
    } finally {
      await proxy.cut();
      await cleanup();
    }
  });

  test('no statement timeout (a bulk load asks for 0) means no client deadline either: a long statement finishes', async () => {
    const handle = openDatabase({ url: pgUrl as string, statementTimeoutMs: 0, lookupConnections: 0 });
    try {
      const { rows } = await sql<{ done: number }>`select 1 as done from pg_sleep(2.5)`.execute(handle.db);
      assert.deepEqual(rows, [{ done: 1 }]);
    } finally {
      await handle.close();
    }
  });
});
