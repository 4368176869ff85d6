// Partner fields (docs/rules.md §21) on gifts, as on donations (migration 044): the giver's own id
// for a gift, unique per giver, and its string metadata.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('gifts').addColumn('external_id', 'text').execute();
  await db.schema.alterTable('gifts').addColumn('metadata', 'text').execute();
  await db.schema.createIndex('gifts_external_id').on('gifts').columns(['user_id', 'external_id']).unique().where(sql.ref('external_id'), 'is not', null).execute();
}
