// Addresses proven before anything follows them (docs/rules.md §15): an account's address is
// confirmed by a link mailed to it, at sign-up, at the first sign-in of an account made before,
// and when the address changes (the new one is the account's only once confirmed). Until then,
// nothing waiting at the address is shown or handed over. Accounts made before are unconfirmed.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('accounts').addColumn('email_confirmed_at', 'text').execute();
  await db.schema
    .createTable('address_confirmations')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    // The address the link went to: the account's own, or the one it is changing to.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('address_confirmations_user').on('address_confirmations').columns(['user_id', 'created_at']).execute();
}
