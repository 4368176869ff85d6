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

/** Counts into `named` and `found` the distinct (row, book) of `posted` that `column` names, and those `table` holds in that book and `how` finds. */
function counted(column: string, table: string, how: string): string {
  return `select count(*), count(x.one) into named, found
      from (select distinct ${column}, book from posted) p
      left join lateral (select 1 as one from ${table} r where r.id = p.${column} and r.book = p.book ${how}) x on true;`;
}

/** Each row `column` names found in its book: unlocked if this transaction wrote every one, else every one locked. */
function inTheirBook(column: string, table: string): string {
  return `${counted(column, table, 'and r.xmin = mine')}
    if found <> named then
      ${counted(column, table, 'for key share of r')}
    end if;`;
}

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  // As in 025: always an index probe each, and Almoner's tables whatever a session's search_path.
  await sql
    .raw(
      `create or replace function almoner_postings_in_their_books() returns trigger
    language plpgsql set enable_seqscan = off set search_path from current as $$
    declare
      mine constant xid := pg_current_xact_id()::xid;
      named bigint;
      found bigint;
    begin
      ${inTheirBook('account_id', 'ledger_accounts')}
      if found = named then
        ${inTheirBook('entry_id', 'journal_entries')}
      end if;
      if found <> named then
        raise exception 'a posting names an account or journal entry that does not exist in its book'
          using errcode = 'foreign_key_violation';
      end if;
      return null;
    end
    $$`,
    )
    .execute(db);
}
