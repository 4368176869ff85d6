// Fundraisers (docs/rules.md §22): a person's page for one organisation, with a goal and dates,
// and the donations made to it. A donation names at most one fundraiser, of its own recipient and
// book; what a fundraiser has raised is read from its donations (indexed here), never kept apart.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('fundraisers')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('non_profit_id', t.ref, (c) => c.notNull().references('non_profits.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('story', 'text', (c) => c.notNull())
    .addColumn('goal_cents', t.money, (c) => c.notNull())
    .addColumn('offline_cents', t.money, (c) => c.notNull())
    // Calendar days, YYYY-MM-DD: open from the first to the last, inclusive (no last: until ended).
    .addColumn('starts_on', 'text', (c) => c.notNull())
    .addColumn('ends_on', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('metadata', 'text')
    .execute();
  await db.schema.createIndex('fundraisers_user').on('fundraisers').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('fundraisers_external_id').on('fundraisers').columns(['user_id', 'external_id']).unique().where(sql.ref('external_id'), 'is not', null).execute();
  await db.schema
    .alterTable('donations')
    .addColumn('fundraiser_id', t.ref, (c) => c.references('fundraisers.id'))
    .execute();
  await db.schema.createIndex('donations_fundraiser').on('donations').columns(['fundraiser_id', 'created_at']).where(sql.ref('fundraiser_id'), 'is not', null).execute();
}
