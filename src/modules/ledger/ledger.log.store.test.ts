// Every function of ledger.log.store.ts on both engines.
import { test } from 'node:test';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import assert from 'node:assert/strict';
import { describeEachEngine, fund, makeUser, olderTransactionsEnded, queryPlan, whileHeld } from '../../../test/harness.ts';
import { dialectOf } from '../../db/dialect.ts';
import * as store from './ledger.log.store.ts';
import { entryHash } from './ledger.encoding.ts';
import { sequenceAll } from './ledger.log.ts';

describeEachEngine('ledger log store', (env) => {
  test("entriesOfCauseQuery: a donation's or a contribution's entries are found by their cause's index, not by reading the journal", async () => {
    const { db } = env().deps;
    for (const [cause, index] of [
      [{ donation_id: 7 }, 'journal_entries_donation'],
      [{ contribution_id: 7 }, 'journal_entries_contribution'],
    ] as const) {
      const plan = await queryPlan(db, store.entriesOfCauseQuery(db, 'live', cause).compile());
      assert.ok(
        plan.some((line) => line.includes(index)),
        plan.join('\n'),
      );
    }
  });

  test('unsequencedEntries in id order with their postings; setPlaces takes each once; lastSequenced, sequencedEntries, leafHashes read the log', async () => {
    const { db, engine } = { db: env().deps.db, engine: env().engine };
    const user = await makeUser(env().deps);
    await fund(env().deps, user, 12_00);
    await fund(env().deps, user, 34_00);
    await fund(env().deps, user, 56_00);
    // Entries the log has yet to take, as PostgreSQL's writers (and SQLite's before they placed them)
    // leave them: on PostgreSQL every entry with a txid above the last place waits (migration 063).
    await db.deleteFrom('ledger_places').execute();
    await db.deleteFrom('ledger_waiting').execute();
    if (engine === 'sqlite')
      await db
        .insertInto('ledger_waiting')
        .columns(['book', 'entry_id'])
        .expression(db.selectFrom('journal_entries').select(['book', 'id']))
        .execute();
    const waiting = await store.unsequencedEntries(db, 'live', 10);
    assert.ok(waiting.length >= 3);
    assert.deepEqual(
      waiting.map((e) => e.id),
      [...waiting.map((e) => e.id)].sort((a, b) => a - b),
    );
    for (const e of waiting) {
      assert.equal(e.entry_hash, entryHash(e), 'the hash written with the entry is its content\u2019s');
      assert.equal(
        e.postings.reduce((n, p) => n + p.amount_cents, 0),
        0,
      );
    }
    // unsequencedHashes: the stored hashes; the content only of an entry without one (written before 054).
    await db.updateTable('journal_entries').set({ entry_hash: null }).where('id', '=', waiting[0]!.id).execute();
    await olderTransactionsEnded(db);
    const light = await store.unsequencedHashes(db, 'live', 10);
    assert.deepEqual(
      light.map((e) => [e.id, e.entry_hash, e.entry?.id]),
      waiting.map((e, i) => [e.id, i === 0 ? null : e.entry_hash, i === 0 ? e.id : undefined]),
    );
    assert.deepEqual(light[0]!.entry?.postings, waiting[0]!.postings);
    assert.equal(await store.anyWaiting(db, 'live'), true);
    assert.equal(await store.anyWaiting(db, 'test'), false, 'the other book waits for nothing');
    if (engine === 'sqlite') {
      // SQLite reads the waiting from the sequencer's floor on; anyWaiting, one probe, too.
      assert.deepEqual(
        (await store.unsequencedHashes(db, 'live', 10, waiting[1]!.id)).map((e) => e.id),
        waiting.slice(1).map((e) => e.id),
        'from the floor on',
      );
      assert.equal(await store.anyWaiting(db, 'live', waiting.at(-1)!.id), true);
      assert.equal(await store.anyWaiting(db, 'live', waiting.at(-1)!.id + 1), false, 'none beyond the last');
      // An entry waiting with its hash (the journal's trigger copies it, 061) is taken with that hash, its row not read.
      const copied = 'f'.repeat(64);
      await db.updateTable('ledger_waiting').set({ entry_hash: copied }).where('entry_id', '=', waiting[1]!.id).execute();
      assert.deepEqual(
        (await store.unsequencedHashes(db, 'live', 2)).map((e) => [e.id, e.entry_hash]),
        [
          [waiting[0]!.id, null],
          [waiting[1]!.id, copied],
        ],
      );
      await db.updateTable('ledger_waiting').set({ entry_hash: null }).where('entry_id', '=', waiting[1]!.id).execute();
    } else {
      // PostgreSQL has no floor: the book's last place is where the log stands.
      assert.deepEqual(
        (await store.unsequencedHashes(db, 'live', 10, waiting.at(-1)!.id + 1)).map((e) => e.id),
        waiting.map((e) => e.id),
        'the floor is not read',
      );
    }
    assert.equal(await store.lastSequenced(db, 'live'), undefined);
    const places = waiting.map((e, i) => ({ id: e.id, log_seq: i, chain_hash: `c${i}`, entry_hash: e.entry_hash as string }));
    await db.transaction().execute(async (trx) => {
      await store.lockLog(trx, 'live');
      await store.setPlaces(trx, 'live', places);
    });
    await assert.rejects(
      db.transaction().execute((trx) => store.setPlaces(trx, 'live', places.slice(0, 1))),
      /taken by the log already|ledger_places_pkey/,
    );
    assert.deepEqual(await store.lastSequenced(db, 'live'), { log_seq: places.length - 1, chain_hash: `c${places.length - 1}` });
    assert.deepEqual(await store.unsequencedEntries(db, 'live', 10), []);
    assert.equal(await store.anyWaiting(db, 'live'), false, 'all placed');
    assert.deepEqual(await store.unloggedEntries(db, 'live'), [], 'every entry is placed or waiting');
    await db.deleteFrom('ledger_places').where('entry_id', '=', places[1]!.id).execute();
    assert.deepEqual(await store.unloggedEntries(db, 'live'), [places[1]!.id], 'neither placed nor waiting');
    assert.equal(await store.anyWaiting(db, 'live'), false, 'passed by the log: not taken again');
    await db.insertInto('ledger_places').values({ book: 'live', leaf: 1, entry_id: places[1]!.id, chain_hash: 'c1' }).execute();
    assert.deepEqual(
      (await store.sequencedEntries(db, 'live', 1, 1)).map((e) => [e.id, e.log_seq]),
      [[places[1]!.id, 1]],
    );
    assert.deepEqual(await store.leafHashes(db, 'live', 2), [places[0]!.entry_hash, places[1]!.entry_hash]);
    assert.deepEqual(await store.leafHashes(db, 'live', 2, 1), [places[1]!.entry_hash]);
    assert.deepEqual(await store.entriesOfCause(db, 'live', { donation_id: 999_999 }), []);
    assert.deepEqual(await store.entriesOfCause(db, 'live', { contribution_id: 999_999 }), []);
    if (engine === 'postgres') {
      // An entry without a txid (written around the column's default) waits for nothing: named unlogged.
      const [row] = (
        await sql<{ id: string }>`insert into journal_entries (memo, created_at, book, txid) values ('around', '2026-12-01T00:00:00Z', 'live', null) returning id`.execute(db)
      ).rows;
      assert.deepEqual(await store.unloggedEntries(db, 'live'), [Number(row!.id)]);
      assert.equal(await store.anyWaiting(db, 'live'), false);
      await sql`delete from journal_entries where id = ${row!.id}`.execute(db);
    }
  });

  test('an entry waits while any transaction older than its own may still commit (PostgreSQL), then all are taken in the order of their transactions', async () => {
    const { db, engine } = { db: env().deps.db, engine: env().engine };
    const write = (q: Kysely<any>, memo: string) =>
      sql<{
        id: string;
      }>`insert into journal_entries (memo, created_at, book, entry_hash) values (${memo}, '2026-12-01T00:00:00Z', 'test', ${'e'.repeat(64)}) returning id`.execute(q);
    const waitingIds = async () => (await store.unsequencedHashes(db, 'test', 10)).map((e) => e.id);
    if (engine === 'sqlite') {
      // One transaction writes at a time: an entry written around its writer waits by its id, takeable at once.
      const id = Number((await write(db, 'alone')).rows[0]!.id);
      assert.deepEqual(await waitingIds(), [id]);
      await db.deleteFrom('journal_entries').where('id', '=', id).execute();
      await db.deleteFrom('ledger_waiting').where('entry_id', '=', id).execute();
      return;
    }
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let began = () => {};
    const begun = new Promise<void>((resolve) => (began = resolve));
    let olderId = 0;
    // The older transaction takes its id first (its first write), then writes its entry, and commits last.
    const older = db.transaction().execute(async (trx) => {
      await sql`select pg_current_xact_id()`.execute(trx);
      began();
      await held;
      olderId = Number((await write(trx, 'older')).rows[0]!.id);
    });
    await begun;
    const newerId = Number((await write(db, 'newer')).rows[0]!.id);
    assert.deepEqual(await waitingIds(), [], 'the newer entry waits while the older transaction runs');
    assert.equal(await store.anyWaiting(db, 'test'), false);
    assert.deepEqual(
      (await store.unsequencedEntries(db, 'test', 10)).map((e) => e.id),
      [newerId],
      'shown to the check as not yet in the log',
    );
    release();
    await older;
    await olderTransactionsEnded(db);
    assert.ok(olderId > newerId, 'the older transaction wrote the later id');
    assert.deepEqual(await waitingIds(), [olderId, newerId], 'in the order of the transactions, not of the ids');
    assert.equal(await store.anyWaiting(db, 'test'), true);
    // An unbounded run (the CLI's) takes every entry committed before it: it waits for the older transaction.
    const size = await sequenceAll(env().deps, 'test');
    let hold = () => {};
    const holding = new Promise<void>((resolve) => (hold = resolve));
    let started = () => {};
    const holds = new Promise<void>((resolve) => (started = resolve));
    const blocker = db.transaction().execute(async (trx) => {
      await sql`select pg_current_xact_id()`.execute(trx);
      started();
      await holding;
    });
    await holds;
    const late = Number((await write(db, 'behind')).rows[0]!.id);
    let done = false;
    const run = sequenceAll(env().deps, 'test').then((n) => {
      done = true;
      return n;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(done, false, 'the run waits while the older transaction runs');
    hold();
    await blocker;
    assert.equal(await run, size + 1);
    const [place] = await db.selectFrom('ledger_places').select('entry_id').where('book', '=', 'test').orderBy('leaf', 'desc').limit(1).execute();
    assert.equal(Number(place?.entry_id), late);
  });

  test('lockLog makes two sequencers of one book wait for each other (PostgreSQL; SQLite writes one transaction at a time)', async () => {
    const { db, engine } = { db: env().deps.db, engine: env().engine };
    if (engine === 'sqlite') {
      assert.equal(await db.transaction().execute((trx) => store.lockLog(trx, 'test')), undefined);
      return;
    }
    const { waited } = await whileHeld(
      db,
      (trx) => store.lockLog(trx, 'test'),
      () => db.transaction().execute((trx) => store.lockLog(trx, 'test')),
    );
    assert.equal(waited, true);
  });

  test('commitWithoutWaiting: on PostgreSQL its transaction alone commits without waiting for the WAL; durableSoFar waits until it is flushed', async () => {
    const { db, engine } = { db: env().deps.db, engine: env().engine };
    const setting = async (q: Kysely<any>) => (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(q)).rows[0]?.synchronous_commit;
    if (engine === 'sqlite') {
      assert.equal(await db.transaction().execute((trx) => store.commitWithoutWaiting(trx)), undefined);
      assert.equal(await store.durableSoFar(db), undefined);
      return;
    }
    const inside = await db.transaction().execute(async (trx) => {
      await store.commitWithoutWaiting(trx);
      await sql`select pg_advisory_xact_lock(61)`.execute(trx);
      return setting(trx);
    });
    assert.equal(inside, 'off');
    assert.equal(await db.transaction().execute((trx) => setting(trx)), 'on', 'the next transaction on any connection waits again');
    // A commit not waited for, then the barrier: the WAL is flushed past the barrier's start.
    await sql`create table durable_probe (n int)`.execute(db);
    await db.transaction().execute(async (trx) => {
      await store.commitWithoutWaiting(trx);
      await sql`insert into durable_probe (n) select g from generate_series(1, 1000) g`.execute(trx);
    });
    const before = (await sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db)).rows[0]?.lsn;
    await store.durableSoFar(db, 1);
    const flushed = await sql<{ ok: boolean }>`select pg_current_wal_flush_lsn() >= ${before}::pg_lsn as ok`.execute(db);
    assert.equal(flushed.rows[0]?.ok, true);
    await sql`drop table durable_probe`.execute(db);
  });
});

describeEachEngine('ledger log store, the waiting read by its key', (env) => {
  test('SQLite reads the waiting by the key of the waiting (PostgreSQL by the journal txid index: ledger.txid.store.test.ts); vacuumLog runs on both', async () => {
    const { db } = env().deps;
    if (dialectOf(db).engine === 'sqlite') assert.match((await unsequencedPlan(db)()).join('\n'), /ledger_waiting_pk|sqlite_autoindex_ledger_waiting/);
    await store.vacuumLog(db);
    assert.equal(await store.anyWaiting(db, 'live'), false);
  });
});

/** The plan of the sequencer's look from the start for the live book's unplaced entries (sequential scans allowed). */
function unsequencedPlan(db: Parameters<typeof store.unsequencedQuery>[0]) {
  return async (): Promise<string[]> => {
    const query = store.unsequencedQuery(db, 'live', 1000).compile();
    if (dialectOf(db).engine === 'sqlite') return queryPlan(db, query);
    const rows = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
    return rows.rows.map((r) => r['QUERY PLAN']);
  };
}
