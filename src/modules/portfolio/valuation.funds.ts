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
import { runStatements, type Statement } from '../../db/bulk.ts';
import { covered, promoteWaiting } from '../donations/index.ts';
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

/** The units that `cents` take from a holding of `count` units worth `worth`: all of them for its whole worth, else as many as the cents buy, at most all. */
function unitsToSell(cents: number, worth: number, count: bigint, price: bigint): bigint {
  if (cents === worth) return count;
  const wanted = unitsFor(BigInt(cents), price);
  return wanted > count ? count : wanted;
}

/**
 * A round's journal: each account's net change per book, written as one entry per book (a fund's
 * portfolio and available, the market accounts' and the fees' totals), and the outside accounts
 * it posts to, each looked up (or made) once.
 */
class RoundJournal {
  readonly #trx: Trx;
  readonly #outside = new Map<string, number>();
  #net = new Map<Book, Map<number, number>>();

  constructor(trx: Trx) {
    this.#trx = trx;
  }

  /** An outside account of the book by its kind (a portfolio's market account, the fees). */
  async outside(kind: string, book: Book): Promise<number> {
    const key = `${book} ${kind}`;
    let id = this.#outside.get(key);
    if (id === undefined) this.#outside.set(key, (id = await holdings.outsideAccount(this.#trx, kind, book)));
    return id;
  }

  move(book: Book, m: Movement): void {
    let deltas = this.#net.get(book);
    if (deltas === undefined) this.#net.set(book, (deltas = new Map()));
    deltas.set(m.from_account_id, (deltas.get(m.from_account_id) ?? 0) - m.amount_cents);
    deltas.set(m.to_account_id, (deltas.get(m.to_account_id) ?? 0) + m.amount_cents);
  }

  /** The round's entries (ids reserved), each naming the valuation's audit entry of its book; the journal starts afresh. */
  async statements(v: ValuationContext, memo: string): Promise<Statement[]> {
    const entries = [...this.#net].flatMap(([book, deltas]) => {
      const postings = [...deltas].filter(([, cents]) => cents !== 0).map(([account_id, amount_cents]) => ({ account_id, amount_cents }));
      return postings.length === 0 ? [] : [{ cause: { book, memo, audit_id: v.auditIds[book] } satisfies EntryCause, postings }];
    });
    this.#net = new Map();
    const ids = await reserveEntryIds(this.#trx, entries.length);
    return postingEntryStatements(
      entries.map((e, i) => ({ ...e, id: ids[i] as number })),
      v.at,
    );
  }
}

/** Values every fund that holds units or waits to exchange or invest; returns each portfolio's units outstanding. */
export async function valueFunds(trx: Trx, v: ValuationContext): Promise<Map<number, bigint>> {
  const outstanding = new Map<number, bigint>([...v.portfolios.keys()].map((id) => [id, 0n]));
  const priceOf = (portfolio: number) => (v.portfolios.get(portfolio) as ValuedPortfolio).price;
  const journal = new RoundJournal(trx);
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
    const movesAvailable = (id: number) => held.exchanges.has(id) || investing.has(id) || waiting.has(id);
    const moving = fundIds.filter(movesAvailable);
    const still = fundIds.filter((id) => !movesAvailable(id));
    const [lockedMoving, readStill] = [await lockFundsAccounts(trx, moving), await lockFundsAccounts(trx, still, { lock: false })];
    const locked = new Map([...lockedMoving, ...readStill]);
    // A round's writes go together: its journal entries, the units and the records, in one batch of statements.
    const records: holdings.FundValuationRow[] = [];
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
        const target = Number(valueCents(count, priceOf(portfolio)));
        const market = await journal.outside(`market:${portfolio}`, book);
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
        feeCents = Number(valueCents(fee, priceOf(portfolio)));
        if (feeCents > 0) {
          movements.push({ from_account_id: ids.portfolio, to_account_id: await journal.outside('fees', book), amount_cents: feeCents });
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
          count = unitsFor(BigInt(value), priceOf(to));
          await mark();
        }
        await holdings.endExchange(trx, fundId, 'executed', v.at, v.id);
      } else if (portfolio === null && chosen !== null && value > 0 && v.portfolios.has(chosen)) {
        // Money put in the portfolio by hand before the fund chose one becomes its units.
        portfolio = chosen;
        count = unitsFor(BigInt(value), priceOf(portfolio));
        await mark();
      }
      // 3. Units sold for the waiting donations the fund's money covers, oldest first, each that
      // fits (as promotion picks them: a large one does not stop smaller, younger ones).
      const waitingNow = waiting.get(fundId) ?? [];
      const owed = waitingNow.reduce((n, w) => n + w, 0);
      const fits = covered(waitingNow, available + value);
      const covering = waitingNow.reduce((n, w, i) => (fits[i] === true ? n + w : n), 0);
      if (portfolio !== null && covering > available && value > 0) {
        const need = Math.min(covering - available, value);
        const units = unitsToSell(need, value, count, priceOf(portfolio));
        movements.push({ from_account_id: ids.portfolio, to_account_id: ids.available, amount_cents: need });
        available += need;
        value -= need;
        sold += need;
        count -= units;
        await mark();
      }
      // 4. Investments: as much of each as available holds beyond what waiting donations need.
      let bought = 0;
      for (const investment of investing.get(fundId) ?? []) {
        const spare = Math.max(0, available - owed);
        const amount = chosen === null || (portfolio !== null && portfolio !== chosen) || !v.portfolios.has(chosen) ? 0 : Math.min(Number(investment.amount_cents), spare);
        if (amount > 0 && chosen !== null) {
          movements.push({ from_account_id: ids.available, to_account_id: ids.portfolio, amount_cents: amount });
          available -= amount;
          value += amount;
          bought += amount;
          portfolio = chosen;
          count += unitsFor(BigInt(amount), priceOf(chosen));
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
      for (const m of movements) journal.move(book, m);
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
    await runStatements(trx, [...(await journal.statements(v, `valuation ${v.id}`)), ...holdings.unitsStatements(unitRows, emptied), ...holdings.fundValuationStatements(records)]);
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
  const journal = new RoundJournal(trx);
  for (let after = 0; ;) {
    const fundIds = await holdings.fundsWithMoney(trx, after, FUNDS_PER_ROUND);
    if (fundIds.length === 0) break;
    after = fundIds[fundIds.length - 1] as number;
    const [locked, held] = await Promise.all([lockFundsAccounts(trx, fundIds), holdings.holdingsOf(trx, fundIds)]);
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
        sold = unitsToSell(fromPortfolio, worth, count, priced.price);
        // A fund left with no units keeps its row until the valuation empties it (and its account).
        unitRows.push([fundId, Number(units.portfolio_id), decimalText(count - sold)]);
      }
      if (fromAvailable + fromPortfolio === 0) continue;
      const fees = await journal.outside('fees', book);
      if (fromAvailable > 0) journal.move(book, { from_account_id: ids.available, to_account_id: fees, amount_cents: fromAvailable });
      if (fromPortfolio > 0) journal.move(book, { from_account_id: ids.portfolio, to_account_id: fees, amount_cents: fromPortfolio });
      rows.push({ valuation_id: v.id, fund_id: fundId, book, cents: fromAvailable + fromPortfolio, from_units: decimalText(sold) });
    }
    await runStatements(trx, [
      ...(await journal.statements(v, `valuation ${v.id}: monthly fee`)),
      ...holdings.unitsStatements(unitRows, []),
      ...holdings.monthlyFeeStatements(rows),
    ]);
  }
}
