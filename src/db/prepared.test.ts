import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, sql, type Generated } from 'kysely';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-adapter.ts';
import { prepared } from './prepared.ts';

interface T { items: { id: Generated<number>; owner: number; label: string } }

test('a prepared query puts each named value in its place, every time', async () => {
  const db = new Kysely<T>({ dialect: new NodeSqliteDialect(new NodeSqliteDatabase(':memory:')) });
  try {
    await sql`create table items (id integer primary key, owner integer not null, label text not null)`.execute(db);
    await db.insertInto('items').values([{ owner: 1, label: 'a' }, { owner: 1, label: 'b' }, { owner: 2, label: 'c' }, { owner: 1, label: 'd' }]).execute();
    const byOwner = prepared<T, { label: string }, { owner: number; limit: number; offset: number }>((k, p) =>
      k.selectFrom('items').select('label').where('owner', '=', p('owner')).where('label', '!=', 'zzz').orderBy('id').limit(p('limit')).offset(p('offset')));
    assert.deepEqual((await byOwner(db, { owner: 1, limit: 2, offset: 0 })).map((r) => r.label), ['a', 'b']);
    assert.deepEqual((await byOwner(db, { owner: 1, limit: 2, offset: 2 })).map((r) => r.label), ['d']);
    assert.deepEqual((await byOwner(db, { owner: 2, limit: 5, offset: 0 })).map((r) => r.label), ['c']);
    await assert.rejects(byOwner(db, { owner: 1, limit: 1 } as never), /no value for offset/);
  } finally {
    await db.destroy();
  }
});
