// A migration under write load (a rolling upgrade beside older nodes) on
// PostgreSQL: it waits briefly for a table's lock, gives up, and is tried again
// with backoff, so the requests queued behind its ALTER wait at most that long
// (they waited for the whole blocking transaction before, and a deadlock could
// stop the node or fail a donor's request); a migration that never gets its
// lock fails naming itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { lockWaiters, onFreshDatabase, until } from './harness.ts';
import { openDatabase } from '../src/db/database.ts';
import { sql } from 'kysely';
import { migrate, migrationLockTimeoutMs, MIGRATION_LOCK_TIMEOUT_MS } from '../src/db/migrate.ts';

const pgUrl = process.env.TEST_DATABASE_URL;

describe('migrations and table locks', { skip: pgUrl === undefined && 'TEST_DATABASE_URL is not set: PostgreSQL is skipped' }, () => {
  test('a migration blocked by a writer gives way within its lock timeout, is tried again, and applies once the writer is done', async () => {
    await onFreshDatabase('postgres', async (handle, databaseUrl) => {
      const writer = new pg.Client({ connectionString: databaseUrl });
      const reader = new pg.Client({ connectionString: databaseUrl });
      try {
        await migrate(handle, { until: '025_postings_books_per_statement' });
        await writer.connect();
        await reader.connect();
        // An older node's transaction writing donations, as under load: 026 must add a column to donations.
        await writer.query('begin');
        await writer.query('lock table donations in row exclusive mode');
        const retries: string[] = [];
        const migrating = migrate(handle, { until: '026_app_spending', lockTimeoutMs: 300, retrying: (migration) => void retries.push(migration) });
        await until('the migration to wait for its lock', async () => (await lockWaiters(handle.db)) > 0);
        // A request on the hot path meanwhile: it must not queue behind the waiting ALTER for long.
        const started = Date.now();
        await reader.query('select count(*) from donations');
        const waited = Date.now() - started;
        assert.ok(waited < 1_500, `a read of donations waited ${waited} ms behind the migration`);
        // Until the migration has given way at least once; then the writer commits.
        for (let i = 0; i < 200 && retries.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
        await writer.query('commit');
        assert.deepEqual(await migrating, ['026_app_spending']);
        assert.ok(retries.length >= 1 && retries.every((m) => m === '026_app_spending'), `tried again: ${retries.join(', ')}`);
      } finally {
        await writer.end().catch(() => {});
        await reader.end().catch(() => {});
      }
    });
  });

  test('a migration that never gets its lock fails naming itself, and applies nothing', async () => {
    await onFreshDatabase('postgres', async (handle, databaseUrl) => {
      const writer = new pg.Client({ connectionString: databaseUrl });
      try {
        await migrate(handle, { until: '025_postings_books_per_statement' });
        await writer.connect();
        await writer.query('begin');
        await writer.query('lock table donations in row exclusive mode');
        await assert.rejects(migrate(handle, { until: '026_app_spending', lockTimeoutMs: 200, attempts: 2 }), /^Error: migration 026_app_spending failed: .*lock timeout/);
        await writer.query('commit');
        const applied = await handle.db
          .selectFrom('schema_migrations' as never)
          .select('name' as never)
          .execute();
        assert.ok(!(applied as Array<{ name: string }>).some((r) => r.name === '026_app_spending'), 'nothing of it was applied');
      } finally {
        await writer.end().catch(() => {});
      }
    });
  });

  test("a migration's lock timeout is under half of the server's deadlock_timeout: in any cycle with a writer, the migration yields first", async () => {
    const handle = openDatabase({ url: pgUrl as string });
    try {
      const deadlock = Number((await sql<{ ms: number }>`select setting::int as ms from pg_settings where name = 'deadlock_timeout'`.execute(handle.db)).rows[0]?.ms);
      assert.ok(deadlock > 0);
      assert.equal(await migrationLockTimeoutMs(handle.db, MIGRATION_LOCK_TIMEOUT_MS), Math.min(MIGRATION_LOCK_TIMEOUT_MS, deadlock / 2));
      assert.ok((await migrationLockTimeoutMs(handle.db, MIGRATION_LOCK_TIMEOUT_MS)) < deadlock);
      assert.equal(await migrationLockTimeoutMs(handle.db, 50), 50, 'a shorter wish is kept');
    } finally {
      await handle.close();
    }
  });
});
