// What a valuation does to one fund (docs/rules.md §19), decided without the database: a function
// of the fund's balances, its units, its pending exchange and investments, the donations waiting
// on it, and the round's prices. It returns the money's movements between the fund's places
// (available, portfolio), the portfolio's market and the fees, the units and portfolio it ends
// with, and what its record states; valuation.funds.ts reads the funds, calls it, and writes
// what it returns. Its assertions hold for every fund: the movements net to the balances'
// changes, units are never negative, and a fund in a portfolio is worth exactly units x price.
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { unitsFor, valueCents } from '../../shared/fixed.ts';
import { covered } from '../donations/index.ts';
import { feeUnits } from './unit-price.ts';

export interface ValuedPortfolio {
  price: bigint;
  feeBps: number;
}

/** The round's prices: each portfolio's unit price and fee, and the fee's period (the time since the valuation before). */
export interface Prices {
  portfolios: ReadonlyMap<number, ValuedPortfolio>;
  feeMs: bigint;
}

/** What a fund is as the valuation reaches it. */
export interface FundState {
  available: number;
  /** The portfolio account's balance (cents). */
  value: number;
  /** The units it holds, of which portfolio (scaled by 10^8), if any. */
  holding: { portfolio: number; units: bigint } | null;
  /** A pending exchange: to another portfolio, or to cash (null). */
  exchange: { to: number | null } | undefined;
  /** The portfolio its allocation chose, if any. */
  chosen: number | null;
  /** Its waiting donations' amounts, oldest first. */
  waiting: readonly number[];
  /** Its pending investments, oldest first. */
  investments: ReadonlyArray<{ id: number; cents: number }>;
}

/** Where money moves: the fund's available money or portfolio account, a portfolio's market account, the fees account. */
export type Place = 'available' | 'portfolio' | 'fees' | { market: number };

export interface PlaceMove {
  from: Place;
  to: Place;
  cents: number;
}

/** What the valuation does to the fund. */
export interface FundDecision {
  moves: PlaceMove[];
  available: number;
  value: number;
  portfolio: number | null;
  units: bigint;
  feeBasis: bigint;
  feeBps: number;
  feeUnits: bigint;
  feeCents: number;
  gain: number;
  bought: number;
  sold: number;
  /** Whether it had an exchange, now made. */
  exchanged: boolean;
  /** Each pending investment and what it bought (0: cancelled). */
  investments: Array<{ id: number; bought: number }>;
}

/** The units that `cents` take from a holding of `count` units worth `worth`: all of them for its whole worth, else as many as the cents buy, at most all. */
export function unitsToSell(cents: number, worth: number, count: bigint, price: bigint): bigint {
  if (cents === worth) return count;
  const wanted = unitsFor(BigInt(cents), price);
  return wanted > count ? count : wanted;
}

/**
 * The valuation of one fund, in order: 1. its units marked to the new price, then the fee taken
 * from units; 2. a pending exchange made (to cash: every unit sold; into another portfolio at its
 * price), or money put in by hand before a portfolio was chosen made its units; 3. units sold for
 * the waiting donations its money covers (donations' one `covered` rule); 4. each investment
 * bought with what available holds beyond what waiting donations need; the portfolio account left
 * at exactly units x price, rounded once.
 */
export function decideFund(fund: FundState, prices: Prices): FundDecision {
  const priceOf = (p: number) => (prices.portfolios.get(p) as ValuedPortfolio).price;
  const d: FundDecision = {
    moves: [],
    available: fund.available,
    value: fund.value,
    portfolio: fund.holding?.portfolio ?? null,
    units: fund.holding?.units ?? 0n,
    feeBasis: 0n,
    feeBps: 0,
    feeUnits: 0n,
    feeCents: 0,
    gain: 0,
    bought: 0,
    sold: 0,
    exchanged: fund.exchange !== undefined,
    investments: [],
  };
  const move = (from: Place, to: Place, cents: number) => d.moves.push({ from, to, cents });
  const mark = () => {
    if (d.portfolio === null) return;
    const target = Number(valueCents(d.units, priceOf(d.portfolio)));
    if (target > d.value) move({ market: d.portfolio }, 'portfolio', target - d.value);
    if (target < d.value) move('portfolio', { market: d.portfolio }, d.value - target);
    d.gain += target - d.value;
    d.value = target;
  };
  markAndTakeFee(d, prices, mark, move);
  exchange(d, fund, prices, priceOf, mark, move);
  sellForWaiting(d, fund, priceOf, mark, move);
  invest(d, fund, prices, priceOf, move);
  mark();
  assertSafeInteger(d.value, 'portfolio value');
  if (d.portfolio !== null && d.units === 0n) d.portfolio = null;
  assertDecided(fund, d, priceOf);
  return d;
}

type Mark = () => void;
type Move = (from: Place, to: Place, cents: number) => void;

/** 1. The units at the new price; then the fee, from units. */
function markAndTakeFee(d: FundDecision, prices: Prices, mark: Mark, move: Move): void {
  mark();
  d.feeBasis = d.units;
  if (d.portfolio === null) return;
  const priced = prices.portfolios.get(d.portfolio) as ValuedPortfolio;
  d.feeBps = priced.feeBps;
  d.feeUnits = feeUnits(d.units, d.feeBps, prices.feeMs);
  if (d.feeUnits <= 0n) return;
  assert(d.feeUnits <= d.units, 'a fee takes at most the units held');
  d.units -= d.feeUnits;
  d.feeCents = Number(valueCents(d.feeUnits, priced.price));
  if (d.feeCents > 0) {
    move('portfolio', 'fees', d.feeCents);
    d.value -= d.feeCents;
  }
  mark();
}

/** 2. An exchange: to cash (every unit sold), or into another portfolio at its price; else money put in by hand before a portfolio was chosen becomes its units. */
function exchange(d: FundDecision, fund: FundState, prices: Prices, priceOf: (p: number) => bigint, mark: Mark, move: Move): void {
  if (fund.exchange !== undefined) {
    const to = fund.exchange.to;
    if (to === null) {
      if (d.value > 0) {
        move('portfolio', 'available', d.value);
        d.available += d.value;
        d.sold += d.value;
        d.value = 0;
      }
      d.portfolio = null;
      d.units = 0n;
    } else if (to !== d.portfolio && prices.portfolios.has(to)) {
      d.portfolio = to;
      d.units = unitsFor(BigInt(d.value), priceOf(to));
      mark();
    }
    return;
  }
  if (d.portfolio === null && fund.chosen !== null && d.value > 0 && prices.portfolios.has(fund.chosen)) {
    d.portfolio = fund.chosen;
    d.units = unitsFor(BigInt(d.value), priceOf(fund.chosen));
    mark();
  }
}

/** 3. Units sold for the waiting donations the fund's money covers, oldest first, each that fits. */
function sellForWaiting(d: FundDecision, fund: FundState, priceOf: (p: number) => bigint, mark: Mark, move: Move): void {
  const fits = covered(fund.waiting, d.available + d.value);
  const covering = fund.waiting.reduce((n, w, i) => (fits[i] === true ? n + w : n), 0);
  if (d.portfolio === null || covering <= d.available || d.value <= 0) return;
  const need = Math.min(covering - d.available, d.value);
  const units = unitsToSell(need, d.value, d.units, priceOf(d.portfolio));
  move('portfolio', 'available', need);
  d.available += need;
  d.value -= need;
  d.sold += need;
  d.units -= units;
  mark();
}

/** 4. Investments: as much of each as available holds beyond what waiting donations need, into the chosen portfolio. */
function invest(d: FundDecision, fund: FundState, prices: Prices, priceOf: (p: number) => bigint, move: Move): void {
  const owed = fund.waiting.reduce((n, w) => n + w, 0);
  const chosen = fund.chosen;
  for (const investment of fund.investments) {
    const spare = Math.max(0, d.available - owed);
    const can = chosen !== null && (d.portfolio === null || d.portfolio === chosen) && prices.portfolios.has(chosen);
    const amount = can ? Math.min(investment.cents, spare) : 0;
    if (amount > 0 && chosen !== null) {
      move('available', 'portfolio', amount);
      d.available -= amount;
      d.value += amount;
      d.bought += amount;
      d.portfolio = chosen;
      d.units += unitsFor(BigInt(amount), priceOf(chosen));
    }
    d.investments.push({ id: investment.id, bought: amount });
  }
}

/** The decision's invariants: the movements net to the balances' changes; units never negative; value = units x price in a portfolio. */
function assertDecided(fund: FundState, d: FundDecision, priceOf: (p: number) => bigint): void {
  const net = (place: 'available' | 'portfolio') => d.moves.reduce((n, m) => n + (m.to === place ? m.cents : 0) - (m.from === place ? m.cents : 0), 0);
  assert(net('available') === d.available - fund.available, "the movements net to available's change");
  assert(net('portfolio') === d.value - fund.value, "the movements net to the portfolio account's change");
  assert(
    d.moves.every((m) => m.cents > 0),
    'every movement moves money',
  );
  assert(d.units >= 0n && d.available >= 0 && d.value >= 0, 'units and balances are never negative');
  if (d.portfolio !== null) assert(d.value === Number(valueCents(d.units, priceOf(d.portfolio))), 'a fund in a portfolio is worth its units at the price');
}
