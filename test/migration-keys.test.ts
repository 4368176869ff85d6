// Migration 065 on records of Idempotency-Keys as a platform that ran before it holds them: every
// record kept as it was, the pair (user, key) still unique (the same key free to another user),
// and the records' index led by the key, so that keys made in time order land together (ADR 34).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, onFreshDatabase } from './harness.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Db } from '../src/db/database.ts';

const AT = '2026-11-01T00:00:00.000Z';
const COLUMNS = 'user_id, key, request_hash, state, response_status, response_body, locked_until, created_at, claim_token, resource';

async function user(db: Db, slug: string): Promise<number> {
  const made = await sql<{ id: number }>`insert into users (name, slug, created_at) values (${slug}, ${slug}, ${AT}) returning id`.execute(db);
  return Number(made.rows[0]?.id);
}

async function record(db: Db, userId: number, key: string, body: string | null): Promise<void> {
  const state = body === null ? 'in_progress' : 'done';
  await sql`insert into idempotency_keys (user_id, key, request_hash, state, response_status, response_body, locked_until, created_at, claim_token, resource)
    values (${userId}, ${key}, ${'h'.repeat(64)}, ${state}, ${body === null ? null : 201}, ${body}, ${AT}, ${AT}, ${`token-${key}`}, ${body === null ? null : 'donation:7'})`.execute(
    db,
  );
}

async function records(db: Db): Promise<unknown[][]> {
  const rows = await sql<Record<string, unknown>>`select ${sql.raw(COLUMNS)} from idempotency_keys order by user_id, key`.execute(db);
  return rows.rows.map((r) => COLUMNS.split(', ').map((c) => ((c === 'user_id' || c === 'response_status') && r[c] !== null ? Number(r[c]) : r[c])));
}

/** The columns of the primary key's index, in its order. */
async function primaryKeyColumns(db: Db, engine: string): Promise<string[]> {
  if (engine === 'sqlite') {
    const index = await sql<{ name: string; origin: string }>`select name, origin from pragma_index_list('idempotency_keys')`.execute(db);
    const pk = index.rows.find((r) => r.origin === 'pk');
    assert.ok(pk !== undefined, 'a primary key index');
    const columns = await sql<{ name: string }>`select name from pragma_index_info(${pk.name}) order by seqno`.execute(db);
    return columns.rows.map((r) => r.name);
  }
  const columns = await sql<{ attname: string }>`select a.attname from pg_index i
      cross join lateral unnest(i.indkey) with ordinality as k(attnum, n)
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
      where i.indrelid = 'idempotency_keys'::regclass and i.indisprimary order by k.n`.execute(db);
  return columns.rows.map((r) => r.attname);
}

for (const { name: engine } of engines()) {
  describe(`migration 065 (keys' records led by the key) on ${engine}`, () => {
    test('keeps every record, keeps (user, key) unique, and leads the index with the key', async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle, { until: '064_donation_revisions' });
        assert.deepEqual(await primaryKeyColumns(db, engine), ['user_id', 'key'], 'the index as it was');
        const ann = await user(db, 'ann');
        const bob = await user(db, 'bob');
        await record(db, ann, 'k-1', '{"id":7}');
        await record(db, ann, 'k-2', null);
        await record(db, bob, 'k-1', '{"id":8}');
        const before = await records(db);
        assert.equal(before.length, 3);

        assert.deepEqual(await migrate(handle, { until: '065_keys_led_by_key' }), ['065_keys_led_by_key']);
        assert.deepEqual(await records(db), before, 'every record and every column as it was');
        assert.deepEqual(await primaryKeyColumns(db, engine), ['key', 'user_id']);
        await assert.rejects(record(db, ann, 'k-1', '{"id":9}'), /unique|duplicate/i, 'a user records a key once');
        const cy = await user(db, 'cy');
        await record(db, cy, 'k-1', '{"id":10}');
        await sql`delete from idempotency_keys where user_id in (${ann})`.execute(db);
        assert.deepEqual(
          (await records(db)).map((r) => [r[0], r[1]]),
          [
            [bob, 'k-1'],
            [cy, 'k-1'],
          ],
          "a user's records found without the user leading the index (erasure's statement)",
        );
      });
    });
  });
}
