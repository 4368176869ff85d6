// Partner fields (docs/rules.md §21) on contributions, as on donations (migration 044): the owner's
// own id for a declared contribution, unique per owner, and its string metadata.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('contributions').addColumn('external_id', 'text').execute();
  await db.schema.alterTable('contributions').addColumn('metadata', 'text').execute();
  await db.schema.createIndex('contributions_external_id').on('contributions').columns(['user_id', 'external_id']).unique().where(sql.ref('external_id'), 'is not', null).execute();
}
