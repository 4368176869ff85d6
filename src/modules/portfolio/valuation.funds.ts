// What a valuation does to a round of funds (docs/rules.md §19), in the
// round's transaction (valuation.rounds.ts runs the rounds): units marked to
// the new unit price (the gain or loss posted against the portfolio's market
// account), the fee taken from units, a pending exchange made, units sold to
// cover waiting donations, investments bought, and the portfolio account left
// at exactly units × unit price, rounded once.
import type { Db, Trx } from '../../db/database.ts';
import { assert } from '../../shared/assert.ts';
import type { Book } from '../../shared/book.ts';
import { decimalText, parse8, valueCents } from '../../shared/fixed.ts';
import { LogTail, lockFundsAccounts, postingEntryStatements, reserveEntryIds, type EntryCause, type Movement } from '../ledger/index.ts';
import { runStatements, type Statement } from '../../db/bulk.ts';
import { promoteWaiting } from '../donations/index.ts';
import { decideFund, unitsToSell, type FundDecision, type Place, type ValuedPortfolio } from './valuation.decide.ts';
import { chosenPortfolio } from './allocation.service.ts';
import * as holdings from './holdings.store.ts';

export type { ValuedPortfolio };

export interface ValuationContext {
  id: number;
  at: string;
  /** The time since the valuation before (0 at the first): the fee's period. */
  feeMs: bigint;
  /** The valuation's audit entry in each book. */
  auditIds: Record<Book, number>;
  portfolios: ReadonlyMap<number, ValuedPortfolio>;
  /**
   * The outside accounts its rounds post to, in each book (the fees, each portfolio's market
   * account): made before the first round (valuation.rounds.ts), never removed.
   */
  outside: ReadonlyMap<Book, OutsideAccounts>;
}

/** A book's outside accounts a valuation posts to, by id. */
export interface OutsideAccounts {
  fees: number;
  /** Each portfolio's market account, by portfolio id. */
  markets: ReadonlyMap<number, number>;
}

/**
 * A round's journal: each account's net change per book, written as one entry per book (a fund's
 * portfolio and available, the market accounts' and the fees' totals), and the outside accounts
 * it posts to, known before the round.
 */
class RoundJournal {
  readonly #trx: Trx;
  readonly #outside: ReadonlyMap<Book, OutsideAccounts>;
  #net = new Map<Book, Map<number, number>>();

  constructor(trx: Trx, v: ValuationContext) {
    this.#trx = trx;
    this.#outside = v.outside;
  }

  /** The book's fees account (`market` undefined) or a portfolio's market account. */
  outside(book: Book, market?: number): number {
    const accounts = this.#outside.get(book);
    const id = market === undefined ? accounts?.fees : accounts?.markets.get(market);
    if (id === undefined) assert(false, `the ${market === undefined ? 'fees' : `market:${market}`} account of the ${book} book was made before the rounds`);
    return id;
  }

  move(book: Book, m: Movement): void {
    let deltas = this.#net.get(book);
    if (deltas === undefined) this.#net.set(book, (deltas = new Map()));
    deltas.set(m.from_account_id, (deltas.get(m.from_account_id) ?? 0) - m.amount_cents);
    deltas.set(m.to_account_id, (deltas.get(m.to_account_id) ?? 0) + m.amount_cents);
  }

  /**
   * The round's entries (ids reserved), each naming the valuation's audit entry of its book; the
   * journal starts afresh. `last`: the outside accounts' balance moves, to be written after the
   * rest (postingEntryStatements).
   */
  async statements(v: ValuationContext, memo: string): Promise<{ first: Statement[]; last: Statement[] }> {
    const entries = [...this.#net].flatMap(([book, deltas]) => {
      const postings = [...deltas].filter(([, cents]) => cents !== 0).map(([account_id, amount_cents]) => ({ account_id, amount_cents }));
      return postings.length === 0 ? [] : [{ cause: { book, memo, audit_id: v.auditIds[book] } satisfies EntryCause, postings }];
    });
    this.#net = new Map();
    const books = [...new Set(entries.map((e) => e.cause.book))];
    const [ids, tail] = await Promise.all([reserveEntryIds(this.#trx, entries.length), LogTail.open(this.#trx, books)]);
    return postingEntryStatements(
      entries.map((e, i) => ({ ...e, id: ids[i] as number })),
      v.at,
      tail,
      new Set([...this.#outside.values()].flatMap((a) => [a.fees, ...a.markets.values()])),
    );
  }
}

/** What a round reads of its funds before it decides them. */
export interface RoundReads {
  held: Awaited<ReturnType<typeof holdings.holdingsOf>>;
  investing: Map<number, holdings.InvestmentRow[]>;
  waiting: Map<number, number[]>;
  /** The accounts of the funds whose available money stays (no exchange, investment or waiting donation). */
  still: Map<number, holdings.StillAccounts>;
}

/** Whether a fund's available money may move at the valuation: an exchange, an investment or waiting donations. */
const movesAvailable = (r: Omit<RoundReads, 'still'>, id: number) => r.held.exchanges.has(id) || r.investing.has(id) || r.waiting.has(id);

/**
 * A round's reads. What is read of a fund whose available money stays, its units and its
 * portfolio balance, moves only at valuations, whose rounds never share a fund (a valuation's
 * cursor is moved by compare-and-set, valuation.rounds.ts), so it is read without a lock.
 */
export async function readRound(db: Db | Trx, fundIds: readonly number[]): Promise<RoundReads> {
  const pending = await readPending(db, fundIds, false);
  const still = await holdings.stillAccounts(
    db,
    fundIds.filter((id) => !movesAvailable(pending, id)),
  );
  return { ...pending, still };
}

/** What the funds hold and wait for: their units, allocations, pending exchanges and investments, waiting donations. */
async function readPending(db: Db | Trx, fundIds: readonly number[], lock: boolean): Promise<Omit<RoundReads, 'still'>> {
  const [held, investments, waiting] = await Promise.all([
    holdings.holdingsOf(db, fundIds, lock),
    holdings.pendingInvestments(db, fundIds, lock),
    holdings.waitingDonations(db, fundIds),
  ]);
  return { held, investing: Map.groupBy(investments, (i) => Number(i.fund_id)), waiting };
}

/**
 * The funds whose available money moves, read again once their accounts are locked, with their
 * pending exchanges and investments locked: a donor's request that changed one (a cancelled
 * exchange, a donation now waiting) before the lock is seen, and one after it waits for the round.
 */
async function readMovingAgain(trx: Trx, first: RoundReads, moving: readonly number[]): Promise<RoundReads> {
  const again = await readPending(trx, moving, true);
  const held = {
    units: first.held.units,
    allocations: new Map([...first.held.allocations, ...again.held.allocations]),
    exchanges: again.held.exchanges,
  };
  return { held, investing: again.investing, waiting: again.waiting, still: first.still };
}

/** Where a round lets the rounds around it go on (valuation.rounds.ts). */
export interface RoundTurns {
  /** Once its funds whose available money moves are locked: the next round may begin. */
  locked?: () => void;
  /** Once its funds are written, before the market and fees accounts: waits for the round before it to end. */
  written?: () => Promise<void>;
}

/**
 * One round of funds (each holding units or waiting to exchange or invest): each decided
 * (valuation.decide.ts), then the round's writes together. Returns the units each portfolio's
 * funds of the round hold after it.
 */
export async function valueRound(trx: Trx, v: ValuationContext, fundIds: readonly number[], turns: RoundTurns = {}): Promise<Map<number, bigint>> {
  const journal = new RoundJournal(trx, v);
  const outstanding = new Map<number, bigint>();
  const first = await readRound(trx, fundIds);
  // Only a fund whose available money may move is locked against its donor's requests, then read
  // again; the others' portfolio accounts move only at valuations, whose rounds never share a fund.
  const moving = fundIds.filter((id) => movesAvailable(first, id));
  const lockedMoving = await lockFundsAccounts(trx, moving);
  turns.locked?.();
  const { held, investing, waiting } = moving.length === 0 ? first : await readMovingAgain(trx, first, moving);
  const locked = new Map([...lockedMoving, ...first.still]);
  // A round's writes go together: its journal entries, the units and the records, in one batch of statements.
  const records: holdings.FundValuationRow[] = [];
  const unitRows: Array<[number, number, string]> = [];
  const emptied: number[] = [];
  const promoted: number[] = [];
  for (const fundId of fundIds) {
    const fund = locked.get(fundId);
    if (fund === undefined) continue;
    const { book, ids } = fund;
    const units = held.units.get(fundId);
    const exchange = held.exchanges.get(fundId);
    const d = decideFund(
      {
        available: fund.balances.available_cents,
        value: fund.balances.portfolio_cents,
        holding: units === undefined ? null : { portfolio: Number(units.portfolio_id), units: parse8(units.units) as bigint },
        exchange: exchange === undefined ? undefined : { to: exchange.to_portfolio_id === null ? null : Number(exchange.to_portfolio_id) },
        chosen: chosenPortfolio(held.allocations.get(fundId)),
        waiting: waiting.get(fundId) ?? [],
        investments: (investing.get(fundId) ?? []).map((i) => ({ id: Number(i.id), cents: Number(i.amount_cents) })),
      },
      v,
    );
    const account = (place: Place) =>
      place === 'available' ? ids.available : place === 'portfolio' ? ids.portfolio : journal.outside(book, place === 'fees' ? undefined : place.market);
    for (const m of d.moves) journal.move(book, { from_account_id: account(m.from), to_account_id: account(m.to), amount_cents: m.cents });
    // Its exchange was read locked (readMovingAgain): still pending.
    if (d.exchanged) assert(await holdings.endExchange(trx, fundId, 'executed', v.at, v.id), `fund ${fundId}: its exchange is still pending`);
    for (const i of d.investments) await holdings.endInvestment(trx, i.id, { status: i.bought > 0 ? 'executed' : 'cancelled', bought_cents: i.bought, valuation_id: v.id });
    if (d.portfolio === null) {
      if (units !== undefined) emptied.push(fundId);
    } else {
      unitRows.push([fundId, d.portfolio, decimalText(d.units)]);
      outstanding.set(d.portfolio, (outstanding.get(d.portfolio) ?? 0n) + d.units);
    }
    if (d.sold > 0) promoted.push(fundId);
    records.push(recordOf(v, fundId, book, d));
  }
  // The market and fees accounts, which every round posts to, last, once the round before has
  // ended: a round holds them only from there to its commit, never while waiting for another.
  const entries = await journal.statements(v, `valuation ${v.id}`);
  await runStatements(trx, [...entries.first, ...holdings.unitsStatements(unitRows, emptied), ...holdings.fundValuationStatements(records)]);
  await turns.written?.();
  await runStatements(trx, entries.last);
  // Money sold into available covers waiting donations, oldest first, once the round's balances are written.
  for (const fundId of promoted) await promoteWaiting(trx, fundId, v.at);
  return outstanding;
}

/** What a fund's valuation record states. */
function recordOf(v: ValuationContext, fundId: number, book: Book, d: FundDecision): holdings.FundValuationRow {
  return {
    valuation_id: v.id,
    fund_id: fundId,
    book,
    portfolio_id: d.portfolio,
    units: decimalText(d.units),
    value_cents: d.value,
    fee_basis_units: decimalText(d.feeBasis),
    fee_ms: Number(v.feeMs),
    fee_bps: d.feeBps,
    fee_units: decimalText(d.feeUnits),
    fee_cents: d.feeCents,
    gain_cents: d.gain,
    bought_cents: d.bought,
    sold_cents: d.sold,
  };
}

/**
 * The flat monthly fee (FUND_MONTHLY_FEE_CENTS) at the month's first valuation, a round of funds
 * with money at a time before the funds are valued: each pays it from its available money, and
 * what that lacks from its units at the new unit price (as much as they are worth). Posted to the
 * book's fees account, recorded per fund in `monthly_fees`.
 */
export async function chargeRound(trx: Trx, v: ValuationContext, feeCents: number, fundIds: readonly number[]): Promise<void> {
  const journal = new RoundJournal(trx, v);
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
    const fees = journal.outside(book);
    if (fromAvailable > 0) journal.move(book, { from_account_id: ids.available, to_account_id: fees, amount_cents: fromAvailable });
    if (fromPortfolio > 0) journal.move(book, { from_account_id: ids.portfolio, to_account_id: fees, amount_cents: fromPortfolio });
    rows.push({ valuation_id: v.id, fund_id: fundId, book, cents: fromAvailable + fromPortfolio, from_units: decimalText(sold) });
  }
  const entries = await journal.statements(v, `valuation ${v.id}: monthly fee`);
  await runStatements(trx, [...entries.first, ...entries.last, ...holdings.unitsStatements(unitRows, []), ...holdings.monthlyFeeStatements(rows)]);
}
