import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { isUnavailable, isUniqueViolation } from './errors.ts';
import { CuttableProxy, describeEachEngine } from '../../test/harness.ts';
import { openDatabase } from './database.ts';

describeEachEngine('database errors', (env) => {
  test("isUniqueViolation knows each engine's refusal of a duplicate; other refusals are not one", async () => {
    const { db } = env().deps;
    await sql`create table t_unique (id integer primary key, name text not null unique)`.execute(db);
    await sql`insert into t_unique (id, name) values (1, 'a')`.execute(db);
    const duplicate = await sql`insert into t_unique (id, name) values (2, 'a')`.execute(db).catch((e: unknown) => e);
    assert.equal(isUniqueViolation(duplicate), true, String(duplicate));
    const samePrimaryKey = await sql`insert into t_unique (id, name) values (1, 'b')`.execute(db).catch((e: unknown) => e);
    assert.equal(isUniqueViolation(samePrimaryKey), true, String(samePrimaryKey));
    const notNull = await sql`insert into t_unique (id, name) values (3, null)`.execute(db).catch((e: unknown) => e);
    assert.ok(notNull instanceof Error);
    assert.equal(isUniqueViolation(notNull), false);
    assert.equal(isUnavailable(notNull), false);
    await sql`drop table t_unique`.execute(db);
  });
});

test('isUnavailable: a connection refused or lost, a busy SQLite; not a bug', () => {
  assert.equal(isUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), true);
  assert.equal(isUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' })), true);
  assert.equal(isUnavailable(Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR' })), true);
  assert.equal(isUnavailable(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isUnavailable(Object.assign(new Error('no such table: x'), { code: 'ERR_SQLITE_ERROR' })), false);
  assert.equal(isUnavailable(new TypeError('x is undefined')), false);
  assert.equal(isUnavailable(null), false);
});

test('isUnavailable: a new PostgreSQL connection that never answers (a black hole) is the database unavailable, not a bug', async () => {
  const proxy = new CuttableProxy({ host: '127.0.0.1', port: 9 });
  await proxy.up();
  proxy.blackhole();
  const handle = openDatabase({ url: `postgres://postgres@127.0.0.1:${proxy.port}/none`, connectTimeoutMs: 200, lookupConnections: 1 });
  try {
    // The pool's connections and the pipelined lookups' connection fail in words of their own.
    for (const db of [handle.db, handle.lookups]) {
      const error = await sql`select 1`.execute(db).catch((e: unknown) => e);
      assert.ok(error instanceof Error, String(error));
      assert.equal(isUnavailable(error), true, (error as Error).message);
    }
  } finally {
    await handle.close();
    await proxy.cut();
  }
});
