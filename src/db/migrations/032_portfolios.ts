// Portfolios and their prices (docs/rules.md §19): the pools a sponsor
// offers, each with what it holds and its annual fee; prices imported per
// symbol and time; valuations, each setting every portfolio's unit price from
// the prices at its time.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('portfolios')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull())
    // 'low', 'medium' or 'high'.
    .addColumn('risk', 'text', (c) => c.notNull())
    .addColumn('fee_bps', 'integer', (c) => c.notNull())
    // JSON: [{symbol, weight}], weights in whole percent summing to 100.
    .addColumn('holdings', 'text', (c) => c.notNull())
    // 'active', or 'retired' (no one may choose it any more).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  await db.schema
    .createTable('prices')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    // Exact decimal text, 8 places.
    .addColumn('price', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('prices_symbol_at', ['symbol', 'at'])
    .execute();
  await db.schema
    .createTable('valuations')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('at', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('portfolio_valuations')
    .addColumn('valuation_id', t.ref, (c) => c.notNull())
    .addColumn('portfolio_id', t.ref, (c) => c.notNull())
    // Exact decimal text, 8 places.
    .addColumn('unit_price', 'text', (c) => c.notNull())
    // JSON: {symbol: price text}, the prices it was valued at.
    .addColumn('prices', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('portfolio_valuations_pk', ['valuation_id', 'portfolio_id'])
    .execute();
  await db.schema.createIndex('portfolio_valuations_portfolio').on('portfolio_valuations').columns(['portfolio_id', 'valuation_id']).execute();
}
