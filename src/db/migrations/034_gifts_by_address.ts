// Gifts waiting at an address (docs/rules.md §7, Gifts): a person who opens a fund with the e-mail a
// gift was sent to finds it on their dashboard. Open gifts are read by their address, in any case.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index gifts_open_by_email on gifts (lower(email)) where status = 'new'`.execute(db);
}
