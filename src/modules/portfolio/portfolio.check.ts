// What `almoner check` proves of investing (docs/rules.md §19): each fund's
// units × its portfolio's unit price is its portfolio balance (the price it is
// valued at so far, while a valuation runs); each portfolio's units outstanding
// are its funds' units; every fee of the last valuation is the accrual
// formula's, and the fees posted are the fees recorded.
import type { Db } from '../../db/database.ts';
import { parse8, valueCents } from '../../shared/fixed.ts';
import { feeUnits } from './unit-price.ts';
import * as holdings from './holdings.store.ts';
import * as store from './portfolio.store.ts';

const PAGE = 2_000;

/**
 * The unit price each fund is at: a running valuation's for the funds its rounds have valued, the
 * last finished valuation's for the others. A fund that paid the running valuation's monthly fee
 * from its units, and is still to be valued by it, is at neither (undefined: not checked until then).
 */
async function pricesOfFunds(db: Db) {
  const portfolios = await store.listPortfolios(db, false);
  const latest = await store.latestUnitPrices(
    db,
    portfolios.map((p) => Number(p.id)),
  );
  const running = await store.runningValuation(db);
  if (running === undefined) return { latest, running, priceOf: (_fund: number, portfolio: number) => latest.get(portfolio)?.unit_price };
  const now = new Map((await store.portfolioValuationsOf(db, Number(running.id))).map((p) => [p.portfolio_id, p]));
  const paidFromUnits = await holdings.paidFeeFromUnits(db, Number(running.id));
  const valued = (fund: number) => running.stage === 'funds' && fund <= running.after_fund_id;
  return {
    latest,
    running,
    now,
    valued,
    priceOf: (fund: number, portfolio: number) =>
      valued(fund) ? now.get(portfolio)?.unit_price : paidFromUnits.has(fund) ? undefined : (latest.get(portfolio)?.unit_price ?? 'none'),
  };
}

export async function investingProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const prices = await pricesOfFunds(db);
  // Units per portfolio: of every fund, and of the funds a running valuation has valued.
  const held = new Map<number, bigint>();
  const heldValued = new Map<number, bigint>();
  for (let after = 0; ;) {
    const page = await holdings.unitsPage(db, after, PAGE);
    if (page.length === 0) break;
    after = Number((page[page.length - 1] as holdings.UnitsRow).fund_id);
    const balances = await holdings.portfolioBalances(
      db,
      page.map((u) => Number(u.fund_id)),
    );
    for (const u of page) {
      const [fund, portfolio] = [Number(u.fund_id), Number(u.portfolio_id)];
      const units = parse8(u.units) as bigint;
      held.set(portfolio, (held.get(portfolio) ?? 0n) + units);
      if (prices.valued?.(fund) === true) heldValued.set(portfolio, (heldValued.get(portfolio) ?? 0n) + units);
      const price = prices.priceOf(fund, portfolio);
      if (price === undefined) continue;
      const balance = balances.get(fund) ?? 0;
      const value = price === 'none' ? null : Number(valueCents(units, parse8(price) as bigint));
      if (value !== balance)
        problems.push(
          `fund ${fund}: ${u.units} units of portfolio ${portfolio} at ${price === 'none' ? 'no price' : price} are ${value ?? '?'} cents, but its portfolio balance is ${balance}`,
        );
    }
  }
  // The units outstanding: the last finished valuation's are every fund's, unless one runs; a
  // running one's so far are those of the funds its rounds have valued.
  const outstanding =
    prices.running === undefined
      ? [...prices.latest].map(([id, last]) => ({ id, said: last.units_outstanding, sum: held.get(id) ?? 0n, whose: 'its funds', by: 'its last valuation' }))
      : [...(prices.now ?? [])].map(([id, p]) => ({
          id,
          said: p.units_outstanding,
          sum: heldValued.get(id) ?? 0n,
          whose: 'the funds valued so far',
          by: `the running valuation ${String(prices.running?.id)}`,
        }));
  for (const o of outstanding) {
    if (o.sum !== (parse8(o.said) as bigint)) problems.push(`portfolio ${o.id}: ${o.whose} hold ${o.sum} units (× 10^-8), ${o.by} says ${o.said} are outstanding`);
  }
  const last = await store.lastValuation(db);
  if (last !== undefined) {
    for (const r of await holdings.fundValuationsOf(db, last.id)) {
      const expected = feeUnits(parse8(r.fee_basis_units) as bigint, r.fee_bps, BigInt(r.fee_ms));
      if (expected !== (parse8(r.fee_units) as bigint))
        problems.push(`fund ${r.fund_id}: valuation ${r.valuation_id} took ${r.fee_units} units in fees, the formula gives ${expected} (× 10^-8)`);
    }
  }
  for (const t of await holdings.feeTotals(db)) {
    if (t.recorded !== t.posted) problems.push(`the ${t.book} book's fees account holds ${t.posted} cents, its valuations recorded ${t.recorded}`);
  }
  return problems;
}
