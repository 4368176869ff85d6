// PostgreSQL: the foreign keys a donation's write checked on the hot path,
// and that `almoner check` proves instead (ADR 9, "The journal's physical
// design"): a donation's user, fund and non-profit, an entry's donation, an
// event's and a donation count's user. Each cost an index lookup and a row
// lock in the referenced table for every row written. Kept: the postings'
// keys to their entry and account in the same book (rules §14: no posting
// crosses the books, enforced by the database itself). SQLite keeps them all.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export const DROPPED_REFERENCES = [
  ['donations', 'donations_user_id_fkey'],
  ['donations', 'donations_fund_id_fkey'],
  ['donations', 'donations_non_profit_id_fkey'],
  ['journal_entries', 'journal_entries_donation_id_fkey'],
  ['events', 'events_user_id_fkey'],
  ['donation_counts', 'donation_counts_user_id_fkey'],
] as const;

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const [table, name] of DROPPED_REFERENCES) await sql.raw(`alter table ${table} drop constraint if exists ${name}`).execute(db);
}
