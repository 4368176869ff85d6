// One counter that every revocation (and, later, every suspension) raises,
// in the same transaction. A node may keep resolved API keys in memory as
// long as the counter it read with them is still the current one, so that a
// revocation takes effect on the next request on every node.
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('auth_epoch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', t.money, (c) => c.notNull())
    .execute();
  await db.insertInto('auth_epoch').values({ id: 1, epoch: 0 }).execute();
}
