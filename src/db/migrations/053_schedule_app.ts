// A recurring donation started from an app's donate link remembers the app (docs/rules.md §25):
// each payment is the app's too, and its webhook endpoints hear of it.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('scheduled_donations').addColumn('app_id', t.ref).execute();
}
