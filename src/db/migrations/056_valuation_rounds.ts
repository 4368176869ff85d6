// A valuation commits a round of funds at a time (docs/rules.md §19): it keeps
// the stage it is at ('monthly_fees', 'funds', or 'done' when finished) and the
// last fund its rounds have passed, so that any node can carry it on after a
// crash; the audit entries its journal entries name, one per book; and the
// flat monthly fee it charges, fixed when it starts.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('valuations')
    .addColumn('stage', 'text', (c) => c.notNull().defaultTo('done'))
    .execute();
  await db.schema
    .alterTable('valuations')
    .addColumn('after_fund_id', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // JSON: {"live": <audit id>, "test": <audit id>}; '{}' for valuations finished before this migration.
  await db.schema
    .alterTable('valuations')
    .addColumn('audit_ids', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .alterTable('valuations')
    .addColumn('monthly_fee_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
