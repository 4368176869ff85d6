// The bench's copy of its database (bench/processes.ts snapshotOf), which each run of `--only
// chains` and `--only ledger` starts from: a restore brings back the rows as they were when the copy
// was made, again and again, and the copy and the database go when they are dropped, on both engines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { engines } from './harness.ts';
import { openDatabase } from '../src/db/database.ts';

// The bench's PostgreSQL is the tests' (read when bench/processes.ts loads).
if (process.env.TEST_DATABASE_URL !== undefined) process.env.BENCH_DATABASE_URL = process.env.TEST_DATABASE_URL;
const { freshDatabase, snapshotOf, withClient, PG_BASE } = await import('../bench/processes.ts');

async function rowsOf(databaseUrl: string): Promise<number[]> {
  const handle = openDatabase({ url: databaseUrl });
  try {
    const { rows } = await sql<{ x: number }>`select x from bench_rows order by x`.execute(handle.db);
    return rows.map((r) => Number(r.x));
  } finally {
    await handle.close();
  }
}

async function insert(databaseUrl: string, x: number): Promise<void> {
  const handle = openDatabase({ url: databaseUrl });
  try {
    await sql`create table if not exists bench_rows (x integer not null)`.execute(handle.db);
    await sql`insert into bench_rows (x) values (${x})`.execute(handle.db);
  } finally {
    await handle.close();
  }
}

async function postgresDatabases(): Promise<string[]> {
  return withClient(PG_BASE, async (c) => (await c.query<{ datname: string }>('select datname from pg_database')).rows.map((r) => r.datname));
}

for (const { name: engine } of engines()) {
  describe(`the bench's database copy on ${engine}`, () => {
    test('each restore brings back the rows as they were at the copy; drop and cleanup leave nothing', async () => {
      const { databaseUrl, cleanup } = await freshDatabase(engine, 'snaptest');
      try {
        await insert(databaseUrl, 1);
        const snapshot = await snapshotOf(databaseUrl);
        try {
          await insert(databaseUrl, 2);
          assert.deepEqual(await rowsOf(databaseUrl), [1, 2]);
          await snapshot.restore();
          assert.deepEqual(await rowsOf(databaseUrl), [1], 'the row written after the copy is gone');
          await insert(databaseUrl, 3);
          await snapshot.restore();
          assert.deepEqual(await rowsOf(databaseUrl), [1], 'and again, from the same copy');
        } finally {
          await snapshot.drop();
        }
      } finally {
        await cleanup();
      }
      if (engine === 'sqlite') {
        const file = databaseUrl.slice('sqlite:'.length);
        assert.equal(existsSync(file) || existsSync(`${file}.snapshot`), false);
      } else {
        const name = new URL(databaseUrl).pathname.slice(1);
        const left = (await postgresDatabases()).filter((d) => d.startsWith(name));
        assert.deepEqual(left, [], 'the database and its copy are dropped');
      }
    });
  });
}
