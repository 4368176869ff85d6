// What a valuation does to each fund (docs/rules.md §19), in its transaction:
// units marked to the new unit price (the gain or loss posted against the
// portfolio's market account), the fee taken from units, a pending exchange
// made, units sold to cover waiting donations, investments bought, and the
// portfolio account left at exactly units × unit price, rounded once.
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { assertSafeInteger } from '../../shared/assert.ts';
import { decimalText, parse8, unitsFor, valueCents } from '../../shared/fixed.ts';
import { lockFundsAccounts, postingEntryStatements, reserveEntryIds, type EntryCause, type Movement } from '../ledger/index.ts';
import { runStatements } from '../../db/bulk.ts';
import { promoteWaiting } from '../donations/index.ts';
import { feeUnits } from './portfolios.ts';
import { chosenPortfolio } from './allocation.service.ts';
import * as holdings from './holdings.store.ts';

const FUNDS_PER_ROUND = 2_000;

export interface ValuedPortfolio {
  price: bigint;
  feeBps: number;
}

export interface ValuationContext {
  id: number;
  at: string;
  /** The time since the valuation before (0 at the first): the fee's period. */
  feeMs: bigint;
  /** The valuation's audit entry in each book. */
  auditIds: Record<Book, number>;
  portfolios: ReadonlyMap<number, ValuedPortfolio>;
}

/** Values every fund that holds units or waits to exchange or invest; returns each portfolio's units outstanding. */
export async function valueFunds(trx: Trx, v: ValuationContext): Promise<Map<number, bigint>> {
  const outstanding = new Map<number, bigint>([...v.portfolios.keys()].map((id) => [id, 0n]));
  const accounts = new Map<string, number>();
  const account = async (kind: string, book: Book) => {
    const key = `${book} ${kind}`;
    let id = accounts.get(key);
    if (id === undefined) {
      id = await holdings.outsideAccount(trx, kind, book);
      accounts.set(key, id);
    }
    return id;
  };
  let after = 0;
  for (;;) {
    const fundIds = await holdings.fundsToValue(trx, after, FUNDS_PER_ROUND);
    if (fundIds.length === 0) break;
    after = fundIds[fundIds.length - 1] as number;
    const [held, investments, waiting] = await Promise.all([holdings.holdingsOf(trx, fundIds), holdings.pendingInvestments(trx, fundIds), holdings.waitingDonations(trx, fundIds)]);
    const investing = Map.groupBy(investments, (i) => Number(i.fund_id));
    // Only a fund whose available money may move (an exchange, an investment, waiting donations) is
    // locked against its donor's requests; the others' portfolio accounts move only at valuations,
    // which run one at a time (the 'valuation' key).
    const moving = fundIds.filter((id) => held.exchanges.has(id) || investing.has(id) || waiting.has(id));
    const still = fundIds.filter((id) => !held.exchanges.has(id) && !investing.has(id) && !waiting.has(id));
    const [lockedMoving, readStill] = [await lockFundsAccounts(trx, moving), await lockFundsAccounts(trx, still, { lock: false })];
    const locked = new Map([...lockedMoving, ...readStill]);
    const records: holdings.FundValuationRow[] = [];
    // A round's writes go together: one journal entry per book (each account's net change in the
    // round: each fund's portfolio and available, the market accounts' and the fees' totals), the
    // units and the records, in one batch of statements.
    const net = new Map<Book, Map<number, number>>();
    const unitRows: Array<[number, number, string]> = [];
    const emptied: number[] = [];
    const promoted: number[] = [];
    for (const fundId of fundIds) {
      const fund = locked.get(fundId);
      if (fund === undefined) continue;
      const { book, ids } = fund;
      let available = fund.balances.available_cents;
      let value = fund.balances.portfolio_cents;
      const units = held.units.get(fundId);
      let portfolio = units === undefined ? null : Number(units.portfolio_id);
      let count = units === undefined ? 0n : (parse8(units.units) as bigint);
      const movements: Movement[] = [];
      let gain = 0;
      const mark = async () => {
        if (portfolio === null) return;
        const target = Number(valueCents(count, (v.portfolios.get(portfolio) as ValuedPortfolio).price));
        const market = await account(`market:${portfolio}`, book);
        if (target > value) movements.push({ from_account_id: market, to_account_id: ids.portfolio, amount_cents: target - value });
        if (target < value) movements.push({ from_account_id: ids.portfolio, to_account_id: market, amount_cents: value - target });
        gain += target - value;
        value = target;
      };
      // 1. The units at the new price; then the fee, from units.
      await mark();
      const feeBasis = count;
      const bps = portfolio === null ? 0 : (v.portfolios.get(portfolio) as ValuedPortfolio).feeBps;
      const fee = portfolio === null ? 0n : feeUnits(count, bps, v.feeMs);
      let feeCents = 0;
      if (fee > 0n && portfolio !== null) {
        count -= fee;
        feeCents = Number(valueCents(fee, (v.portfolios.get(portfolio) as ValuedPortfolio).price));
        if (feeCents > 0) {
          movements.push({ from_account_id: ids.portfolio, to_account_id: await account('fees', book), amount_cents: feeCents });
          value -= feeCents;
        }
        await mark();
      }
      // 2. An exchange: to cash (every unit sold), or into another portfolio at its price.
      let sold = 0;
      const exchange = held.exchanges.get(fundId);
      const chosen = chosenPortfolio(held.allocations.get(fundId));
      if (exchange !== undefined) {
        const to = exchange.to_portfolio_id === null ? null : Number(exchange.to_portfolio_id);
        if (to === null && value > 0) {
          movements.push({ from_account_id: ids.portfolio, to_account_id: ids.available, amount_cents: value });
          available += value;
          sold += value;
          value = 0;
        }
        if (to === null) {
          portfolio = null;
          count = 0n;
        } else if (to !== portfolio && v.portfolios.has(to)) {
          portfolio = to;
          count = unitsFor(BigInt(value), (v.portfolios.get(to) as ValuedPortfolio).price);
          await mark();
        }
        await holdings.endExchange(trx, fundId, 'executed', v.at, v.id);
      } else if (portfolio === null && chosen !== null && value > 0 && v.portfolios.has(chosen)) {
        // Money put in the portfolio by hand before the fund chose one becomes its units.
        portfolio = chosen;
        count = unitsFor(BigInt(value), (v.portfolios.get(portfolio) as ValuedPortfolio).price);
        await mark();
      }
      // 3. Units sold for the waiting donations the fund's money covers, oldest first, each that
      // fits (as promotion picks them: a large one does not stop smaller, younger ones).
      const waitingNow = waiting.get(fundId) ?? [];
      const owed = waitingNow.reduce((n, w) => n + w, 0);
      let covered = 0;
      for (const w of waitingNow) if (covered + w <= available + value) covered += w;
      if (portfolio !== null && covered > available && value > 0) {
        const need = Math.min(covered - available, value);
        const price = (v.portfolios.get(portfolio) as ValuedPortfolio).price;
        const units = need === value ? count : unitsFor(BigInt(need), price) > count ? count : unitsFor(BigInt(need), price);
        movements.push({ from_account_id: ids.portfolio, to_account_id: ids.available, amount_cents: need });
        available += need;
        value -= need;
        sold += need;
        count -= units;
        await mark();
      }
      // 4. Investments: as much of each as available holds beyond what waiting donations need.
      let bought = 0;
      const target = chosen;
      for (const investment of investing.get(fundId) ?? []) {
        const spare = Math.max(0, available - owed);
        const amount = target === null || (portfolio !== null && portfolio !== target) || !v.portfolios.has(target) ? 0 : Math.min(Number(investment.amount_cents), spare);
        if (amount > 0 && target !== null) {
          movements.push({ from_account_id: ids.available, to_account_id: ids.portfolio, amount_cents: amount });
          available -= amount;
          value += amount;
          bought += amount;
          portfolio = target;
          count += unitsFor(BigInt(amount), (v.portfolios.get(target) as ValuedPortfolio).price);
        }
        await holdings.endInvestment(trx, Number(investment.id), { status: amount > 0 ? 'executed' : 'cancelled', bought_cents: amount, valuation_id: v.id });
      }
      await mark();
      assertSafeInteger(value, 'portfolio value');
      if (portfolio !== null && count === 0n) portfolio = null;
      if (portfolio === null) {
        if (units !== undefined) emptied.push(fundId);
      } else {
        unitRows.push([fundId, portfolio, decimalText(count)]);
        outstanding.set(portfolio, (outstanding.get(portfolio) ?? 0n) + count);
      }
      for (const m of movements) {
        let deltas = net.get(book);
        if (deltas === undefined) net.set(book, (deltas = new Map()));
        deltas.set(m.from_account_id, (deltas.get(m.from_account_id) ?? 0) - m.amount_cents);
        deltas.set(m.to_account_id, (deltas.get(m.to_account_id) ?? 0) + m.amount_cents);
      }
      if (sold > 0) promoted.push(fundId);
      records.push({
        valuation_id: v.id,
        fund_id: fundId,
        book,
        portfolio_id: portfolio,
        units: decimalText(count),
        value_cents: value,
        fee_basis_units: decimalText(feeBasis),
        fee_ms: Number(v.feeMs),
        fee_bps: bps,
        fee_units: decimalText(fee),
        fee_cents: feeCents,
        gain_cents: gain,
        bought_cents: bought,
        sold_cents: sold,
      });
    }
    const entries = [...net].flatMap(([book, deltas]) => {
      const postings = [...deltas].filter(([, cents]) => cents !== 0).map(([account_id, amount_cents]) => ({ account_id, amount_cents }));
      return postings.length === 0 ? [] : [{ cause: { book, memo: `valuation ${v.id}`, audit_id: v.auditIds[book] } satisfies EntryCause, postings }];
    });
    const entryIds = await reserveEntryIds(trx, entries.length);
    await runStatements(trx, [
      ...postingEntryStatements(
        entries.map((e, i) => ({ ...e, id: entryIds[i] as number })),
        v.at,
      ),
      ...holdings.unitsStatements(unitRows, emptied),
      ...holdings.fundValuationStatements(records),
    ]);
    // Money sold into available covers waiting donations, oldest first, once the round's balances are written.
    for (const fundId of promoted) await promoteWaiting(trx, fundId, v.at);
  }
  return outstanding;
}

/**
 * The flat monthly fee (FUND_MONTHLY_FEE_CENTS) at the month's first valuation, before the funds
 * are valued: each fund with money pays it from its available money, and what that lacks from its
 * units at the new unit price (as much as they are worth). Posted to the book's fees account,
 * recorded per fund in `monthly_fees`.
 */
export async function chargeMonthlyFees(trx: Trx, v: ValuationContext, feeCents: number): Promise<void> {
  const feeAccounts = new Map<Book, number>();
  for (let after = 0; ;) {
    const fundIds = await holdings.fundsWithMoney(trx, after, FUNDS_PER_ROUND);
    if (fundIds.length === 0) break;
    after = fundIds[fundIds.length - 1] as number;
    const [locked, held] = await Promise.all([lockFundsAccounts(trx, fundIds), holdings.holdingsOf(trx, fundIds)]);
    const net = new Map<Book, Map<number, number>>();
    const rows: Array<{ valuation_id: number; fund_id: number; book: string; cents: number; from_units: string }> = [];
    const unitRows: Array<[number, number, string]> = [];
    for (const fundId of fundIds) {
      const fund = locked.get(fundId);
      if (fund === undefined) continue;
      const { book, ids } = fund;
      const fromAvailable = Math.min(feeCents, fund.balances.available_cents);
      let fromPortfolio = 0;
      let sold = 0n;
      const units = held.units.get(fundId);
      const priced = units === undefined ? undefined : v.portfolios.get(Number(units.portfolio_id));
      if (units !== undefined && priced !== undefined && fromAvailable < feeCents) {
        const count = parse8(units.units) as bigint;
        const worth = Number(valueCents(count, priced.price));
        fromPortfolio = Math.min(feeCents - fromAvailable, fund.balances.portfolio_cents, worth);
        const wanted = unitsFor(BigInt(fromPortfolio), priced.price);
        sold = fromPortfolio === worth || wanted > count ? count : wanted;
        // A fund left with no units keeps its row until the valuation empties it (and its account).
        unitRows.push([fundId, Number(units.portfolio_id), decimalText(count - sold)]);
      }
      if (fromAvailable + fromPortfolio === 0) continue;
      let deltas = net.get(book);
      if (deltas === undefined) net.set(book, (deltas = new Map()));
      let fee = feeAccounts.get(book);
      if (fee === undefined) feeAccounts.set(book, (fee = await holdings.outsideAccount(trx, 'fees', book)));
      if (fromAvailable > 0) deltas.set(ids.available, (deltas.get(ids.available) ?? 0) - fromAvailable);
      if (fromPortfolio > 0) deltas.set(ids.portfolio, (deltas.get(ids.portfolio) ?? 0) - fromPortfolio);
      deltas.set(fee, (deltas.get(fee) ?? 0) + fromAvailable + fromPortfolio);
      rows.push({ valuation_id: v.id, fund_id: fundId, book, cents: fromAvailable + fromPortfolio, from_units: decimalText(sold) });
    }
    const entries = [...net].map(([book, deltas]) => ({
      cause: { book, memo: `valuation ${v.id}: monthly fee`, audit_id: v.auditIds[book] } satisfies EntryCause,
      postings: [...deltas].filter(([, cents]) => cents !== 0).map(([account_id, amount_cents]) => ({ account_id, amount_cents })),
    }));
    const entryIds = await reserveEntryIds(trx, entries.length);
    await runStatements(trx, [
      ...postingEntryStatements(
        entries.map((e, i) => ({ ...e, id: entryIds[i] as number })),
        v.at,
      ),
      ...holdings.unitsStatements(unitRows, []),
      ...holdings.monthlyFeeStatements(rows),
    ]);
  }
}
