// SQL of what funds hold and chose (rules §19): allocations, units, exchanges
// and investments waiting for a valuation, and each valuation's record per fund.
import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { ExchangesTable, FundAllocationsTable, FundUnitsTable, FundValuationsTable, InvestmentsTable } from '../../db/schema.investing.ts';
import type { Book } from '../../shared/book.ts';
import { columnNames, idsIn, insertRows, statement, type Statement } from '../../db/bulk.ts';
import { dialectOf } from '../../db/dialect.ts';
import { parse8 } from '../../shared/fixed.ts';
import { assert } from '../../shared/assert.ts';

export type AllocationRow = Selectable<FundAllocationsTable>;
export type UnitsRow = Selectable<FundUnitsTable>;
export type ExchangeRow = Selectable<ExchangesTable>;
export type InvestmentRow = Selectable<InvestmentsTable>;
export type FundValuationRow = Selectable<FundValuationsTable>;

export async function allocationOf(db: Db | Trx, fundId: number): Promise<AllocationRow | undefined> {
  return await db.selectFrom('fund_allocations').selectAll().where('fund_id', '=', fundId).executeTakeFirst();
}

export async function setAllocation(trx: Trx, row: AllocationRow): Promise<void> {
  await trx
    .insertInto('fund_allocations')
    .values(row)
    .onConflict((oc) => oc.column('fund_id').doUpdateSet({ portfolio_id: row.portfolio_id, invest_share: row.invest_share, updated_at: row.updated_at }))
    .execute();
}

export async function unitsOf(db: Db | Trx, fundId: number): Promise<UnitsRow | undefined> {
  return await db.selectFrom('fund_units').selectAll().where('fund_id', '=', fundId).executeTakeFirst();
}

/** The fund's units of a portfolio; none (a row removed) when `units` is null. */
export async function setUnits(trx: Trx, fundId: number, held: { portfolio_id: number; units: string } | null): Promise<void> {
  if (held === null) {
    await trx.deleteFrom('fund_units').where('fund_id', '=', fundId).execute();
    return;
  }
  await trx
    .insertInto('fund_units')
    .values({ fund_id: fundId, ...held })
    .onConflict((oc) => oc.column('fund_id').doUpdateSet(held))
    .execute();
}

export async function pendingExchange(db: Db | Trx, fundId: number): Promise<ExchangeRow | undefined> {
  return await db.selectFrom('exchanges').selectAll().where('fund_id', '=', fundId).where('status', '=', 'pending').executeTakeFirst();
}

/** Ends the fund's pending exchange (cancelled, or executed at a valuation); false when it had none. */
export async function endExchange(trx: Trx, fundId: number, status: 'cancelled' | 'executed', at: string, valuationId: number | null): Promise<boolean> {
  const result = await trx
    .updateTable('exchanges')
    .set({ status, done_at: at, valuation_id: valuationId })
    .where('fund_id', '=', fundId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertExchange(trx: Trx, row: { fund_id: number; to_portfolio_id: number | null; created_at: string; actor_id: number | null }): Promise<number> {
  return Number(
    (
      await trx
        .insertInto('exchanges')
        .values({ ...row, status: 'pending', done_at: null, valuation_id: null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
  );
}

export async function insertInvestment(
  trx: Trx,
  row: { fund_id: number; contribution_id: number | null; amount_cents: number; created_at: string; actor_id?: string },
): Promise<void> {
  await trx
    .insertInto('investments')
    .values({ ...row, status: 'pending', bought_cents: null, valuation_id: null })
    .execute();
}

/** The funds' pending investments, oldest first; `lock`: locked against being cancelled meanwhile (PostgreSQL). */
export async function pendingInvestments(db: Db | Trx, fundIds: readonly number[], lock = false): Promise<InvestmentRow[]> {
  if (fundIds.length === 0) return [];
  const query = db
    .selectFrom('investments')
    .selectAll()
    .where('status', '=', 'pending')
    .where(sql<boolean>`fund_id in ${idsIn(db, fundIds, 'fund id')}`)
    .orderBy('id');
  return await (lock ? dialectOf(db).lockRows(query) : query).execute();
}

export async function endInvestment(trx: Trx, id: number, change: { status: 'executed' | 'cancelled'; bought_cents: number; valuation_id: number }): Promise<void> {
  await trx.updateTable('investments').set(change).where('id', '=', id).where('status', '=', 'pending').execute();
}

/** What the fund's pending investments of money it already held add up to. */
export async function pendingHeldInvestments(db: Db | Trx, fundId: number): Promise<number> {
  const row = await db
    .selectFrom('investments')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), eb.lit(0)).as('cents'))
    .where('fund_id', '=', fundId)
    .where('status', '=', 'pending')
    .where('contribution_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.cents);
}

/** The lowest `limit` fund ids of several pages of them (each already its lowest), once each. */
function firstFunds(pages: ReadonlyArray<ReadonlyArray<{ fund_id: number | null }>>, limit: number): number[] {
  return [...new Set(pages.flat().map((r) => Number(r.fund_id)))].sort((a, b) => a - b).slice(0, limit);
}

/** The next funds (ids after `after`) a valuation acts on: holding units, or with an exchange or investment waiting. */
export async function fundsToValue(db: Db | Trx, after: number, limit: number): Promise<number[]> {
  const [held, exchanging, investing] = await Promise.all([
    db.selectFrom('fund_units').select('fund_id').where('fund_id', '>', after).orderBy('fund_id').limit(limit).execute(),
    db.selectFrom('exchanges').select('fund_id').where('status', '=', 'pending').where('fund_id', '>', after).orderBy('fund_id').limit(limit).execute(),
    db.selectFrom('investments').select('fund_id').where('status', '=', 'pending').where('fund_id', '>', after).orderBy('fund_id').limit(limit).execute(),
  ]);
  return firstFunds([held, exchanging, investing], limit);
}

/**
 * What a valuation needs of these funds: their units, allocations and pending exchanges; `lock`: the
 * exchanges locked against being cancelled meanwhile (PostgreSQL).
 */
export async function holdingsOf(db: Db | Trx, fundIds: readonly number[], lock = false) {
  if (fundIds.length === 0) return { units: new Map<number, UnitsRow>(), allocations: new Map<number, AllocationRow>(), exchanges: new Map<number, ExchangeRow>() };
  const [units, allocations, exchanges] = await Promise.all([
    db
      .selectFrom('fund_units')
      .selectAll()
      .where(sql<boolean>`fund_id in ${idsIn(db, fundIds, 'fund id')}`)
      .execute(),
    db
      .selectFrom('fund_allocations')
      .selectAll()
      .where(sql<boolean>`fund_id in ${idsIn(db, fundIds, 'fund id')}`)
      .execute(),
    (lock ? dialectOf(db).lockRows(pendingExchanges(db, fundIds)) : pendingExchanges(db, fundIds)).execute(),
  ]);
  return {
    units: new Map(units.map((u) => [Number(u.fund_id), u])),
    allocations: new Map(allocations.map((a) => [Number(a.fund_id), a])),
    exchanges: new Map(exchanges.map((e) => [Number(e.fund_id), e])),
  };
}

const pendingExchanges = (db: Db | Trx, fundIds: readonly number[]) =>
  db
    .selectFrom('exchanges')
    .selectAll()
    .where('status', '=', 'pending')
    .where(sql<boolean>`fund_id in ${idsIn(db, fundIds, 'fund id')}`);

/** What a valuation reads of a fund whose available money stays: its book, and its available and portfolio accounts. */
export interface StillAccounts {
  book: Book;
  ids: { available: number; portfolio: number };
  balances: { available_cents: number; portfolio_cents: number };
}

/**
 * The available and portfolio accounts of each fund, not locked: a valuation's read of the funds
 * whose available money stays (their other accounts, half the rows, it does not need).
 */
export async function stillAccounts(db: Db | Trx, fundIds: readonly number[]): Promise<Map<number, StillAccounts>> {
  if (fundIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('ledger_accounts')
    .select(['id', 'kind', 'balance_cents', 'book', 'fund_id'])
    .where(sql<boolean>`fund_id in ${idsIn(db, fundIds, 'fund id')}`)
    .where('kind', 'in', ['available', 'portfolio'])
    .execute();
  const out = new Map<number, StillAccounts>();
  for (const r of rows) {
    const fundId = Number(r.fund_id);
    let fund = out.get(fundId);
    if (fund === undefined) out.set(fundId, (fund = { book: r.book as Book, ids: { available: 0, portfolio: 0 }, balances: { available_cents: 0, portfolio_cents: 0 } }));
    const kind = r.kind as 'available' | 'portfolio';
    fund.ids[kind] = Number(r.id);
    fund.balances[`${kind}_cents`] = Number(r.balance_cents);
  }
  for (const [fundId, fund] of out) assert(fund.ids.available > 0 && fund.ids.portfolio > 0, `fund ${fundId} has its available and portfolio accounts`);
  return out;
}

/** Each fund's donations waiting for funds, their amounts in cents, oldest first (what selling units covers). */
export async function waitingDonations(db: Db | Trx, fundIds: readonly number[]): Promise<Map<number, number[]>> {
  if (fundIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('donations')
    .select(['fund_id', 'amount_cents'])
    .where('status', '=', 'waiting_for_funds')
    .where(sql<boolean>`fund_id in ${idsIn(db, fundIds, 'fund id')}`)
    .orderBy('fund_id')
    .orderBy('id')
    .execute();
  const out = new Map<number, number[]>();
  for (const r of rows) {
    const list = out.get(Number(r.fund_id));
    if (list === undefined) out.set(Number(r.fund_id), [Number(r.amount_cents)]);
    else list.push(Number(r.amount_cents));
  }
  return out;
}

export async function insertFundValuations(trx: Trx, rows: readonly FundValuationRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200)
    await trx
      .insertInto('fund_valuations')
      .values(rows.slice(i, i + 200))
      .execute();
}

/** Every fund's units (for the check and the units outstanding), a page at a time by fund id. */
export async function unitsPage(db: Db | Trx, after: number, limit: number): Promise<UnitsRow[]> {
  return await db.selectFrom('fund_units').selectAll().where('fund_id', '>', after).orderBy('fund_id').limit(limit).execute();
}

/** The records of a valuation per fund (the check re-derives each fee from them). */
export async function fundValuationsOf(db: Db | Trx, valuationId: number): Promise<FundValuationRow[]> {
  return await db.selectFrom('fund_valuations').selectAll().where('valuation_id', '=', valuationId).orderBy('fund_id').execute();
}

/** The funds that paid a valuation's monthly fee partly from their units. */
export async function paidFeeFromUnits(db: Db | Trx, valuationId: number): Promise<Set<number>> {
  const rows = await db.selectFrom('monthly_fees').select(['fund_id', 'from_units']).where('valuation_id', '=', valuationId).execute();
  return new Set(rows.filter((r) => parse8(r.from_units) !== 0n).map((r) => Number(r.fund_id)));
}

/** Each fund's portfolio account balance. */
export async function portfolioBalances(db: Db | Trx, fundIds: readonly number[]): Promise<Map<number, number>> {
  if (fundIds.length === 0) return new Map();
  const rows = await db.selectFrom('ledger_accounts').select(['fund_id', 'balance_cents']).where('kind', '=', 'portfolio').where('fund_id', 'in', fundIds).execute();
  return new Map(rows.map((r) => [Number(r.fund_id), Number(r.balance_cents)]));
}

/** Per book: the fees every valuation recorded (the annual fee's and the monthly), and the fees account's balance. */
export async function feeTotals(db: Db | Trx): Promise<Array<{ book: string; recorded: number; posted: number }>> {
  const annual = await db
    .selectFrom('fund_valuations')
    .select(['book', (eb) => eb.fn.sum<string>('fee_cents').as('total')])
    .groupBy('book')
    .execute();
  const monthly = await db
    .selectFrom('monthly_fees')
    .select(['book', (eb) => eb.fn.sum<string>('cents').as('total')])
    .groupBy('book')
    .execute();
  const recorded = [...annual, ...monthly];
  const posted = await db.selectFrom('ledger_accounts').select(['book', 'balance_cents']).where('fund_id', 'is', null).where('kind', '=', 'fees').execute();
  const books = new Set([...recorded.map((r) => r.book), ...posted.map((p) => p.book)]);
  return [...books].sort().map((book) => ({
    book,
    recorded: recorded.filter((r) => r.book === book).reduce((n, r) => n + Number(r.total ?? 0), 0),
    posted: Number(posted.find((p) => p.book === book)?.balance_cents ?? 0),
  }));
}

/** The statements that set funds' units ([fund, portfolio, units]) and remove the units of funds left with none. */
export function unitsStatements(rows: ReadonlyArray<readonly [number, number, string]>, emptied: readonly number[]): Statement[] {
  return [
    ...insertRows(
      'fund_units',
      'fund_id bigint, portfolio_id bigint, units text',
      rows,
      'on conflict (fund_id) do update set portfolio_id = excluded.portfolio_id, units = excluded.units',
    ),
    ...(emptied.length === 0 ? [] : [statement((v) => `delete from fund_units where fund_id in (${emptied.map((id) => v(id)).join(',')})`)]),
  ];
}

/** The columns of a fund's valuation record, with their types in the table (bulk.ts insertRows). */
const FUND_VALUATION_TYPES =
  'valuation_id bigint, fund_id bigint, book text, portfolio_id bigint, units text, value_cents bigint, fee_basis_units text, fee_ms bigint, fee_bps integer, fee_units text, fee_cents bigint, gain_cents bigint, bought_cents bigint, sold_cents bigint';
const FUND_VALUATION_COLUMNS = columnNames(FUND_VALUATION_TYPES) as ReadonlyArray<keyof FundValuationRow>;

/** The statements that record what a valuation did to these funds. */
export function fundValuationStatements(rows: readonly FundValuationRow[]): Statement[] {
  return insertRows(
    'fund_valuations',
    FUND_VALUATION_TYPES,
    rows.map((r) => FUND_VALUATION_COLUMNS.map((c) => r[c])),
  );
}

/** A fund's value at its latest valuations (at most `limit`), oldest first: its chart. */
export async function valueHistory(db: Db | Trx, fundId: number, limit: number): Promise<Array<{ at: string; value_cents: number; units: string }>> {
  const rows = await db
    .selectFrom('fund_valuations as f')
    .innerJoin('valuations as v', 'v.id', 'f.valuation_id')
    .select(['v.at', 'f.value_cents', 'f.units'])
    .where('f.fund_id', '=', fundId)
    .orderBy('f.valuation_id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map((r) => ({ at: r.at, value_cents: Number(r.value_cents), units: r.units }));
}

/** A fund's gains (net of losses) and fees (the annual fee's and the monthly) over the valuations in [start, end), in cents. */
export async function valuationTotals(db: Db | Trx, fundId: number, start: string, end: string): Promise<{ gains: number; fees: number }> {
  const row = await db
    .selectFrom('fund_valuations as f')
    .innerJoin('valuations as v', 'v.id', 'f.valuation_id')
    .select([(eb) => eb.fn.sum<string>('f.gain_cents').as('gains'), (eb) => eb.fn.sum<string>('f.fee_cents').as('fees')])
    .where('f.fund_id', '=', fundId)
    .where('v.at', '>=', start)
    .where('v.at', '<', end)
    .executeTakeFirst();
  const monthly = await db
    .selectFrom('monthly_fees as m')
    .innerJoin('valuations as v', 'v.id', 'm.valuation_id')
    .select((eb) => eb.fn.sum<string>('m.cents').as('fees'))
    .where('m.fund_id', '=', fundId)
    .where('v.at', '>=', start)
    .where('v.at', '<', end)
    .executeTakeFirst();
  return { gains: Number(row?.gains ?? 0), fees: Number(row?.fees ?? 0) + Number(monthly?.fees ?? 0) };
}

/** The next funds (ids after `after`) a monthly fee is charged to: those with available money or units. */
export async function fundsWithMoney(db: Db | Trx, after: number, limit: number): Promise<number[]> {
  const [cash, held] = await Promise.all([
    db
      .selectFrom('ledger_accounts')
      .select('fund_id')
      .where('kind', '=', 'available')
      .where('balance_cents', '>', 0)
      .where('fund_id', '>', after)
      .orderBy('fund_id')
      .limit(limit)
      .execute(),
    db.selectFrom('fund_units').select('fund_id').where('fund_id', '>', after).orderBy('fund_id').limit(limit).execute(),
  ]);
  return firstFunds([cash, held], limit);
}

/** The statements that record the monthly fees charged at a valuation. */
export function monthlyFeeStatements(rows: ReadonlyArray<{ valuation_id: number; fund_id: number; book: string; cents: number; from_units: string }>): Statement[] {
  return insertRows(
    'monthly_fees',
    'valuation_id bigint, fund_id bigint, book text, cents bigint, from_units text',
    rows.map((r) => [r.valuation_id, r.fund_id, r.book, r.cents, r.from_units]),
  );
}
