// `almoner db copy`: a whole platform from SQLite to PostgreSQL, verified.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { openEnv, call, runCli, onFreshDatabase } from './harness.ts';
import { migrate } from '../src/db/migrate.ts';
import { TABLES_IN_ORDER } from '../src/db/copy.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { sequenceAll } from '../src/modules/ledger/index.ts';
import { formatCheck, runCheck } from '../src/modules/check/index.ts';

const base = process.env.TEST_DATABASE_URL;

describe('almoner db copy', { skip: base === undefined && 'TEST_DATABASE_URL is not set: no PostgreSQL to copy to' }, () => {
  test('moves every row, keeps keys working, lets new rows follow, and refuses a non-empty target', async () => {
    const source = await openEnv('sqlite');
    const seeded = await seedDemo(source.deps);
    const key = seeded.key as string;
    // A donation whose entries wait for their place (as SQLite's waiting names an entry written
    // around its writer): on PostgreSQL they wait by txid (migration 063), and take their places there.
    const listed = await call(source.app, 'GET', '/v1/donations?per_page=1', { key });
    const waited = await call(source.app, 'POST', '/v1/donations', { key, body: { amount: 11, ein: listed.body.items[0].non_profit.ein } });
    assert.equal(waited.status, 201, JSON.stringify(waited.body));
    const waiting = (await source.deps.db.selectFrom('journal_entries').select(['id', 'book', 'entry_hash']).where('donation_id', '=', waited.body.id).orderBy('id').execute()).map(
      (e) => ({ id: Number(e.id), book: e.book, entry_hash: e.entry_hash }),
    );
    assert.ok(waiting.length > 0);
    await source.deps.db
      .deleteFrom('ledger_places')
      .where(
        'entry_id',
        'in',
        waiting.map((e) => e.id),
      )
      .execute();
    await source.deps.db
      .insertInto('ledger_waiting')
      .values(waiting.map((e) => ({ book: e.book, entry_id: e.id, entry_hash: e.entry_hash })))
      .execute();
    const before = await call(source.app, 'GET', '/v1/donations?per_page=100', { key });
    const sourceUrl = source.platform.deps.config.databaseUrl;
    await source.app.close();
    await source.platform.close();

    const schema = `copy_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const url = new URL(base as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    try {
      const copied = await runCli(['db', 'copy', '--from', sourceUrl, '--to', url.toString()], sourceUrl);
      assert.equal(copied.code, 0, copied.stderr);
      assert.match(copied.stdout, /Copied and verified/);
      assert.doesNotMatch(copied.stdout, /MISMATCH/);

      const target = await openEnv('postgres', { databaseUrl: url.toString() });
      try {
        const after = await call(target.app, 'GET', '/v1/donations?per_page=100', { key });
        assert.equal(after.status, 200, 'the same key works on the copy');
        assert.deepEqual(after.body, before.body);
        // The copied entries wait for nothing but the ones that waited on SQLite, which wait first.
        const txids = await sql<{ id: string; txid: string | null }>`select id, txid::text as txid from journal_entries where txid is not null order by id`.execute(target.deps.db);
        assert.deepEqual(
          txids.rows.map((r) => [Number(r.id), r.txid]),
          waiting.map((e) => [e.id, '3']),
        );
        const book = waiting[0]!.book;
        const size = await sequenceAll(target.deps, book);
        const placed = await target.deps.db
          .selectFrom('ledger_places')
          .select(['entry_id', 'leaf'])
          .where('book', '=', book)
          .orderBy('leaf', 'desc')
          .limit(waiting.length)
          .execute();
        assert.deepEqual(
          placed.map((p) => Number(p.entry_id)).sort((a, b) => a - b),
          waiting.map((e) => e.id),
          'placed last, on the copy',
        );
        assert.equal(Number(placed[0]?.leaf), size - 1);
        const { ok, text } = formatCheck(await runCheck(target.deps));
        assert.ok(ok, text);
        const created = await call(target.app, 'POST', '/v1/donations', { key, body: { amount: 10, ein: before.body.items[0].non_profit.ein } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.ok(created.body.id > Math.max(...before.body.items.map((d: { id: number }) => d.id)), 'ids continue after the copied ones');
      } finally {
        await target.app.close();
        await target.platform.close();
      }
      const again = await runCli(['db', 'copy', '--from', sourceUrl, '--to', url.toString()], sourceUrl);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /copy only into an empty database/);
    } finally {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  });
});

describe('almoner db backup', () => {
  test('an online copy of a running SQLite platform is complete and sound', async () => {
    const env = await openEnv('sqlite');
    try {
      const seeded = await seedDemo(env.deps);
      const url = env.platform.deps.config.databaseUrl;
      const file = `${url.replace(/^sqlite:/, '')}.backup`;
      // The app keeps its connection open (and writes) while the backup runs in another process.
      const [backup] = await Promise.all([
        runCli(['db', 'backup', '--to', file], url),
        call(env.app, 'POST', '/v1/gifts', { key: seeded.key as string, body: { name: 'During the backup', amount: 18 } }),
      ]);
      assert.equal(backup.code, 0, backup.stderr);
      assert.match(backup.stdout, /Backed up .* pages/);
      const check = await runCli(['check'], `sqlite:${file}`);
      assert.equal(check.code, 0, check.stderr);
      const restored = await openEnv('sqlite', { databaseUrl: `sqlite:${file}` });
      try {
        assert.equal((await call(restored.app, 'GET', '/v1/users/me', { key: seeded.key as string })).body.slug, 'ada');
      } finally {
        await restored.app.close();
        await restored.platform.close();
      }
      const exists = await runCli(['db', 'backup', '--to', file], url);
      assert.equal(exists.code, 2);
      assert.match(exists.stderr, /exists: give a new file/);
    } finally {
      await env.close();
    }
  });
});

test('db copy knows every table the migrations make (a new table must be added to TABLES_IN_ORDER)', async () => {
  await onFreshDatabase('sqlite', async (handle) => {
    await migrate(handle);
    const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(handle.db)).rows.map((r) => r.name);
    const bookkeeping = ['schema_migrations', 'schema_breaks'];
    assert.deepEqual(tables.filter((t) => !bookkeeping.includes(t)).sort(), [...TABLES_IN_ORDER].sort());
  });
});
