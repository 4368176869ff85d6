// Matching (docs/rules.md §22): a donor pledges to match a fundraiser's donations at a ratio up to
// a cap, held from their fund up front. Each donation matched makes the matcher's own donation,
// which names the match and the donation it matches (once per match: the unique index); the
// journal entries that hold and release a match's money name it.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('matches')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('fundraiser_id', t.ref, (c) => c.notNull().references('fundraisers.id'))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('fund_id', t.ref, (c) => c.notNull().references('funds.id'))
    // The matcher gives `ratio` times each donation matched (1 for 1:1, 2 for 2:1).
    .addColumn('ratio', 'integer', (c) => c.notNull())
    .addColumn('cap_cents', t.money, (c) => c.notNull())
    .addColumn('per_donation_cap_cents', t.money)
    // 1: what is left when it ends is given to the organisation too; 0: it goes back to the fund.
    .addColumn('give_rest', 'integer', (c) => c.notNull())
    .addColumn('matched_cents', t.money, (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('matches_fundraiser').on('matches').columns(['fundraiser_id', 'id']).execute();
  await db.schema.createIndex('matches_user').on('matches').columns(['user_id', 'created_at']).execute();
  await db.schema
    .alterTable('donations')
    .addColumn('match_id', t.ref, (c) => c.references('matches.id'))
    .execute();
  await db.schema.alterTable('donations').addColumn('matched_donation_id', t.ref).execute();
  await db.schema
    .createIndex('donations_matched')
    .on('donations')
    .columns(['matched_donation_id', 'match_id'])
    .unique()
    .where(sql.ref('matched_donation_id'), 'is not', null)
    .execute();
  await db.schema.alterTable('journal_entries').addColumn('match_id', t.ref).execute();
}
