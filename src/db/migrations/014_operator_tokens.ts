// Operator tokens get an expiry (unset: none) and the time of their last use,
// so that operators can list, retire and audit them (almoner admin token list).
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('admin_tokens').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('admin_tokens').addColumn('last_used_at', 'text').execute();
}
