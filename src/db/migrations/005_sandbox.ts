// The sandbox: a test key (`alm_test_...`) acts for its owner's sandbox
// twin, a hidden user with a fund of its own, so that nothing done in the
// sandbox touches live money or live lists.
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .alterTable('users')
    .addColumn('sandbox_of', t.ref, (c) => c.references('users.id'))
    .execute();
  await db.schema.createIndex('users_sandbox_of').on('users').column('sandbox_of').unique().execute();
}
