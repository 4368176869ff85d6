// An entry waiting for its place in its book's log is named with the hash written with it
// (docs/rules.md §26, ADR 28). The sequencer chains an entry from that hash; it read the waiting's
// ids and then each entry's hash from the journal by id, a second index lookup an entry, a fifth of
// what placing it cost (docs/performance-history.md, 2026-12-01). The trigger that names a new
// entry in `ledger_waiting` copies its hash there, in the writer's statement; the copy is only
// read, never trusted: `almoner check` chains the journal's own hashes and names the first place
// whose chain differs. An entry without a hash (written before 054) waits without one, and the
// sequencer reads its content.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema.alterTable('ledger_waiting').addColumn('entry_hash', 'text').execute();
  await sql`update ledger_waiting set entry_hash = (select j.entry_hash from journal_entries j where j.id = ledger_waiting.entry_id)`.execute(db);
  if (engine === 'postgres') {
    await sql`create or replace function almoner_entries_wait() returns trigger
      language plpgsql set search_path from current as $$
      begin
        insert into ledger_waiting (book, entry_id, entry_hash) select book, id, entry_hash from new_entries;
        return null;
      end
      $$`.execute(db);
  } else {
    await sql`drop trigger journal_entries_wait`.execute(db);
    await sql`create trigger journal_entries_wait after insert on journal_entries
      when not exists (select 1 from ledger_places p where p.entry_id = new.id)
      begin insert into ledger_waiting (book, entry_id, entry_hash) values (new.book, new.id, new.entry_hash); end`.execute(db);
  }
}
