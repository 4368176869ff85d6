// Every function of ledger.txid.store.ts (PostgreSQL's waiting by transaction id); on SQLite, that none applies.
import { test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import assert from 'node:assert/strict';
import { describeEachEngine, fund, makeUser, olderTransactionsEnded } from '../../../test/harness.ts';
import { dialectOf } from '../../db/dialect.ts';
import * as store from './ledger.log.store.ts';
import * as txids from './ledger.txid.store.ts';
import { sequenceAll } from './ledger.log.ts';

describeEachEngine('ledger txid store', (env) => {
  test('a database restored into a cluster whose transaction ids are behind its log: the sequencer renumbers the waiting and takes the new entries (PostgreSQL)', async () => {
    const { deps, engine } = { deps: env().deps, engine: env().engine };
    const { db } = deps;
    if (engine === 'sqlite') {
      assert.equal(await db.transaction().execute((trx) => txids.rebaseMovedLog(trx, 'live')), false, 'SQLite has no transaction ids to be behind');
      return;
    }
    const user = await makeUser(deps);
    await fund(deps, user, 10_00);
    await sequenceAll(deps, 'live');
    assert.equal(await store.anyWaiting(db, 'live'), false);
    // As pg_restore into a new cluster leaves it: the journal's txids far ahead of the cluster's own.
    await sql`update journal_entries set txid = (pg_current_xact_id()::text::bigint + 1000000000)::text::xid8 where book = 'live' and txid is not null`.execute(db);
    assert.equal((await txids.logCursor(db, 'live')).moved, true);
    await fund(deps, user, 20_00);
    const written = (await db.selectFrom('journal_entries').select('id').where('book', '=', 'live').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id;
    assert.deepEqual(await store.unloggedEntries(db, 'live'), [], 'written below the cursor, but not named lost before the rebase');
    assert.equal(await store.anyWaiting(db, 'live'), true, 'the sequencer is called to rebase');
    const size = await sequenceAll(deps, 'live');
    const last = await db.selectFrom('ledger_places').select(['entry_id', 'leaf']).where('book', '=', 'live').orderBy('leaf', 'desc').limit(1).executeTakeFirstOrThrow();
    assert.deepEqual([Number(last.entry_id), Number(last.leaf)], [Number(written), size - 1], 'the new entry took its place');
    assert.equal((await txids.logCursor(db, 'live')).moved, false);
    assert.deepEqual(await store.unloggedEntries(db, 'live'), []);
    await fund(deps, user, 30_00);
    await olderTransactionsEnded(db);
    assert.equal(await store.anyWaiting(db, 'live'), true, 'and the next one waits by its own txid');
    assert.ok((await sequenceAll(deps, 'live')) > size);
  });

  test('nextTxid is above every committed entry; anyHeldBack names an entry committed below it and not yet placed, until it is (PostgreSQL)', async () => {
    const { deps, engine } = { deps: env().deps, engine: env().engine };
    const { db } = deps;
    if (engine === 'sqlite') {
      assert.equal(await txids.nextTxid(db), undefined, 'SQLite waits behind no transaction');
      return;
    }
    const user = await makeUser(deps);
    await fund(deps, user, 10_00);
    await sequenceAll(deps, 'live');
    const before = (await txids.nextTxid(db)) as string;
    assert.equal(await txids.anyHeldBack(db, 'live', before), false, 'all placed');
    await fund(deps, user, 20_00);
    assert.equal(await txids.anyHeldBack(db, 'live', before), false, 'committed after the mark: not its business');
    const after = (await txids.nextTxid(db)) as string;
    assert.ok(BigInt(after) > BigInt(before));
    assert.equal(await txids.anyHeldBack(db, 'live', after), true, 'committed before the mark, not yet placed');
    await sequenceAll(deps, 'live');
    assert.equal(await txids.anyHeldBack(db, 'live', after), false);
    const cursor = await txids.logCursor(db, 'live');
    assert.deepEqual(await txids.aboveCursor(db, 'live', cursor, 10, false), []);
  });
});

describeEachEngine('ledger txid store, after many entries placed at once', (env) => {
  test('the waiting are read by an index: SQLite by the key of the waiting, PostgreSQL from the last place on by the txid index, with 20,000 placed below it', async () => {
    const { db } = env().deps;
    if (dialectOf(db).engine === 'sqlite') return;
    // 20,000 entries waiting (each with the txid of its writer, the column's default), all of them placed at once.
    await sql`insert into journal_entries (memo, donation_id, created_at, book, entry_hash)
      select 'bulk', g, '2026-01-01T00:00:00Z', 'live', md5(g::text) || md5(g::text) from generate_series(1, 20000) g`.execute(db);
    // Takeable once no older transaction runs anywhere in the cluster (another test file's may, for a moment).
    await olderTransactionsEnded(db);
    assert.equal((await store.unsequencedHashes(db, 'live', 30_000)).length, 20_000);
    await sql`insert into ledger_places (book, leaf, entry_id, chain_hash)
      select 'live', row_number() over (order by txid, id) - 1, id, 'c' from journal_entries where book = 'live'`.execute(db);
    await store.vacuumLog(db);
    assert.equal(await store.anyWaiting(db, 'live'), false);
    const cursor = await txids.logCursor(db, 'live');
    assert.notEqual(cursor.id, 0, 'the log stands at its last entry');
    const query = txids.aboveCursorQuery('live', cursor, 1000);
    const plan = (await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, costs off) ${query.sql}`, [...query.parameters]))).rows.map(
      (r) => r['QUERY PLAN'],
    );
    assert.match(plan.join('\n'), /Index Scan (using|on) journal_entries_txid/);
    assert.match(plan.join('\n'), /Index Cond: .*ROW\(txid, id\) >/, 'bounded by the cursor, not filtered after reading the placed');
    assert.doesNotMatch(plan.join('\n'), /Rows Removed by Filter: [1-9]/);
  });
});
