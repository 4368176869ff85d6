// Money crosses the HTTP edge as JSON numbers in dollars and lives inside as
// integer cents. These are the only conversions, and they never use float
// arithmetic: the number's shortest decimal text is parsed instead.
import { assertSafeInteger } from './assert.ts';

export const AMOUNT_MAX_CENTS = 1_000_000_000; // $10,000,000 (rules §5)

/**
 * The bounds that keep every amount, balance and sum an exact safe integer of
 * cents (2^53 is about $90 trillion): one contribution is at most
 * $1,000,000,000, and no fund ever holds more than $100,000,000,000.
 */
export const CONTRIBUTION_MAX_CENTS = 100_000_000_000;
export const FUND_MAX_CENTS = 10_000_000_000_000;

export type ParsedAmount = { ok: true; cents: number } | { ok: false; reason: string };

/** Parses a JSON amount in dollars: a finite, non-negative number with at most 2 decimals. */
export function parseDollars(value: unknown): ParsedAmount {
  if (typeof value !== 'number') return { ok: false, reason: 'must be a number of dollars' };
  if (!Number.isFinite(value)) return { ok: false, reason: 'must be a finite number' };
  if (value < 0) return { ok: false, reason: 'must not be negative' };
  if (value > AMOUNT_MAX_CENTS / 100) return { ok: false, reason: 'must be at most 10000000' };
  // JS prints the shortest text that reads back as the same double, so
  // 10.1 -> "10.1" and 10.005 -> "10.005". Exponent form only appears for
  // values below 1e-6 here, which have more than 2 decimals anyway.
  const text = String(value);
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (match === null) return { ok: false, reason: 'must have at most 2 decimal places' };
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(2, '0'));
  const cents = whole * 100 + fraction;
  assertSafeInteger(cents, 'amount in cents');
  return { ok: true, cents };
}

/** Cents as decimal text of dollars, exactly: 1250 -> "12.50", -5 -> "-0.05". */
export function dollarsText(cents: number): string {
  assertSafeInteger(cents, 'cents');
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Cents to a JSON number of dollars, by building its decimal text. */
export function centsToDollars(cents: number): number {
  return Number(dollarsText(cents));
}

/**
 * The dollars of `units` at `valuation` when both arrive as JSON numbers (an API form): each is
 * read back as the 8-place decimal it was written from, and valued exactly like valueInCents.
 */
export function valueOfNumbersInCents(units: number, valuation: number): number {
  return valueInCents(units.toFixed(8), valuation.toFixed(8));
}

/** The whole dollars in `cents` (not negative), rounded down: what may be granted in whole dollars of an amount. */
export function wholeDollarsIn(cents: number): number {
  assertSafeInteger(cents, 'cents');
  return cents <= 0 ? 0 : Math.trunc(cents / 100);
}

/** Cents as people read dollars, exactly, from the integer: "$1,234.50", "-$0.05". */
export function usdText(cents: number): string {
  assertSafeInteger(cents, 'cents');
  const abs = Math.abs(cents);
  const whole = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${cents < 0 ? '-' : ''}$${whole}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Dollars (a JSON number of the API's form, at most two decimals) as people read them: "$1,234.50".
 * Every currency text goes through here or usdText: its cents are found by their decimal text,
 * never by multiplying a float.
 */
export function usdOfDollars(dollars: number): string {
  return usdText(centsOfDollars(dollars));
}

/** Whole dollars, as the IRS reports an organisation's figures: "$3,218,404,018" (rounded half away from zero). */
export function usdWholeDollars(dollars: number): string {
  const whole = Math.round(Math.abs(dollars));
  assertSafeInteger(whole, 'dollars');
  return `${dollars < 0 && whole > 0 ? '-' : ''}$${String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** A JSON number of dollars (the API's form, at most two decimals) as cents, by its decimal text: 0.29 -> 29, never 28.999... */
export function centsOfDollars(dollars: number): number {
  const text = dollars.toFixed(2);
  const negative = text.startsWith('-');
  const [whole, fraction] = (negative ? text.slice(1) : text).split('.') as [string, string];
  const cents = Number(whole) * 100 + Number(fraction);
  assertSafeInteger(cents, 'cents');
  return negative ? -cents : cents;
}

/**
 * `cents` split by whole-number weights, exactly (largest remainder): each part the floor of its
 * share, the cents left over one each to the largest remainders, earlier parts first on a tie.
 * Zero weights get nothing; no weights, or all zero, are refused.
 */
export function allocate(cents: number, weights: readonly number[]): number[] {
  assertSafeInteger(cents, 'cents');
  const total = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0 || total <= 0 || weights.some((w) => !Number.isSafeInteger(w) || w < 0))
    throw new Error(`allocate: weights must be whole, not negative, and not all zero: ${weights.join(', ')}`);
  const parts = weights.map((w) => Math.floor((cents * w) / total));
  let left = cents - parts.reduce((a, b) => a + b, 0);
  const order = weights.map((w, i) => ({ i, rest: (cents * w) % total })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    parts[i] = (parts[i] as number) + 1;
    left -= 1;
  }
  return parts;
}

/** Whether two amounts in cents are more than `percent` of `base` apart. */
export function differsByMoreThan(cents: number, base: number, percent: number): boolean {
  return Math.abs(cents - base) * 100 > base * percent;
}

/** `part` as a whole percent of `whole`, rounded down and at most 100 (0 of nothing): a goal's progress. */
export function wholePercent(part: number, whole: number): number {
  return whole <= 0 ? 0 : Math.min(100, Math.floor((part * 100) / whole));
}

/** Units and valuations: exact decimal text, up to 12 digits before the point and 8 after (the schemas' pattern too). */
export const DECIMAL8_PATTERN = '^[0-9]{1,12}(\\.[0-9]{1,8})?$';
const DECIMAL8 = new RegExp(DECIMAL8_PATTERN);

export function isDecimal8(text: string): boolean {
  return DECIMAL8.test(text);
}

/** Exact decimal text with up to `scale` places, for units and valuations. */
export function parseDecimal(text: string, scale: number): bigint | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (match === null) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > scale) return null;
  return BigInt((match[1] ?? '0') + fraction.padEnd(scale, '0'));
}

/**
 * units x valuation in cents, exact, rounded half-even once (rules §5).
 * Both factors are decimal texts with at most 8 places.
 */
export function valueInCents(units: string, valuation: string): number {
  const cents = exactValueInCents(units, valuation);
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('units x valuation is beyond an exact amount of cents');
  const value = Number(cents);
  assertSafeInteger(value, 'contribution value in cents');
  return value;
}

/** valueInCents as a BigInt, however large (to compare with the bounds before anything else). */
export function exactValueInCents(units: string, valuation: string): bigint {
  const u = parseDecimal(units, 8);
  const v = parseDecimal(valuation, 8);
  if (u === null || v === null) throw new RangeError('units and valuation must be decimals with at most 8 places');
  const product = u * v; // scale 16
  const divisor = 10n ** 14n; // scale 16 -> cents (scale 2)
  let quotient = product / divisor;
  const remainder = product % divisor;
  const twice = remainder * 2n;
  if (twice > divisor || (twice === divisor && quotient % 2n === 1n)) quotient += 1n;
  return quotient;
}

/** The form of dollars a person types: "25", "25.5", "$1,250.00" (any size). */
export const DOLLAR_TEXT = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;

/**
 * Dollars typed by a person into a form: "25", "25.5", "$1,250.00". Returns
 * cents, or null for anything else (negative, more than 2 decimals, over the
 * maximum, misplaced commas).
 */
export function parseDollarText(text: string): number | null {
  const match = DOLLAR_TEXT.exec(text.trim());
  if (match === null) return null;
  const whole = (match[1] ?? '').replace(/,/g, '');
  if (whole.length > 8) return null;
  const cents = Number(whole) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  assertSafeInteger(cents, 'amount in cents');
  return cents <= AMOUNT_MAX_CENTS ? cents : null;
}
