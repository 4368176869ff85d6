// The ledger's use case outside a money movement, on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, engines, freshDatabase } from '../../../test/harness.ts';
import { openDatabase } from '../../db/database.ts';
import { openBooks } from './ledger.service.ts';
import * as store from './ledger.store.ts';

describeEachEngine('ledger service', (env) => {
  test('openBooks is idempotent: one deposits and one grants_paid account per book', async () => {
    const { db } = env().deps;
    await openBooks(db);
    await openBooks(db);
    const rows = await db.selectFrom('ledger_accounts').select(['kind', 'book']).where('fund_id', 'is', null).orderBy('book').orderBy('kind').execute();
    assert.deepEqual(
      rows.map((r) => `${r.book}:${r.kind}`),
      ['live:deposits', 'live:grants_paid', 'test:deposits', 'test:grants_paid'],
    );
    assert.notEqual(await store.outsideAccountId(db, 'deposits', 'live'), await store.outsideAccountId(db, 'deposits', 'test'));
  });
});

// PostgreSQL, where nodes share a database. On SQLite every write transaction is BEGIN IMMEDIATE,
// one at a time across processes; handles in one process would wait for each other synchronously.
for (const { name: engine } of engines().filter((e) => e.name === 'postgres')) {
  test(`${engine}: openBooks run by nodes starting at once makes each account once`, async () => {
    const { databaseUrl, cleanup } = await freshDatabase(engine, { migrated: true });
    const nodes = [openDatabase({ url: databaseUrl, poolMax: 2 }), openDatabase({ url: databaseUrl, poolMax: 2 }), openDatabase({ url: databaseUrl, poolMax: 2 })];
    try {
      await Promise.all(nodes.map((n) => openBooks(n.db)));
      const rows = await nodes[0]!.db.selectFrom('ledger_accounts').select(['kind', 'book']).where('fund_id', 'is', null).orderBy('book').orderBy('kind').execute();
      assert.deepEqual(
        rows.map((r) => `${r.book}:${r.kind}`),
        ['live:deposits', 'live:grants_paid', 'test:deposits', 'test:grants_paid'],
      );
    } finally {
      for (const n of nodes) await n.close();
      await cleanup();
    }
  });
}
