// A receipt is replaced at most once (rules §13): its corrections form one
// chain, original to newest, never a fork.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unique index receipts_replaced on receipts (replaces_id) where replaces_id is not null`.execute(db);
}
