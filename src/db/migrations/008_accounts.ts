// Accounts for the web app: a user signs in with an email and a password
// (only its scrypt hash is kept), holds sessions (only the SHA-256 of the
// cookie is kept), and failed sign-ins are counted to throttle guessing.
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('accounts')
    .addColumn('user_id', t.ref, (c) => c.primaryKey().references('users.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('web_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_email').on('sign_in_failures').columns(['email', 'at']).execute();
  await db.schema.createIndex('sign_in_failures_ip').on('sign_in_failures').columns(['ip', 'at']).execute();
}
