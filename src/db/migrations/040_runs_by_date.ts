// A withdrawn run gives its date back (docs/rules.md §17): one run per book and pay date among
// runs not withdrawn, so an operator who withdrew a run (a donation that should not be in it) can
// open another for the same day. The unique constraint of 029 becomes a partial unique index.
// SQLite cannot drop a table constraint: the table is rebuilt from its own definition without it
// (nothing references payment_runs by a foreign key).
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { assert } from '../../shared/assert.ts';

const PARTIAL = sql`create unique index payment_runs_date on payment_runs (book, pay_date) where status <> 'withdrawn'`;

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    await sql`alter table payment_runs drop constraint payment_runs_date`.execute(db);
    await PARTIAL.execute(db);
    return;
  }
  const found = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'payment_runs'`.execute(db);
  const ddl = found.rows[0]?.sql ?? '';
  const rebuilt = ddl.replace(/,\s*constraint "payment_runs_date" unique \("book", "pay_date"\)/, '').replace(/^CREATE TABLE "payment_runs"/, 'CREATE TABLE "payment_runs_new"');
  assert(rebuilt !== ddl && !rebuilt.includes('payment_runs_date'), 'payment_runs as migration 029 made it');
  await sql.raw(rebuilt).execute(db);
  await sql`insert into payment_runs_new select * from payment_runs`.execute(db);
  await sql`drop table payment_runs`.execute(db);
  await sql`alter table payment_runs_new rename to payment_runs`.execute(db);
  await PARTIAL.execute(db);
}
