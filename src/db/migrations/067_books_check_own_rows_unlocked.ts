// PostgreSQL: the two books' check of a statement's postings (migration 025) locks only the accounts
// and entries that other transactions wrote. Its lock (FOR KEY SHARE) keeps a named row from being
// deleted or rekeyed before the postings commit. A row this transaction inserted is seen by no
// other until then, and one it updated is locked by that update already (a stronger lock than
// the check's): neither can be deleted or rekeyed meanwhile, so neither needs the check's lock.
// A donation's round names only such rows (the entries it inserts, the accounts whose balances it
// updates), and locking them again cost each a lock of its row and a WAL record: measured apart,
// 180 bytes of WAL and 1-2 us a donation (docs/performance-history.md, 2026-12-06, later). So
// when every named row's xmin is this transaction, the check counts them without locking; when
// any is not (another transaction's row, or one written in a savepoint), it runs as before, with
// every named row locked. A row it does not find in its book still fails with SQLSTATE 23503.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  // As in 025: always an index probe each, and Almoner's tables whatever a session's search_path.
  await sql`create or replace function almoner_postings_in_their_books() returns trigger
    language plpgsql set enable_seqscan = off set search_path from current as $$
    declare
      mine constant xid := pg_current_xact_id()::xid;
      named bigint;
      found bigint;
    begin
      select count(*), count(x.one) into named, found
        from (select distinct account_id, book from posted) p
        left join lateral (select 1 as one from ledger_accounts a where a.id = p.account_id and a.book = p.book and a.xmin = mine) x on true;
      if found <> named then
        select count(*), count(x.one) into named, found
          from (select distinct account_id, book from posted) p
          left join lateral (select 1 as one from ledger_accounts a where a.id = p.account_id and a.book = p.book for key share of a) x on true;
      end if;
      if found = named then
        select count(*), count(x.one) into named, found
          from (select distinct entry_id, book from posted) p
          left join lateral (select 1 as one from journal_entries e where e.id = p.entry_id and e.book = p.book and e.xmin = mine) x on true;
        if found <> named then
          select count(*), count(x.one) into named, found
            from (select distinct entry_id, book from posted) p
            left join lateral (select 1 as one from journal_entries e where e.id = p.entry_id and e.book = p.book for key share of e) x on true;
        end if;
      end if;
      if found <> named then
        raise exception 'a posting names an account or journal entry that does not exist in its book'
          using errcode = 'foreign_key_violation';
      end if;
      return null;
    end
    $$`.execute(db);
}
