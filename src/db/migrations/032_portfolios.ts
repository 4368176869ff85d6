// Portfolios and their prices (docs/rules.md §19): the pools a sponsor
// offers, each with what it holds and its annual fee; prices imported per
// symbol and time; valuations, each setting every portfolio's unit price from
// the prices at its time; what each fund chose, the units it holds, its
// exchanges and investments waiting for a valuation, and what each valuation
// did to it.
import { sql, type Kysely } from 'kysely';
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
    // The units all funds held after it (exact decimal text, 8 places).
    .addColumn('units_outstanding', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('portfolio_valuations_pk', ['valuation_id', 'portfolio_id'])
    .execute();
  // What each fund chose: a portfolio (or none) and the whole percent of new contributions to invest.
  await db.schema
    .createTable('fund_allocations')
    .addColumn('fund_id', t.ref, (c) => c.primaryKey())
    .addColumn('portfolio_id', t.ref)
    .addColumn('invest_share', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The units a fund holds (of one portfolio at a time), exact decimal text, 8 places.
  await db.schema
    .createTable('fund_units')
    .addColumn('fund_id', t.ref, (c) => c.primaryKey())
    .addColumn('portfolio_id', t.ref, (c) => c.notNull())
    .addColumn('units', 'text', (c) => c.notNull())
    .execute();
  // A change of portfolio waiting for the next valuation (to_portfolio_id null: to cash), at most one pending per fund.
  await db.schema
    .createTable('exchanges')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('to_portfolio_id', t.ref)
    // 'pending', 'executed' or 'cancelled'.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text')
    .addColumn('valuation_id', t.ref)
    .execute();
  await db.schema.createIndex('exchanges_pending').on('exchanges').columns(['fund_id']).unique().where(sql.ref('status'), '=', sql.lit('pending')).execute();
  // A contribution's share to invest, bought at the next valuation (as much as available then holds).
  await db.schema
    .createTable('investments')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('contribution_id', t.ref, (c) => c.notNull())
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    // 'pending', 'executed' or 'cancelled'.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('bought_cents', t.money)
    .addColumn('valuation_id', t.ref)
    .execute();
  await db.schema.createIndex('investments_pending').on('investments').columns(['status', 'fund_id']).execute();
  // What a valuation did to each fund that held or bought units: the check's record.
  await db.schema
    .createTable('fund_valuations')
    .addColumn('valuation_id', t.ref, (c) => c.notNull())
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('portfolio_id', t.ref)
    .addColumn('units', 'text', (c) => c.notNull())
    .addColumn('value_cents', t.money, (c) => c.notNull())
    // The fee: the units before it, the period (ms) and rate it was for, the units and cents it took.
    .addColumn('fee_basis_units', 'text', (c) => c.notNull())
    .addColumn('fee_ms', t.money, (c) => c.notNull())
    .addColumn('fee_bps', 'integer', (c) => c.notNull())
    .addColumn('fee_units', 'text', (c) => c.notNull())
    .addColumn('fee_cents', t.money, (c) => c.notNull())
    .addColumn('gain_cents', t.money, (c) => c.notNull())
    .addColumn('bought_cents', t.money, (c) => c.notNull())
    .addColumn('sold_cents', t.money, (c) => c.notNull())
    .addPrimaryKeyConstraint('fund_valuations_pk', ['valuation_id', 'fund_id'])
    .execute();
  // The flat monthly fee each fund paid at a valuation (FUND_MONTHLY_FEE_CENTS).
  await db.schema
    .createTable('monthly_fees')
    .addColumn('valuation_id', t.ref, (c) => c.notNull())
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('cents', t.money, (c) => c.notNull())
    .addColumn('from_units', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('monthly_fees_pk', ['valuation_id', 'fund_id'])
    .execute();
  await db.schema.createIndex('portfolio_valuations_portfolio').on('portfolio_valuations').columns(['portfolio_id', 'valuation_id']).execute();
}
