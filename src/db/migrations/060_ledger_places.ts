// An entry's place in its book's log moves out of the journal into a table of its own, and the
// entries waiting for one are named in another (docs/rules.md §26, ADR 28). On PostgreSQL the
// sequencer placed an entry by rewriting its journal row: an update that changed an indexed
// column, so every index of the journal took the row's new version and the WAL carried all of it
// (565 bytes an entry on a copy of the journal in psql). Now a trigger names each new entry in
// `ledger_waiting`, in the transaction that writes it, whichever node or release wrote it (a node
// of the release before still writes journal rows alone during a rolling upgrade), and the
// sequencer inserts its place into `ledger_places` and deletes it from the waiting: about 400
// bytes an entry, the writer's part included, and no journal row is ever rewritten
// (docs/performance-history.md, 2026-11-30, 21:00-22:10). On SQLite the writer still places what it
// writes, now in `ledger_places`, and only an entry without a place waits.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('ledger_places')
    // An entry has one place, found by the entry (a proof, the trigger below): the key, which on
    // SQLite is the table's own rowid, so a place is written into two B-trees, not three.
    .addColumn('entry_id', t.ref, (c) => c.primaryKey())
    .addColumn('book', 'text', (c) => c.notNull())
    // The entry's leaf index in its book's log, from 0, and the chain's hash up to it (hex).
    .addColumn('leaf', t.ref, (c) => c.notNull())
    .addColumn('chain_hash', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ledger_places_leaf').unique().on('ledger_places').columns(['book', 'leaf']).execute();
  await db.schema
    .createTable('ledger_waiting')
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('entry_id', t.ref, (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_waiting_pk', ['book', 'entry_id'])
    .execute();
  await sql`insert into ledger_places (book, leaf, entry_id, chain_hash)
    select book, log_seq, id, chain_hash from journal_entries where log_seq is not null order by book, log_seq`.execute(db);
  await sql`insert into ledger_waiting (book, entry_id) select book, id from journal_entries where log_seq is null order by book, id`.execute(db);
  if (engine === 'postgres') {
    // A statement's new entries, all at once (a batch of donations inserts hundreds in one).
    await sql`create or replace function almoner_entries_wait() returns trigger
      language plpgsql set search_path from current as $$
      begin
        insert into ledger_waiting (book, entry_id) select book, id from new_entries;
        return null;
      end
      $$`.execute(db);
    await sql`create trigger journal_entries_wait after insert on journal_entries referencing new table as new_entries
      for each statement execute function almoner_entries_wait()`.execute(db);
  } else {
    // The writer's places go in before its entries (a single entry's, right after, takes it back).
    await sql`create trigger journal_entries_wait after insert on journal_entries
      when not exists (select 1 from ledger_places p where p.entry_id = new.id)
      begin insert into ledger_waiting (book, entry_id) values (new.book, new.id); end`.execute(db);
    await sql`create trigger ledger_places_taken after insert on ledger_places
      begin delete from ledger_waiting where book = new.book and entry_id = new.entry_id; end`.execute(db);
  }
  await sql`drop index journal_entries_log_seq`.execute(db);
  await sql`drop index journal_entries_unsequenced`.execute(db);
  await db.schema.alterTable('journal_entries').dropColumn('log_seq').execute();
  await db.schema.alterTable('journal_entries').dropColumn('chain_hash').execute();
}
