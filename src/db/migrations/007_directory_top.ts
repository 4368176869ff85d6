// For each very common word ("church", "foundation"), its biggest
// organisations, precomputed at import: a search of common words only ranks
// these instead of sorting a hundred thousand matches.
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('directory_top')
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('non_profit_id', t.ref, (c) => c.notNull())
    .addPrimaryKeyConstraint('directory_top_pk', ['word', 'non_profit_id'])
    .execute();
}
