import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, sql, type Generated } from 'kysely';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-adapter.ts';
import { prepared } from './prepared.ts';
import { openDatabase } from './database.ts';
import { engines } from '../../test/harness.ts';

interface T {
  items: { id: Generated<number>; owner: number; label: string };
}

test('a prepared query puts each named value in its place, every time', async () => {
  const db = new Kysely<T>({ dialect: new NodeSqliteDialect(new NodeSqliteDatabase(':memory:')) });
  try {
    await sql`create table items (id integer primary key, owner integer not null, label text not null)`.execute(db);
    await db
      .insertInto('items')
      .values([
        { owner: 1, label: 'a' },
        { owner: 1, label: 'b' },
        { owner: 2, label: 'c' },
        { owner: 1, label: 'd' },
      ])
      .execute();
    const byOwner = prepared<T, { label: string }, { owner: number; limit: number; offset: number }>((k, p) =>
      k.selectFrom('items').select('label').where('owner', '=', p('owner')).where('label', '!=', 'zzz').orderBy('id').limit(p('limit')).offset(p('offset')),
    );
    assert.deepEqual(
      (await byOwner(db, { owner: 1, limit: 2, offset: 0 })).map((r) => r.label),
      ['a', 'b'],
    );
    assert.deepEqual(
      (await byOwner(db, { owner: 1, limit: 2, offset: 2 })).map((r) => r.label),
      ['d'],
    );
    assert.deepEqual(
      (await byOwner(db, { owner: 2, limit: 5, offset: 0 })).map((r) => r.label),
      ['c'],
    );
    await assert.rejects(byOwner(db, { owner: 1, limit: 1 } as never), /no value for offset/);
  } finally {
    await db.destroy();
  }
});

// PostgreSQL: a prepared query goes as a named statement, parsed and planned once per connection.
for (const { name: engine } of engines()) {
  if (engine !== 'postgres') continue;
  test('on PostgreSQL a prepared query is a named statement of its connection; other SQL is not', async () => {
    const handle = openDatabase({ url: process.env.TEST_DATABASE_URL ?? '', poolMax: 1 });
    try {
      const one = prepared<T, { n: number }, { n: number }>((k, p) => k.selectNoFrom(sql<number>`cast(${p('n')} as int)`.as('n')) as never);
      const db = handle.db as unknown as Kysely<T>;
      assert.deepEqual(await one(db, { n: 1 }), [{ n: 1 }]);
      assert.deepEqual(await one(db, { n: 2 }), [{ n: 2 }]);
      await sql`select ${3} as n`.execute(db);
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
      assert.equal(rows.length, 1, 'one named statement: the prepared query, once');
      assert.match(rows[0]?.statement ?? '', /cast\(\$1 as int\)/);
    } finally {
      await handle.close();
    }
  });
}
