// A user's donations' revision: a number that moves whenever one of their donations is updated or
// deleted, whoever runs the statement (triggers on both engines, as 064's for a row). With the
// user's count, which every insert raises in the same transaction (donationStatements; `almoner
// check` recounts it), it names one content of the user's list: while neither has moved, a page
// of the list is the one read before. A node keeps the ids and revisions of the pages it has read
// under that pair (donations.rows.ts, ADR 33), and a list then asks the database only for the owner's
// row, which carries both, instead of the page's keys as well.
//
// PostgreSQL raises it once per statement for each user whose rows the statement changed (a
// statement-level trigger over the changed rows, so a payment run's update of thousands of rows
// updates each donor's count row once); SQLite, which has no statement-level triggers, once per
// row. A user whose donation moves to another user (a fund's successor) is counted on both sides.
// A migration that rebuilds `donations` or `donation_counts` on SQLite must create these again:
// donations.store.test.ts updates and deletes rows and asserts that the revision moved.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  // A constant default: on both engines added without rewriting a row.
  await db.schema
    .alterTable('donation_counts')
    .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  if (engine === 'postgres') {
    await sql`create or replace function almoner_donations_listed_changed() returns trigger
      language plpgsql set search_path from current as $$
      begin
        if tg_op = 'UPDATE' then
          update donation_counts c set revision = c.revision + 1
            where c.user_id in (select user_id from changed_old union select user_id from changed_new);
        else
          update donation_counts c set revision = c.revision + 1 where c.user_id in (select user_id from changed_old);
        end if;
        return null;
      end
      $$`.execute(db);
    // A trigger with transition tables takes one event.
    await sql`create trigger donations_listed_changed_on_update after update on donations
      referencing old table as changed_old new table as changed_new
      for each statement execute function almoner_donations_listed_changed()`.execute(db);
    await sql`create trigger donations_listed_changed_on_delete after delete on donations
      referencing old table as changed_old
      for each statement execute function almoner_donations_listed_changed()`.execute(db);
  } else {
    // 064's trigger updates the row once more to raise its revision; that inner update fires no
    // trigger (SQLite's recursive triggers are off), so a row's update counts once.
    await sql`create trigger donations_listed_changed_on_update after update on donations
      begin update donation_counts set revision = revision + 1 where user_id in (old.user_id, new.user_id); end`.execute(db);
    await sql`create trigger donations_listed_changed_on_delete after delete on donations
      begin update donation_counts set revision = revision + 1 where user_id = old.user_id; end`.execute(db);
  }
}
