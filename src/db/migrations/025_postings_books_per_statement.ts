// PostgreSQL: the two books (rules §14) are still refused by the database
// itself, checked once per statement instead of once per posting (ADR 9, "The
// journal's physical design"). The foreign keys postings_entry_book_fkey and
// postings_account_book_fkey ran two lookups and two row locks for every
// posting a round wrote: a quarter of its statement's time. In their place:
// - a statement that inserts or updates postings checks all of them at once:
//   each names an account and an entry of its own book, locked FOR KEY SHARE,
//   as the keys locked them, so neither can be deleted or rekeyed before it
//   commits;
// - an account or entry that postings name cannot be deleted, nor its id or
//   book changed (once the other's lock is gone, the check sees its postings).
// Both refuse with SQLSTATE 23503, as the keys did. Rows that crossed before
// 013_books (kept for `almoner check` to report) are not checked again, as
// that migration's NOT VALID key did not. SQLite keeps its foreign keys.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  // Each account and entry the statement's postings name, looked up by its key and locked,
  // counted against how many are named. Always an index probe each: a session keeps the plan it
  // made on its first call, perhaps when the tables were nearly empty and a sequential scan was
  // cheapest, and would then scan the whole table once per name (a bulk load of 400,000 postings
  // ran for minutes instead of seconds); with sequential scans off, the plan holds at any size.
  // The tables are Almoner's whatever a session's search_path (a key names its table for good):
  // each function keeps the search_path it was made with.
  await sql`create or replace function almoner_postings_in_their_books() returns trigger
    language plpgsql set enable_seqscan = off set search_path from current as $$
    declare
      named bigint;
      found bigint;
    begin
      select count(*), count(x.one) into named, found
        from (select distinct account_id, book from posted) p
        left join lateral (select 1 as one from ledger_accounts a where a.id = p.account_id and a.book = p.book for key share of a) x on true;
      if found = named then
        select count(*), count(x.one) into named, found
          from (select distinct entry_id, book from posted) p
          left join lateral (select 1 as one from journal_entries e where e.id = p.entry_id and e.book = p.book for key share of e) x on true;
      end if;
      if found <> named then
        raise exception 'a posting names an account or journal entry that does not exist in its book'
          using errcode = 'foreign_key_violation';
      end if;
      return null;
    end
    $$`.execute(db);
  for (const event of ['insert', 'update']) {
    await sql
      .raw(
        `create trigger postings_in_their_books_on_${event} after ${event} on postings referencing new table as posted for each statement execute function almoner_postings_in_their_books()`,
      )
      .execute(db);
  }
  await sql`create or replace function almoner_posted_rows_kept() returns trigger
    language plpgsql set enable_seqscan = off set search_path from current as $$
    begin
      if tg_op = 'UPDATE' and new.id = old.id and new.book = old.book then
        return new;
      end if;
      if (tg_table_name = 'ledger_accounts' and exists (select 1 from postings p where p.account_id = old.id and p.book = old.book))
        or (tg_table_name = 'journal_entries' and exists (select 1 from postings p where p.entry_id = old.id and p.book = old.book)) then
        raise exception '% % has postings: it cannot be deleted, nor its id or book changed', tg_table_name, old.id
          using errcode = 'foreign_key_violation';
      end if;
      return case when tg_op = 'DELETE' then old else new end;
    end
    $$`.execute(db);
  for (const table of ['ledger_accounts', 'journal_entries']) {
    await sql.raw(`create trigger ${table}_posted_rows_kept before delete or update of id, book on ${table} for each row execute function almoner_posted_rows_kept()`).execute(db);
  }
  // Replaced only now, in the same transaction: no moment without either.
  await sql`alter table postings drop constraint if exists postings_entry_book_fkey`.execute(db);
  await sql`alter table postings drop constraint if exists postings_account_book_fkey`.execute(db);
}
