import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import fc from 'fast-check';
import { bindJsonRows, fromRowsStatement, idsIn, insertRows, jsonRowsFrom, postgresRows, rowsStatement, runStatements } from './bulk.ts';
import { DIALECTS } from './dialect.ts';
import { openDatabase } from './database.ts';
import { engines, freshDatabase } from '../../test/harness.ts';

test('on PostgreSQL rows go as one JSON value: the SQL is the same for one row or many', () => {
  const text = (rows: unknown[][]) => {
    const params: unknown[] = [];
    const [s] = insertRows('items', 'id bigint, label text, ref bigint', rows);
    assert.ok(s?.sameText);
    return { sql: s.text('postgres', params), params };
  };
  const one = text([[1, 'a', null]]);
  const three = text([
    [1, 'a', null],
    [2, 'b', 7],
    [3, "c'd", 8],
  ]);
  assert.equal(one.sql, three.sql);
  // The rows as arrays, and their count (the planner's estimate: jsonRowsFrom).
  assert.deepEqual(three.params, [
    JSON.stringify([
      [1, 'a', null],
      [2, 'b', 7],
      [3, "c'd", 8],
    ]),
    3,
  ]);
  // SQLite binds each value.
  const params: unknown[] = [];
  assert.match(insertRows('items', 'id bigint', [[1], [2]])[0]?.text('sqlite', params) ?? '', /values \(\?\),\(\?\)/);
  assert.deepEqual(params, [1, 2]);
});

test('a value JSON cannot carry exactly is refused before anything is sent', () => {
  for (const bad of [2 ** 53, 1.5, Number.NaN, 10n, new Date(0), Buffer.from('x'), { a: 1 }]) {
    assert.throws(() => bindJsonRows([], ['v'], [[bad]]), /v: a string, a safe integer, a boolean or null/, String(bad));
  }
  assert.throws(() => bindJsonRows([], ['a', 'b'], [[1]]), /a value for each of the 2 columns/);
});

for (const { name: engine } of engines()) {
  test(`${engine}: rows written by insertRows and a rows statement arrive with their types, and PostgreSQL prepares the statement once`, async () => {
    const { databaseUrl, cleanup } = await freshDatabase(engine);
    const handle = openDatabase({ url: databaseUrl, poolMax: 1 });
    const db = handle.db as unknown as Kysely<any>;
    try {
      await sql`create table items (id bigint primary key, label text not null, ref bigint)`.execute(db);
      await sql`create table totals (id bigint primary key, n bigint not null)`.execute(db);
      await sql`insert into totals (id, n) values (1, 10), (2, 20)`.execute(db);
      const add = (moves: Array<[number, number]>) =>
        rowsStatement(
          (v) => `update totals set n = n + case ${moves.map(([id, n]) => `when id = ${v(id)} then ${v(n)}`).join(' ')} end where id in (${moves.map(([id]) => v(id)).join(',')})`,
          (params) => `update totals t set n = t.n + m.n from ${postgresRows(params, 'id bigint, n bigint', moves, 'm')} where t.id = m.id`,
        );
      await runStatements(db, [...insertRows('items', 'id bigint, label text, ref bigint', [[1, 'a', null]]), add([[1, 1]])]);
      await runStatements(db, [
        ...insertRows('items', 'id bigint, label text, ref bigint', [
          [2, "it's", 9_007_199_254_740_991],
          [3, '', null],
        ]),
        add([
          [1, 2],
          [2, -5],
        ]),
      ]);
      // Moves written once for both engines, as an UPDATE ... FROM the rows.
      await runStatements(db, [fromRowsStatement('id bigint, n bigint', [[2, 100]], 'm', (m) => `update totals set n = totals.n + m.n from ${m} where totals.id = m.id`)]);
      const items = await sql<{ id: number; label: string; ref: number | null }>`select id, label, ref from items order by id`.execute(db);
      assert.deepEqual(
        items.rows.map((r) => ({ ...r, id: Number(r.id), ref: r.ref === null ? null : Number(r.ref) })),
        [
          { id: 1, label: 'a', ref: null },
          { id: 2, label: "it's", ref: 9_007_199_254_740_991 },
          { id: 3, label: '', ref: null },
        ],
      );
      const totals = await sql<{ id: number; n: number }>`select id, n from totals order by id`.execute(db);
      assert.deepEqual(
        totals.rows.map((r) => [Number(r.id), Number(r.n)]),
        [
          [1, 13],
          [2, 115],
        ],
      );
      if (handle.engine === 'postgres') {
        const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like 'with w0 as (insert into items%'`.execute(db);
        assert.equal(rows.length, 1, 'one named statement served both runs');
      }
    } finally {
      await handle.close();
      await cleanup();
    }
  });
}

for (const { name: engine } of engines()) {
  test(`${engine}: rows read back from one JSON value are the rows bound, any text, integer, boolean or null`, async () => {
    const { databaseUrl, cleanup } = await freshDatabase(engine);
    const handle = openDatabase({ url: databaseUrl, poolMax: 1 });
    const db = handle.db as unknown as Kysely<any>;
    // Text as people may send it (no NUL, which neither engine's text holds), integers at the edges of safe.
    const text = fc.string({ unit: 'grapheme' }).filter((t) => !t.includes('\u0000'));
    const row = fc.tuple(fc.option(text), fc.option(fc.maxSafeInteger()), fc.option(fc.boolean()));
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(row, { maxLength: 8 }), async (rows) => {
          const params: unknown[] = [];
          const from = jsonRowsFrom(DIALECTS[handle.engine], params, 't text, n bigint, b boolean', rows, 'v');
          const read = await db.executeQuery<{ t: string | null; n: string | number | null; b: boolean | number | null }>(CompiledQuery.raw(`select t, n, b from ${from}`, params));
          const back = read.rows.map((r) => [r.t, r.n === null ? null : Number(r.n), r.b === null ? null : Boolean(r.b)]);
          assert.deepEqual(back, rows);
        }),
        { numRuns: 40 },
      );
    } finally {
      await handle.close();
      await cleanup();
    }
  });
}

for (const { name: engine } of engines()) {
  test(`${engine}: idsIn selects the rows of the ids given, any number of them, as one bound value`, async () => {
    const { databaseUrl, cleanup } = await freshDatabase(engine);
    const handle = openDatabase({ url: databaseUrl, poolMax: 1 });
    const db = handle.db as unknown as Kysely<any>;
    try {
      await sql`create table items (id bigint primary key)`.execute(db);
      await db
        .insertInto('items')
        .values(Array.from({ length: 50 }, (_, i) => ({ id: i + 1 })))
        .execute();
      const among = async (ids: number[]) => {
        const query = db
          .selectFrom('items')
          .select('id')
          .where(sql<boolean>`id in ${idsIn(db, ids, 'item id')}`)
          .orderBy('id');
        assert.equal(query.compile().parameters.length, 1, 'one bound value');
        return (await query.execute()).map((r) => Number(r.id));
      };
      assert.deepEqual(await among([3, 1, 49, 77]), [1, 3, 49]);
      assert.deepEqual(await among([]), []);
      assert.deepEqual(
        await among(Array.from({ length: 5000 }, (_, i) => i * 2)),
        Array.from({ length: 25 }, (_, i) => (i + 1) * 2),
      );
      assert.throws(() => idsIn(db, [1, 2 ** 53], 'item id'), /item id/);
    } finally {
      await handle.close();
      await cleanup();
    }
  });
}
