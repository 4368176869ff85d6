// SQL of portfolios, prices and valuations (rules §19).
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { PortfoliosTable, ValuationsTable } from '../../db/schema.investing.ts';
import { isUniqueViolation } from '../../db/errors.ts';

export type PortfolioRow = Selectable<PortfoliosTable>;
export type ValuationRow = Selectable<ValuationsTable>;

/** A new portfolio, or undefined when its name is taken. */
export async function insertPortfolio(trx: Trx, row: Omit<PortfolioRow, 'id' | 'status' | 'retired_at'>): Promise<number | undefined> {
  try {
    const made = await trx
      .insertInto('portfolios')
      .values({ ...row, status: 'active', retired_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(made.id);
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

export async function findPortfolio(db: Db | Trx, id: number): Promise<PortfolioRow | undefined> {
  return await db.selectFrom('portfolios').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Portfolios by id; only the active ones when asked. */
export async function listPortfolios(db: Db | Trx, activeOnly: boolean): Promise<PortfolioRow[]> {
  let query = db.selectFrom('portfolios').selectAll();
  if (activeOnly) query = query.where('status', '=', 'active');
  return await query.orderBy('id').execute();
}

/** Retires an active portfolio; false when it was retired already. */
export async function retirePortfolio(trx: Trx, id: number, at: string): Promise<boolean> {
  const result = await trx.updateTable('portfolios').set({ status: 'retired', retired_at: at }).where('id', '=', id).where('status', '=', 'active').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Which of these symbol-and-time pairs are stored already. */
export async function storedPrices(db: Db | Trx, pairs: ReadonlyArray<{ symbol: string; at: string }>): Promise<Array<{ symbol: string; at: string }>> {
  const found: Array<{ symbol: string; at: string }> = [];
  for (const [symbol, group] of Map.groupBy(pairs, (p) => p.symbol)) {
    const times = group.map((p) => p.at);
    for (let i = 0; i < times.length; i += 500) {
      found.push(
        ...(await db
          .selectFrom('prices')
          .select(['symbol', 'at'])
          .where('symbol', '=', symbol)
          .where('at', 'in', times.slice(i, i + 500))
          .execute()),
      );
    }
  }
  return found;
}

export async function insertPrices(trx: Trx, rows: ReadonlyArray<{ symbol: string; at: string; price: string; imported_at: string }>): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await trx
      .insertInto('prices')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** Each symbol's latest price at or before `at`; a symbol without one is absent. */
export async function pricesAt(db: Db | Trx, symbols: readonly string[], at: string): Promise<Map<string, { price: string; at: string }>> {
  const out = new Map<string, { price: string; at: string }>();
  for (const symbol of symbols) {
    const row = await db.selectFrom('prices').select(['price', 'at']).where('symbol', '=', symbol).where('at', '<=', at).orderBy('at', 'desc').limit(1).executeTakeFirst();
    if (row !== undefined) out.set(symbol, row);
  }
  return out;
}

export async function lastValuation(db: Db | Trx): Promise<{ id: number; at: string } | undefined> {
  const row = await db.selectFrom('valuations').select(['id', 'at']).orderBy('at', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? undefined : { id: Number(row.id), at: row.at };
}

/** The valuation whose rounds are still to finish, if any (one runs at a time). */
export async function runningValuation(db: Db | Trx): Promise<ValuationRow | undefined> {
  return await db.selectFrom('valuations').selectAll().where('stage', '<>', 'done').orderBy('id').limit(1).executeTakeFirst();
}

export async function findValuation(db: Db | Trx, id: number): Promise<ValuationRow | undefined> {
  return await db.selectFrom('valuations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The time of the valuation before the one at `at`, if any. */
export async function valuationBefore(db: Db | Trx, at: string): Promise<string | undefined> {
  const row = await db.selectFrom('valuations').select('at').where('at', '<', at).orderBy('at', 'desc').limit(1).executeTakeFirst();
  return row?.at;
}

/** Where a valuation's rounds have got to: its stage, the last fund passed, the audit entries it names. */
export async function updateValuation(trx: Trx, id: number, change: { stage?: ValuationRow['stage']; after_fund_id?: number; audit_ids?: string }): Promise<void> {
  await trx.updateTable('valuations').set(change).where('id', '=', id).execute();
}

/**
 * Moves a valuation's cursor in its stage from `from` to `to`, only if it is still at `from` (a
 * compare-and-set: a round that waited for another's row sees its commit first). False if another
 * round moved it.
 */
export async function advanceValuation(trx: Trx, id: number, stage: ValuationRow['stage'], from: number, to: number): Promise<boolean> {
  const moved = await trx.updateTable('valuations').set({ after_fund_id: to }).where('id', '=', id).where('stage', '=', stage).where('after_fund_id', '=', from).executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** A valuation at a time, or undefined when one is at that time already. */
export async function insertValuation(
  trx: Trx,
  row: { at: string; created_at: string; created_by: string; stage: ValuationRow['stage']; monthly_fee_cents: number },
): Promise<number | undefined> {
  try {
    return Number((await trx.insertInto('valuations').values(row).returning('id').executeTakeFirstOrThrow()).id);
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

export async function insertPortfolioValuations(
  trx: Trx,
  rows: ReadonlyArray<{ valuation_id: number; portfolio_id: number; unit_price: string; prices: string; units_outstanding: string }>,
): Promise<void> {
  if (rows.length > 0) await trx.insertInto('portfolio_valuations').values(rows).execute();
}

/** A valuation's unit prices and units outstanding (so far, while it runs), with each portfolio's fee. */
export async function portfolioValuationsOf(
  db: Db | Trx,
  valuationId: number,
): Promise<Array<{ portfolio_id: number; unit_price: string; units_outstanding: string; fee_bps: number }>> {
  const rows = await db
    .selectFrom('portfolio_valuations as pv')
    .innerJoin('portfolios as p', 'p.id', 'pv.portfolio_id')
    .select(['pv.portfolio_id', 'pv.unit_price', 'pv.units_outstanding', 'p.fee_bps'])
    .where('pv.valuation_id', '=', valuationId)
    .orderBy('pv.portfolio_id')
    .execute();
  return rows.map((r) => ({ ...r, portfolio_id: Number(r.portfolio_id) }));
}

export async function setUnitsOutstanding(trx: Trx, valuationId: number, portfolioId: number, units: string): Promise<void> {
  await trx.updateTable('portfolio_valuations').set({ units_outstanding: units }).where('valuation_id', '=', valuationId).where('portfolio_id', '=', portfolioId).execute();
}

/** Each portfolio's latest unit price of a finished valuation, with the prices and time it was valued at. */
export async function latestUnitPrices(
  db: Db | Trx,
  portfolioIds: readonly number[],
): Promise<Map<number, { unit_price: string; prices: string; at: string; units_outstanding: string }>> {
  const out = new Map<number, { unit_price: string; prices: string; at: string; units_outstanding: string }>();
  for (const id of portfolioIds) {
    const row = await db
      .selectFrom('portfolio_valuations as pv')
      .innerJoin('valuations as v', 'v.id', 'pv.valuation_id')
      .select(['pv.unit_price', 'pv.prices', 'v.at', 'pv.units_outstanding'])
      .where('pv.portfolio_id', '=', id)
      .where('v.stage', '=', 'done')
      .orderBy('pv.valuation_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row !== undefined) out.set(id, row);
  }
  return out;
}
