// What one process learns that another needs (docs/operating.md): the address a server is
// reached at, recorded as it starts listening, so that mail a CLI command sends (an invitation,
// a claim's link) links to the platform's own address, not to a default port.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('platform_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
