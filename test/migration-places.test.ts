// Migration 060 on a journal of the old shape, as a platform that ran before it holds one: entries
// placed in their book's log (their leaf index and chain hash on their own rows) and entries still
// waiting, in both books. After it: each place is a row of ledger_places, each waiting entry a row
// of ledger_waiting, the journal's rows carry neither, and an entry inserted by anything that does
// not know of places (a node of the release before, during a rolling upgrade) waits for its place.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, olderTransactionsEnded, onFreshDatabase } from './harness.ts';
import { migrate } from '../src/db/migrate.ts';
import * as logStore from '../src/modules/ledger/ledger.log.store.ts';
import type { Db } from '../src/db/database.ts';

const AT = '2026-11-01T00:00:00.000Z';

for (const { name: engine } of engines()) {
  describe(`migration 060 (places of their own) on ${engine}`, () => {
    test('moves every place and every waiting entry out of the journal; a journal row written without a place then waits', async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle, { until: '059_entry_keys_once' });
        const entry = async (book: string, seq: number | null, chain: string | null) =>
          Number(
            (
              await sql<{ id: number }>`insert into journal_entries (memo, created_at, book, entry_hash, log_seq, chain_hash)
                values ('old', ${AT}, ${book}, ${'e'.repeat(64)}, ${seq}, ${chain}) returning id`.execute(db)
            ).rows[0]?.id,
          );
        const first = await entry('live', 0, 'c0');
        const second = await entry('live', 1, 'c1');
        const waiting = await entry('live', null, null);
        const sandbox = await entry('test', null, null);
        const sandboxPlaced = await entry('test', 0, 't0');
        assert.deepEqual(await migrate(handle, { until: '060_ledger_places' }), ['060_ledger_places']);
        const places = await sql<Record<string, unknown>>`select book, leaf, entry_id, chain_hash from ledger_places order by book, leaf`.execute(db);
        assert.deepEqual(
          places.rows.map((r) => [r.book, Number(r.leaf), Number(r.entry_id), r.chain_hash]),
          [
            ['live', 0, first, 'c0'],
            ['live', 1, second, 'c1'],
            ['test', 0, sandboxPlaced, 't0'],
          ],
        );
        const listWaiting = async () =>
          (await sql<Record<string, unknown>>`select book, entry_id from ledger_waiting order by entry_id`.execute(db)).rows.map((r) => [r.book, Number(r.entry_id)]);
        assert.deepEqual(await listWaiting(), [
          ['live', waiting],
          ['test', sandbox],
        ]);
        await assert.rejects(sql`select log_seq from journal_entries`.execute(db), /log_seq/, 'the journal no longer carries places');
        await assert.rejects(sql`select chain_hash from journal_entries`.execute(db), /chain_hash/);
        // Written as the release before writes an entry: its row alone, one statement for two.
        await sql`insert into journal_entries (memo, created_at, book) values ('new', ${AT}, 'live'), ('new', ${AT}, 'test')`.execute(db);
        const added = await sql<{ id: number }>`select id from journal_entries where memo = 'new' order by id`.execute(db);
        assert.deepEqual(await listWaiting(), [
          ['live', waiting],
          ['test', sandbox],
          ['live', Number(added.rows[0]?.id)],
          ['test', Number(added.rows[1]?.id)],
        ]);
        // SQLite's writer places an entry as it writes it: a place made first keeps it from waiting.
        if (engine === 'sqlite') {
          await sql`insert into ledger_places (book, leaf, entry_id, chain_hash) values ('live', 2, 1000, 'c2')`.execute(db);
          await sql`insert into journal_entries (id, memo, created_at, book) values (1000, 'placed', ${AT}, 'live')`.execute(db);
          assert.equal((await listWaiting()).length, 4, 'the entry placed before it was written does not wait');
          // A place given after the entry was written takes it from the waiting.
          await sql`insert into ledger_places (book, leaf, entry_id, chain_hash) values ('live', 3, ${waiting}, 'c3')`.execute(db);
          assert.deepEqual((await listWaiting()).slice(0, 1), [['test', sandbox]]);
        }
      });
    });
  });

  describe(`migration 061 (the waiting with their hashes) on ${engine}`, () => {
    test('copies the hash of each waiting entry, and the trigger names a new entry with the hash written with it', async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle, { until: '060_ledger_places' });
        const insert = async (memo: string, hash: string | null) =>
          Number((await sql<{ id: number }>`insert into journal_entries (memo, created_at, entry_hash) values (${memo}, ${AT}, ${hash}) returning id`.execute(db)).rows[0]?.id);
        const hashed = await insert('hashed', 'a'.repeat(64));
        const unhashed = await insert('before 054', null);
        const listWaiting = async () =>
          (await sql<Record<string, unknown>>`select entry_id, entry_hash from ledger_waiting order by entry_id`.execute(db)).rows.map((r) => [Number(r.entry_id), r.entry_hash]);
        assert.deepEqual(await migrate(handle, { until: '061_waiting_hashes' }), ['061_waiting_hashes']);
        assert.deepEqual(await listWaiting(), [
          [hashed, 'a'.repeat(64)],
          [unhashed, null],
        ]);
        // Two in one statement, as the batched writer inserts them.
        await sql`insert into journal_entries (memo, created_at, entry_hash) values ('new', ${AT}, ${'b'.repeat(64)}), ('new', ${AT}, ${'c'.repeat(64)})`.execute(db);
        assert.deepEqual(
          (await listWaiting()).slice(2).map(([, h]) => h),
          ['b'.repeat(64), 'c'.repeat(64)],
        );
      });
    });
  });

  describe(`migration 062 (places written first) on ${engine}`, () => {
    test('takes from the waiting any entry already placed; on SQLite a place no longer takes its entry from the waiting', async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle, { until: '061_waiting_hashes' });
        const insert = async (memo: string) =>
          Number(
            (await sql<{ id: number }>`insert into journal_entries (memo, created_at, entry_hash) values (${memo}, ${AT}, ${'a'.repeat(64)}) returning id`.execute(db)).rows[0]?.id,
          );
        const waiting = await insert('waiting');
        const both = await insert('placed and waiting');
        await sql`insert into ledger_places (book, leaf, entry_id, chain_hash) values ('live', 0, ${both}, 'c0')`.execute(db);
        // Named again, as no writer should leave it: the migration takes it out.
        await sql`insert into ledger_waiting (book, entry_id, entry_hash) select 'live', ${both}, ${'a'.repeat(64)} where not exists (select 1 from ledger_waiting where entry_id = ${both})`.execute(
          db,
        );
        const listWaiting = async () => (await sql<{ entry_id: number }>`select entry_id from ledger_waiting order by entry_id`.execute(db)).rows.map((r) => Number(r.entry_id));
        assert.deepEqual(await listWaiting(), [waiting, both]);
        assert.deepEqual(await migrate(handle, { until: '062_places_written_first' }), ['062_places_written_first']);
        assert.deepEqual(await listWaiting(), [waiting]);
        if (engine === 'sqlite') {
          const triggers = await sql<{ name: string }>`select name from sqlite_master where type = 'trigger' order by name`.execute(db);
          assert.deepEqual(
            triggers.rows.map((r) => r.name),
            ['journal_entries_wait'],
          );
        }
        // Only the sequencer takes an entry from the waiting (setPlaces), as it places it.
        await sql`insert into ledger_places (book, leaf, entry_id, chain_hash) values ('live', 1, ${waiting}, 'c1')`.execute(db);
        assert.deepEqual(await listWaiting(), [waiting]);
      });
    });
  });
  describe(`migration 063 (the log by transaction id) on ${engine}`, () => {
    test('PostgreSQL: the waiting entries keep their turn first, the placed ones wait for nothing, a new entry waits by its txid and no longer in ledger_waiting; SQLite unchanged', async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle, { until: '062_places_written_first' });
        const insert = async (memo: string, hash: string | null) =>
          Number((await sql<{ id: number }>`insert into journal_entries (memo, created_at, entry_hash) values (${memo}, ${AT}, ${hash}) returning id`.execute(db)).rows[0]?.id);
        const placed = await insert('placed', 'a'.repeat(64));
        await sql`insert into ledger_places (book, leaf, entry_id, chain_hash) values ('live', 0, ${placed}, 'c0')`.execute(db);
        await sql`delete from ledger_waiting where entry_id = ${placed}`.execute(db);
        const waiting = await insert('waiting', 'b'.repeat(64));
        const unhashed = await insert('before 054', null);
        assert.deepEqual(await migrate(handle, { until: '063_log_by_transaction' }), ['063_log_by_transaction']);
        const inWaitingTable = async () => (await sql<{ entry_id: number }>`select entry_id from ledger_waiting order by entry_id`.execute(db)).rows.map((r) => Number(r.entry_id));
        const after = await insert('after', 'c'.repeat(64));
        await olderTransactionsEnded(db);
        const taken = (await logStore.unsequencedHashes(db as Db, 'live', 10)).map((e) => [e.id, e.entry_hash]);
        assert.deepEqual(taken, [
          [waiting, 'b'.repeat(64)],
          [unhashed, null],
          [after, 'c'.repeat(64)],
        ]);
        assert.deepEqual(await logStore.unloggedEntries(db as Db, 'live'), []);
        if (engine === 'sqlite') {
          assert.deepEqual(await inWaitingTable(), [waiting, unhashed, after], 'SQLite still names them in the waiting');
          return;
        }
        assert.deepEqual(await inWaitingTable(), [], 'PostgreSQL names none there');
        const txids = await sql<{ id: number; txid: string | null }>`select id, txid::text as txid from journal_entries order by id`.execute(db);
        const byId = new Map(txids.rows.map((r) => [Number(r.id), r.txid]));
        assert.equal(byId.get(placed), null, 'placed before: no txid');
        assert.equal(byId.get(waiting), '3');
        assert.equal(byId.get(unhashed), '3');
        assert.ok(BigInt(byId.get(after) as string) > 3n, 'written after: its transaction id');
        const triggers = await sql<{ n: number }>`select count(*) as n from pg_trigger where tgname = 'journal_entries_wait'`.execute(db);
        assert.equal(Number(triggers.rows[0]?.n), 0, 'the trigger is gone');
      });
    });
  });
}
