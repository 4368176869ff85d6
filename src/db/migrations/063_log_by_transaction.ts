// PostgreSQL: an entry waits for its place in its book's log by the id of the transaction that
// wrote it, not by a row of `ledger_waiting` (docs/rules.md §26, ADR 28). Every journal row now
// carries `txid`, the writer's transaction id (pg_current_xact_id(), the column's default, so any
// writer of any release gets it, as the trigger's row did); the sequencer takes the entries above
// the last one it placed, in (txid, id) order, whose transaction is older than every transaction
// still running (the snapshot's xmin): none of those can still commit an entry below them. The
// trigger's row an entry and the sequencer's delete of it cost the donations' path 3.7 us and the
// job 11.3 us an entry in the bench of 1,000,000 donations; by transaction id, the chains' cost
// measured 0.944 against 0.900 back to back (docs/performance-history.md, 2026-12-03, evening).
//
// The column is added without a default and given one after (a volatile default added with the
// column would rewrite every row): the entries written before stay without one, and are the
// placed ones; those still waiting get txid 3, the first normal transaction id, below any
// transaction to come, and leave the waiting table, which PostgreSQL no longer writes. SQLite is
// unchanged: its writer places what it writes, and what waits there waits in `ledger_waiting`.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/** The transaction id of the entries that waited in `ledger_waiting` when this migration ran. */
export const WAITED_BEFORE_TXID = '3';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`alter table journal_entries add column txid xid8`.execute(db);
  await sql`alter table journal_entries alter column txid set default pg_current_xact_id()`.execute(db);
  await sql`drop trigger journal_entries_wait on journal_entries`.execute(db);
  await sql`drop function almoner_entries_wait()`.execute(db);
  await sql`update journal_entries set txid = ${WAITED_BEFORE_TXID}::xid8
    where id in (select entry_id from ledger_waiting) and not exists (select 1 from ledger_places p where p.entry_id = journal_entries.id)`.execute(db);
  await sql`delete from ledger_waiting`.execute(db);
  // The sequencer's read: a book's entries above its last place, in order (only those with a txid).
  await sql`create index journal_entries_txid on journal_entries (book, txid, id) where txid is not null`.execute(db);
}
