// Partner fields (docs/rules.md §21): an app's (or a donor's) own id for a donation and its string
// metadata. The id is unique per owner: a second donation with it is refused, even one made at the
// same moment (the partial unique index decides that race).
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('donations').addColumn('external_id', 'text').execute();
  // A JSON object of strings, or null for none.
  await db.schema.alterTable('donations').addColumn('metadata', 'text').execute();
  await db.schema.createIndex('donations_external_id').on('donations').columns(['user_id', 'external_id']).unique().where(sql.ref('external_id'), 'is not', null).execute();
}
