// Lookups pipelined on shared PostgreSQL connections (db/pipelined.ts), against a real server.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Writable } from 'node:stream';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from './database.ts';
import { PipelinedPool } from './pipelined.ts';
import { prepared } from './prepared.ts';
import { freshDatabase } from '../../test/harness.ts';

const pgOnly = { skip: process.env.TEST_DATABASE_URL === undefined && 'TEST_DATABASE_URL is not set: PostgreSQL only' };

async function backendPid(db: DatabaseHandle['lookups']): Promise<number> {
  const row = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0];
  assert(row !== undefined);
  return row.pid;
}

describe('lookups pipelined on shared connections (postgres)', pgOnly, () => {
  let handle: DatabaseHandle;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabase('postgres');
    cleanup = fresh.cleanup;
    handle = openDatabase({ url: fresh.databaseUrl, lookupConnections: 2, statementTimeoutMs: 500 });
    await sql`create table marks (id integer primary key, label text not null)`.execute(handle.db);
  });
  after(async () => {
    await handle.close();
    await cleanup();
  });

  test('200 lookups at once each get their own answer, over two server processes', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sql<{ n: number; pid: number }>`select ${i}::int as n, pg_backend_pid() as pid`.execute(handle.lookups)),
    );
    assert.deepEqual(
      answers.map((a) => a.rows[0]?.n),
      Array.from({ length: 200 }, (_, i) => i),
    );
    assert.equal(new Set(answers.map((a) => a.rows[0]?.pid)).size, 2);
    const poolPid = await backendPid(handle.db);
    assert.ok(!answers.some((a) => a.rows[0]?.pid === poolPid), 'not the pool: connections of their own');
  });

  test('a prepared query sent many times at once is parsed once per connection and answers each call', async () => {
    const twice = prepared<Record<string, never>, { n: number }, { n: number }>((k, p) => k.selectNoFrom(sql<number>`cast(${p('n')} as int) * 2`.as('n')) as never);
    const db = handle.lookups as never;
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => twice(db, { n: i })));
    assert.deepEqual(
      answers.map((rows) => rows[0]?.n),
      Array.from({ length: 100 }, (_, i) => i * 2),
    );
    const named = await Promise.all(
      [0, 1].map(() => sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like '%* 2%'`.execute(handle.lookups)),
    );
    assert.deepEqual(
      named.map((r) => r.rows[0]?.n),
      [1, 1],
      'one named statement on each shared connection',
    );
  });

  test('a lookup sees every commit made before it began', async () => {
    for (let i = 1; i <= 20; i++) {
      await sql`insert into marks (id, label) values (${i}, ${`mark ${i}`})`.execute(handle.db);
      const seen = await sql<{ n: number }>`select count(*)::int as n from marks`.execute(handle.lookups);
      assert.equal(seen.rows[0]?.n, i);
    }
  });

  test('a statement that fails fails alone: those sent beside it are answered', async () => {
    const results = await Promise.allSettled([
      sql`select 1 as n`.execute(handle.lookups),
      sql`select 1 / 0 as n`.execute(handle.lookups),
      sql`select 3 as n`.execute(handle.lookups),
      sql`select 1 / 0 as n`.execute(handle.lookups),
      sql`select 5 as n`.execute(handle.lookups),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    const failed = results[1] as PromiseRejectedResult;
    assert.equal((failed.reason as { code?: string }).code, '22012', 'division by zero, as the server said');
  });

  test('the statement timeout applies to a lookup', async () => {
    await assert.rejects(sql`select pg_sleep(2)`.execute(handle.lookups), (e: { code?: string }) => e.code === '57014');
    assert.equal((await sql<{ n: number }>`select 7 as n`.execute(handle.lookups)).rows[0]?.n, 7);
  });

  test('a transaction is refused on the shared connections, and nothing is written', async () => {
    await assert.rejects(
      handle.lookups.transaction().execute(async (trx) => {
        await sql`insert into marks (id, label) values (100, 'in a transaction')`.execute(trx);
      }),
      /a transaction cannot run on a shared pipelined connection/,
    );
    const found = await sql<{ n: number }>`select count(*)::int as n from marks where id = 100`.execute(handle.db);
    assert.equal(found.rows[0]?.n, 0);
  });

  test('a connection the server ends is replaced: the process survives and the next lookups are answered', async () => {
    const pids = new Set<number>();
    for (let i = 0; i < 4; i++) pids.add(await backendPid(handle.lookups));
    assert.equal(pids.size, 2);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where pid = any(${[...pids]}::int[])`.execute(handle.db);
    // The server's goodbye reaches each client; a lookup under way when it does fails, later ones reconnect.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after: number[] = [];
    for (let i = 0; i < 4; i++) after.push(await backendPid(handle.lookups));
    assert.equal(new Set(after).size, 2);
    assert.ok(
      after.every((pid) => !pids.has(pid)),
      'new server processes',
    );
  });
});

describe('lookups without shared connections (postgres, DB_LOOKUP_CONNECTIONS=0)', pgOnly, () => {
  test('go through the pool', async () => {
    const fresh = await freshDatabase('postgres');
    const handle = openDatabase({ url: fresh.databaseUrl, lookupConnections: 0, poolMax: 1 });
    try {
      assert.equal(handle.lookups, handle.db);
      assert.equal(await backendPid(handle.lookups), await backendPid(handle.db));
    } finally {
      await handle.close();
      await fresh.cleanup();
    }
  });
});

describe('connection lifetime of the shared connections (postgres)', pgOnly, () => {
  test('a shared connection older than the lifetime is replaced, and lookups go on', async () => {
    const fresh = await freshDatabase('postgres');
    const handle = openDatabase({ url: fresh.databaseUrl, lookupConnections: 1, connectionLifetimeS: 1 });
    try {
      const first = await backendPid(handle.lookups);
      assert.equal(await backendPid(handle.lookups), first, 'the same connection while it is young');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const second = await backendPid(handle.lookups);
      assert.notEqual(second, first);
      assert.equal(await backendPid(handle.lookups), second);
    } finally {
      await handle.close();
      await fresh.cleanup();
    }
  });
});

describe('the writes of the shared connections (postgres)', pgOnly, () => {
  test('the statements asked for in one turn leave in one write, and each is answered', async () => {
    const fresh = await freshDatabase('postgres');
    const made: pg.Client[] = [];
    const pool = new PipelinedPool(() => {
      const client = new pg.Client({ connectionString: fresh.databaseUrl, pipeline: true } as pg.ClientConfig);
      made.push(client);
      return client;
    }, 1);
    try {
      const handle = await pool.connect();
      const stream = (made[0] as unknown as { connection: { stream: Writable & { _writev?: unknown; _write: unknown } } }).connection.stream;
      let writes = 0;
      for (const name of ['_write', '_writev'] as const) {
        const original = stream[name] as ((...a: unknown[]) => unknown) | undefined;
        if (original === undefined) continue;
        stream[name] = (...a: unknown[]) => {
          writes += 1;
          return original.apply(stream, a);
        };
      }
      const answers = Array.from(
        { length: 20 },
        (_, i) =>
          (handle.query as unknown as (text: string, values: unknown[]) => Promise<{ rows: Array<{ n: number }> }>)('select $1::int * 2 as n', [i]) as Promise<{
            rows: Array<{ n: number }>;
          }>,
      );
      assert.equal(stream.writableCorked, 1, 'held until the turn ends');
      assert.equal(writes, 0);
      const rows = await Promise.all(answers);
      assert.deepEqual(
        rows.map((r) => r.rows[0]?.n),
        Array.from({ length: 20 }, (_, i) => i * 2),
      );
      assert.equal(writes, 1, 'twenty statements (eighty messages) in one write');
      assert.equal(stream.writableCorked, 0);
    } finally {
      await pool.end();
      await fresh.cleanup();
    }
  });
});

test('on SQLite, lookups are the database itself', async () => {
  const fresh = await freshDatabase('sqlite');
  const handle = openDatabase({ url: fresh.databaseUrl });
  try {
    assert.equal(handle.lookups, handle.db);
  } finally {
    await handle.close();
    await fresh.cleanup();
  }
});
