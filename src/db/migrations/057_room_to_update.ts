// PostgreSQL leaves room in each page of the tables whose rows are updated in
// place again and again (an account's cached balance at every movement, a
// fund's units at every valuation), so that an update can write the row's new
// version beside the old one, without touching the table's indexes (a HOT
// update). Packed full, every such update wrote a new entry into each index:
// a valuation at a million funds took 56 s, with the room 43 s
// (docs/performance-history.md, 2026-11-30). Pages written from now on keep
// the room; `VACUUM FULL ledger_accounts, fund_units` at a quiet hour gives
// it to the pages written before. SQLite updates rows in place: nothing to do.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`alter table ledger_accounts set (fillfactor = 70)`.execute(db);
  await sql`alter table fund_units set (fillfactor = 70)`.execute(db);
}
