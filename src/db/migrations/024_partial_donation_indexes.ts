// Two indexes of donations that only a few donations need (ADR 9, "The journal's
// physical design"): every donation wrote an entry in both, a page of each
// dirtied by every fund a batch touched. Now each holds only the rows it is read for:
// - the waiting donations of a fund, oldest first (promotion when money arrives);
// - a recurring donation's one donation per date (null for every other donation, and
//   NULLs never collide in a unique index, so the rule is unchanged).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('donations_fund_status').execute();
  await db.schema.createIndex('donations_fund_waiting').on('donations').columns(['fund_id', 'id']).where(sql.ref('status'), '=', sql.lit('waiting_for_funds')).execute();
  await db.schema.dropIndex('donations_scheduled_once').execute();
  await db.schema
    .createIndex('donations_scheduled_once')
    .on('donations')
    .columns(['scheduled_donation_id', 'scheduled_for'])
    .unique()
    .where(sql.ref('scheduled_donation_id'), 'is not', null)
    .execute();
}
