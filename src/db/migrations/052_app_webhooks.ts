// An app hears of what it made (docs/rules.md §25): a donation remembers the app whose token or
// donate link made it, and a webhook endpoint may be an app's, hearing those donations' events
// instead of its owner's fund's. Plain ids, as app_connection_id is: an app is never deleted
// (only marked so), and the database copy writes donations before apps.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('donations').addColumn('app_id', t.ref).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('app_id', t.ref).execute();
  await db.schema.createIndex('webhook_endpoints_app').on('webhook_endpoints').columns(['app_id']).execute();
}
