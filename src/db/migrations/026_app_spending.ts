// What an app gave, month by month (ADR 16, "The monthly limit"): one row per
// connection and calendar month, counted by a compare-and-set against the limit
// in effect, and that limit kept beside it, so `almoner check` can prove every
// month stayed within the limit it was counted under. Donations and gifts made
// on an app's token name the connection that made them, so the check can also
// prove no app moved money it was not counted for.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('app_spending')
    .addColumn('connection_id', t.ref, (c) => c.notNull())
    // 'YYYY-MM' (UTC).
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('spent_cents', t.money, (c) => c.notNull())
    // The limit the latest count was made under; null: none.
    .addColumn('limit_cents', t.money)
    .addPrimaryKeyConstraint('app_spending_pk', ['connection_id', 'month'])
    .execute();
  // Nullable and unindexed: nothing reads them on a hot path; `almoner check` sums them.
  await db.schema.alterTable('donations').addColumn('app_connection_id', t.ref).execute();
  await db.schema.alterTable('gifts').addColumn('app_connection_id', t.ref).execute();
}
