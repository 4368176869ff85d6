// Each run of `almoner check`, kept so that every node's /metrics can say when the books were
// last proved and how many invariants failed then (an alert when that is old or not zero),
// whichever machine ran it (a timer beside one node, an operator by hand).
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('check_runs')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('finished_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    // Invariants that did not hold (0: the books are sound), of how many checked.
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('checked', 'integer', (c) => c.notNull())
    .addColumn('release', 'text', (c) => c.notNull())
    .execute();
}
