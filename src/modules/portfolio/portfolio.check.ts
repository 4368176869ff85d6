// What `almoner check` proves of investing (docs/rules.md §19): each fund's
// units × its portfolio's last unit price is its portfolio balance; each
// portfolio's units outstanding are its funds' units; every fee of the last
// valuation is the accrual formula's, and the fees posted are the fees recorded.
import type { Db } from '../../db/database.ts';
import { parse8, valueCents } from '../../shared/fixed.ts';
import { feeUnits } from './unit-price.ts';
import * as holdings from './holdings.store.ts';
import * as store from './portfolio.store.ts';

const PAGE = 2_000;

export async function investingProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const portfolios = await store.listPortfolios(db, false);
  const latest = await store.latestUnitPrices(
    db,
    portfolios.map((p) => Number(p.id)),
  );
  const held = new Map<number, bigint>();
  for (let after = 0; ;) {
    const page = await holdings.unitsPage(db, after, PAGE);
    if (page.length === 0) break;
    after = Number((page[page.length - 1] as holdings.UnitsRow).fund_id);
    const balances = await holdings.portfolioBalances(
      db,
      page.map((u) => Number(u.fund_id)),
    );
    for (const u of page) {
      const portfolio = Number(u.portfolio_id);
      const units = parse8(u.units) as bigint;
      held.set(portfolio, (held.get(portfolio) ?? 0n) + units);
      const price = latest.get(portfolio);
      const balance = balances.get(Number(u.fund_id)) ?? 0;
      const value = price === undefined ? null : Number(valueCents(units, parse8(price.unit_price) as bigint));
      if (value !== balance)
        problems.push(
          `fund ${u.fund_id}: ${u.units} units of portfolio ${portfolio} at ${price?.unit_price ?? 'no price'} are ${value ?? '?'} cents, but its portfolio balance is ${balance}`,
        );
    }
  }
  for (const [id, last] of latest) {
    const sum = held.get(id) ?? 0n;
    if (sum !== (parse8(last.units_outstanding) as bigint))
      problems.push(`portfolio ${id}: its funds hold ${sum} units (× 10^-8), its last valuation says ${last.units_outstanding} are outstanding`);
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
