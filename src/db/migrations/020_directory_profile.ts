// What a charity's page and search ranking read from the IRS file beyond a
// name and a place (issue: finding charities): the street, the ruling year,
// the BMF codes (subsection, foundation, affiliation, organisation, filing
// requirement, deductibility, status) and revenue. Rows imported before this
// keep empty values until the next import rewrites them (the importer treats
// a row whose stored values differ from the file's as changed).
// ZIP centroids are kept too, for "near me" by ZIP code, and indexes for a
// cause's largest organisations and for a box of latitudes.
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

const CODES = ['street', 'ruling', 'subsection', 'foundation', 'affiliation', 'organization', 'filing_req', 'deductibility', 'status'] as const;

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  for (const column of CODES) {
    await db.schema
      .alterTable('non_profits')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  }
  await db.schema
    .alterTable('non_profits')
    .addColumn('revenue_amt', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('zip_centroids')
    .addColumn('zip', 'text', (c) => c.primaryKey())
    .addColumn('latitude', t.real, (c) => c.notNull())
    .addColumn('longitude', t.real, (c) => c.notNull())
    .execute();
  // A cause's largest organisations (similar ones on a charity's page) and a
  // box of latitudes (nearby ones, near a ZIP code) without reading them all.
  await db.schema.dropIndex('non_profits_cause').ifExists().execute();
  await db.schema.createIndex('non_profits_cause_size').ifNotExists().on('non_profits').columns(['cause_id', 'income_amt']).execute();
  await db.schema.createIndex('non_profits_latitude').ifNotExists().on('non_profits').column('latitude').execute();
}
