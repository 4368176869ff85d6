// Partner fields (docs/rules.md §21) on recurring donations, as on donations (migration 044): the
// owner's own id for one, unique per owner, and its string metadata.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('scheduled_donations').addColumn('external_id', 'text').execute();
  await db.schema.alterTable('scheduled_donations').addColumn('metadata', 'text').execute();
  await db.schema
    .createIndex('scheduled_donations_external_id')
    .on('scheduled_donations')
    .columns(['user_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();
}
