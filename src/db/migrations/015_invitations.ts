// A sign-in invitation: an operator made a user (almoner users create --invite);
// the person chooses their sign-in email and password from a one-time link.
// Only the SHA-256 of the link's token is kept.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('invitations')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', columnTypes(engine).ref, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('invitations_user').on('invitations').column('user_id').execute();
}
