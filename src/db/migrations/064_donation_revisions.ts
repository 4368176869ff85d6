// A donation's revision: a number every UPDATE of its row raises, whoever runs it (a trigger on
// both engines, so a writer of any release, a CLI's statement or a later migration's backfill
// cannot forget it). A node keeps the rows of the lists it has answered, each under the revision
// it was read at (donations.rows.ts, ADR 33): a page reads its rows' ids and revisions, and only
// the rows whose revision it does not hold. A row is never inserted again under an id it had
// (ids are reserved once, db/ids.ts), so (id, revision) names one content of a row.
//
// A migration that rebuilds `donations` (SQLite's way of changing a column) must create the
// trigger again: donations.store.test.ts updates a row and asserts that its revision moved.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  // A constant default: on both engines added without rewriting a row.
  await db.schema
    .alterTable('donations')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  if (engine === 'postgres') {
    await sql`create or replace function almoner_donation_revised() returns trigger
      language plpgsql set search_path from current as $$
      begin
        new.revision := old.revision + 1;
        return new;
      end
      $$`.execute(db);
    await sql`create trigger donations_revised before update on donations
      for each row execute function almoner_donation_revised()`.execute(db);
  } else {
    // After the row's update, once more with its revision raised. That inner update fires no
    // trigger (SQLite's recursive triggers are off, the default), and the WHEN would stop it if
    // they were on: its new revision differs from its old.
    await sql`create trigger donations_revised after update on donations
      when new.revision = old.revision
      begin update donations set revision = old.revision + 1 where id = new.id; end`.execute(db);
  }
}
