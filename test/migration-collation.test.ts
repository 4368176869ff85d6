// Migration 071 on a platform that ran before it: the records of Idempotency-Keys kept as they
// were, and on PostgreSQL the keys and the donations' creation times compared byte by byte ("C"),
// whatever the database's default collation; SQLite compares bytes already.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, onFreshDatabase } from './harness.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Db } from '../src/db/database.ts';

const AT = '2026-11-01T00:00:00.000Z';

/** The collation PostgreSQL compares a column with: its own, else the database's default (null). */
async function collationOf(db: Db, table: string, column: string): Promise<string | null> {
  const rows = await sql<{ collation_name: string | null }>`select collation_name from information_schema.columns
      where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`.execute(db);
  assert.equal(rows.rows.length, 1, `${table}.${column} exists`);
  return rows.rows[0]?.collation_name ?? null;
}

/** Every key's record: its user, its key and its stored answer, in (user, key) order. */
async function keys(db: Db): Promise<Array<[number, string, string | null]>> {
  const rows = await sql<{ user_id: unknown; key: string; response_body: string | null }>`select user_id, key, response_body from idempotency_keys order by user_id, key`.execute(
    db,
  );
  return rows.rows.map((r): [number, string, string | null] => [Number(r.user_id), r.key, r.response_body]);
}

for (const { name: engine } of engines()) {
  describe(`migration 071 (keys and times compared byte by byte) on ${engine}`, () => {
    test("keeps every key's record, keeps (user, key) unique, and on PostgreSQL compares both columns by their bytes", async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle, { until: '070_books_check_locks_only_others' });
        if (engine === 'postgres') {
          assert.equal(await collationOf(db, 'idempotency_keys', 'key'), null, "the database's collation before");
          assert.equal(await collationOf(db, 'donations', 'created_at'), null);
        }
        const made = await sql<{ id: number }>`insert into users (name, slug, created_at) values ('Ann', 'ann', ${AT}) returning id`.execute(db);
        const ann = Number(made.rows[0]?.id);
        // Keys a linguistic collation orders otherwise than their bytes do (case, punctuation).
        for (const [key, body] of [
          ['0190a8f0-1234-7abc-8def-0123456789ab', '{"id":1}'],
          ['Order-B', '{"id":2}'],
          ['order-a', null],
          ['order_a', '{"id":3}'],
        ] as const) {
          await sql`insert into idempotency_keys (user_id, key, request_hash, state, response_status, response_body, locked_until, created_at, claim_token, resource)
            values (${ann}, ${key}, ${'h'.repeat(64)}, ${body === null ? 'in_progress' : 'done'}, ${body === null ? null : 201}, ${body}, ${AT}, ${AT}, ${`token-${key}`}, null)`.execute(
            db,
          );
        }
        const before = new Set((await keys(db)).map((k) => JSON.stringify(k)));

        assert.deepEqual(await migrate(handle, { until: '071_keys_and_times_bytewise' }), ['071_keys_and_times_bytewise']);
        const after = await keys(db);
        assert.deepEqual(new Set(after.map((k) => JSON.stringify(k))), before, 'every record as it was');
        assert.deepEqual(
          after.map(([, key]) => key),
          ['0190a8f0-1234-7abc-8def-0123456789ab', 'Order-B', 'order-a', 'order_a'],
          'keys in the order of their bytes',
        );
        await assert.rejects(
          sql`insert into idempotency_keys (user_id, key, request_hash, state, locked_until, created_at) values (${ann}, 'Order-B', ${'h'.repeat(64)}, 'in_progress', ${AT}, ${AT})`.execute(
            db,
          ),
          /unique|duplicate/i,
          'a user records a key once',
        );
        if (engine === 'postgres') {
          assert.equal(await collationOf(db, 'idempotency_keys', 'key'), 'C');
          assert.equal(await collationOf(db, 'donations', 'created_at'), 'C');
        }
      });
    });
  });
}
