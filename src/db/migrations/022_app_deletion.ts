// An app's owner deletes it (ADR 16): it stops at once like a disabled app,
// every connection to it ends, and no operator can turn it back on. The row
// stays, for the audit and the operators' list.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('apps').addColumn('deleted_at', 'text').execute();
}
