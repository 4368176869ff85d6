// A recurring donation started from an app's donate link remembers the app (docs/rules.md §25):
// each payment is the app's too, and its webhook endpoints hear of it. Donations an app's token
// made before migration 052 are given their app, from their connection.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('scheduled_donations').addColumn('app_id', t.ref).execute();
  await backfillDonationApps(db);
}

/** Each donation an app's token made without its app written gets it, from its connection (a gift's claim, the giver's donation, is no app's). */
export async function backfillDonationApps(db: Kysely<any>): Promise<void> {
  await sql`update donations set app_id = (select c.app_id from app_connections c where c.id = donations.app_connection_id)
    where app_connection_id is not null and app_id is null
      and not exists (select 1 from gifts g where g.donation_id = donations.id)`.execute(db);
}
