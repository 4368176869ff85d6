// The rules of portfolios that need no database (docs/rules.md §19): what a
// portfolio holds, how its unit price follows its holdings' prices from one
// valuation to the next, and how a price file is read.
import { readNamedCsv, type LineProblem } from '../../shared/csv-read.ts';
import { divHalfEven, parse8 } from '../../shared/fixed.ts';
import { isCalendarDay } from '../../shared/days.ts';

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** A portfolio's unit price at its first valuation: $10.00000000. */
export const FIRST_UNIT_PRICE = 10n * 10n ** 8n;

/** At most this annual fee: 5% (a sponsor's fees are a fraction of that). */
export const FEE_BPS_MAX = 500;
export const HOLDINGS_MAX = 20;

export interface Holding {
  symbol: string;
  /** Whole percent of the portfolio, 1 to 100; a portfolio's weights sum to 100. */
  weight: number;
}

const SYMBOL = /^[A-Z][A-Z0-9.-]{0,11}$/;

export function isSymbol(text: string): boolean {
  return SYMBOL.test(text);
}

/** What is wrong with a portfolio's holdings, or undefined. */
export function holdingsProblem(holdings: readonly Holding[]): string | undefined {
  if (holdings.length === 0 || holdings.length > HOLDINGS_MAX) return `must name 1 to ${HOLDINGS_MAX} holdings`;
  const seen = new Set<string>();
  for (const h of holdings) {
    if (!isSymbol(h.symbol)) return `${JSON.stringify(h.symbol)} is not a symbol (capital letters, digits, dots and dashes; up to 12)`;
    if (seen.has(h.symbol)) return `${h.symbol} is named twice`;
    seen.add(h.symbol);
    if (!Number.isInteger(h.weight) || h.weight < 1 || h.weight > 100) return `${h.symbol}'s weight must be a whole percent from 1 to 100`;
  }
  const total = holdings.reduce((n, h) => n + h.weight, 0);
  return total === 100 ? undefined : `the weights must sum to 100, not ${total}`;
}

/**
 * The unit price after a valuation: the portfolio is kept at its weights (rebalanced at each
 * valuation), so the unit moves by the weighted mean of its holdings' price changes:
 * unit × Σ (weight/100 × price/previous price), all exact, rounded half-even to 8 places once.
 * Prices scaled by 10^8; the first valuation's unit is FIRST_UNIT_PRICE.
 */
export function nextUnitPrice(unit: bigint, holdings: readonly Holding[], previous: ReadonlyMap<string, bigint>, prices: ReadonlyMap<string, bigint>): bigint {
  let denominator = 100n;
  for (const h of holdings) denominator *= previous.get(h.symbol) as bigint;
  let numerator = 0n;
  for (const h of holdings) {
    let term = BigInt(h.weight) * (prices.get(h.symbol) as bigint);
    for (const other of holdings) if (other.symbol !== h.symbol) term *= previous.get(other.symbol) as bigint;
    numerator += term;
  }
  return divHalfEven(unit * numerator, denominator);
}

/** A year, for the fee: 365 days of milliseconds. */
const YEAR_MS = 365n * 86_400_000n;

/**
 * The units a fund's annual fee takes for a period: units × bps/10,000 × period/365 days,
 * rounded half-even to 8 places once (units scaled by 10^8, the period in milliseconds).
 */
export function feeUnits(units: bigint, bps: number, periodMs: bigint): bigint {
  return divHalfEven(units * BigInt(bps) * periodMs, 10_000n * YEAR_MS);
}

export interface PriceRow {
  line: number;
  symbol: string;
  /** Scaled by 10^8. */
  price: bigint;
  at: string;
}

/**
 * A price file (CSV with a header naming symbol, price and time; other columns ignored), read
 * whole: a row with no symbol, a price that is not a positive decimal of up to 8 places, a time
 * that is not one or is still to come, or the same symbol and time twice, is a problem, and the
 * file is refused with every problem named.
 */
export function readPriceFile(text: string, now: string): PriceCheck {
  const read = readNamedCsv(text, ['symbol', 'price', 'time'], 'no price is listed');
  if (!read.ok) return read;
  return checkPrices(
    read.rows.map((r) => ({ line: r.line, ...r.values })),
    now,
  );
}

export type PriceCheck = { ok: true; rows: PriceRow[] } | { ok: false; problems: LineProblem[] };

/** Prices as given (a file's rows, or the operator API's list), checked as readPriceFile says. */
export function checkPrices(given: ReadonlyArray<{ line: number; symbol: string; price: string; time: string }>, now: string): PriceCheck {
  const problems: LineProblem[] = [];
  const rows: PriceRow[] = [];
  const seen = new Set<string>();
  for (const r of given) {
    const { line } = r;
    const symbol = r.symbol.trim().toUpperCase();
    const price = parse8(r.price.trim());
    const at = timeOf(r.time.trim());
    if (!isSymbol(symbol)) problems.push({ line, reason: `symbol ${JSON.stringify(r.symbol)} is not a symbol` });
    else if (price === null || price <= 0n) problems.push({ line, reason: `price ${JSON.stringify(r.price)} is not a positive amount with at most 8 decimals` });
    else if (at === null) problems.push({ line, reason: `time ${JSON.stringify(r.time)} is not a time (ISO 8601, like 2026-11-27T21:00:00Z)` });
    else if (at > now) problems.push({ line, reason: `time ${at} is still to come` });
    else if (seen.has(`${symbol} ${at}`)) problems.push({ line, reason: `${symbol} at ${at} is listed twice` });
    else {
      seen.add(`${symbol} ${at}`);
      rows.push({ line, symbol, price, at });
    }
  }
  if (given.length === 0) problems.push({ line: 1, reason: 'no price is listed' });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rows };
}

/** An ISO 8601 time with a zone (or a day, at 00:00 UTC), as the stored form; null otherwise. */
export function timeOf(text: string): string | null {
  const day = isCalendarDay(text);
  // A time's day must exist too: Date.parse would roll 2026-02-30T10:00Z over to March 2.
  if (!day && !isCalendarDay(text.slice(0, 10))) return null;
  if (!day && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const ms = Date.parse(day ? `${text}T00:00:00Z` : text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
