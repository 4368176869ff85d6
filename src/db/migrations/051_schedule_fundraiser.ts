// A recurring donation may name a fundraiser (docs/rules.md §22): each payment made while the
// fundraiser is open is given to it; only the first is matched.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .alterTable('scheduled_donations')
    .addColumn('fundraiser_id', t.ref, (c) => c.references('fundraisers.id'))
    .execute();
}
