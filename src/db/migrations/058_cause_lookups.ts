// Indexes for looking up by cause what had no index: a donation's or a
// contribution's journal entries (its proof, GET /v1/donations/{id}/proof, and
// a receipt's verification code) and a donation's gift (whether a donation is
// a gift's claim, asked by `almoner check` of every donation). Without them
// each proof read the whole journal, and the check read every gift once per
// donation: on SQLite the authorization matrix's checks of a few hundred
// donations took 16 ms each. Partial: most entries name one cause of three,
// and most donations are no gift's. An expanding migration (ADR 13); a plain
// CREATE INDEX holds writes to the table while it builds (seconds at a
// million entries).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index journal_entries_donation on journal_entries (donation_id) where donation_id is not null`.execute(db);
  await sql`create index journal_entries_contribution on journal_entries (contribution_id) where contribution_id is not null`.execute(db);
  await sql`create index gifts_donation on gifts (donation_id) where donation_id is not null`.execute(db);
}
