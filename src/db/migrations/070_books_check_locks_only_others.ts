// PostgreSQL: the two books' check of a statement's postings (migrations 025 and 067) locks only the
// named rows that another transaction wrote. 067 skipped the lock when every named row was this
// transaction's own, and otherwise locked every named row again. A valuation's round posts to
// thousands of fund accounts it updates in the same statement and to a few outside accounts (the
// market and fees accounts) whose balances it writes only in a later statement (valuation.funds.ts):
// one such row sent all of them through a second pass, an index probe (and a lock, which PostgreSQL
// skips for a row this transaction updated) each, to lock a handful. The first pass now keeps the
// rows it did not find as this transaction's, and the second probes and locks only those: measured
// apart, 2,001 postings (2,000 accounts updated in the statement, one not) checked in 4.6-5.5 ms
// instead of 9.6-11.5 (docs/performance-history.md, 2026-12-06, late). The rows found in the first
// pass need no lock (067's reasoning: no other transaction can delete or rekey them before this
// one commits). Every named row is still counted in its book, and a row not found there still
// fails with SQLSTATE 23503.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/**
 * Counts the distinct (row, book) of `posted` that `column` names into `named`, and into `found` those
 * `table` holds in that book that this transaction wrote; the others' ids and books into `rest_ids`
 * and `rest_books`.
 */
function countedOwn(column: string, table: string): string {
  return `select count(*), count(x.one), array_agg(p.${column}) filter (where x.one is null), array_agg(p.book) filter (where x.one is null)
        into named, found, rest_ids, rest_books
      from (select distinct ${column}, book from posted) p
      left join lateral (select 1 as one from ${table} r where r.id = p.${column} and r.book = p.book and r.xmin = mine) x on true;`;
}

/** Each row `column` names found in its book: those this transaction wrote unlocked, every other one locked. */
function inTheirBook(column: string, table: string): string {
  return `${countedOwn(column, table)}
    if found <> named then
      select count(x.one) into others
        from unnest(rest_ids, rest_books) as p(id, book)
        left join lateral (select 1 as one from ${table} r where r.id = p.id and r.book = p.book for key share of r) x on true;
      found := found + others;
    end if;`;
}

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  // As in 025 and 067: always an index probe each, and Almoner's tables whatever a session's search_path.
  await sql
    .raw(
      `create or replace function almoner_postings_in_their_books() returns trigger
    language plpgsql set enable_seqscan = off set search_path from current as $$
    declare
      mine constant xid := pg_current_xact_id()::xid;
      named bigint;
      found bigint;
      others bigint;
      rest_ids bigint[];
      rest_books text[];
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
