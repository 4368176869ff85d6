// Exact decimal arithmetic on scaled integers (BigInt): units and prices keep
// 8 places, money 2 (cents). No float touches them; each result is rounded
// half-even once, where the rule says (ADR 21).
import { parseDecimal } from './money.ts';

/** Places kept by units and prices. */
export const SCALE8 = 8;
export const ONE8 = 10n ** 8n;

/** n / d rounded half-even (d > 0). */
export function divHalfEven(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError('divide by a positive number');
  const negative = n < 0n;
  const a = negative ? -n : n;
  let q = a / d;
  const twice = (a % d) * 2n;
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  return negative ? -q : q;
}

/** A scaled integer as decimal text with exactly `scale` places ("12.50000000"). */
export function decimalText(value: bigint, scale = SCALE8): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Decimal text with at most 8 places, scaled by 10^8; null when it is not one. */
export function parse8(text: string): bigint | null {
  return parseDecimal(text, SCALE8);
}

/** Units x price (both scaled by 10^8) to cents: 10^(8 + 8 - 2), made once (a valuation values every fund with it). */
const UNITS_PRICE_TO_CENTS = 10n ** 14n;

/** units x price (both scaled by 10^8) in cents, rounded half-even once. */
export function valueCents(units: bigint, price: bigint): bigint {
  return divHalfEven(units * price, UNITS_PRICE_TO_CENTS);
}

/** The units (scaled by 10^8) that cents buy at a price (scaled by 10^8), rounded half-even once. */
export function unitsFor(cents: bigint, price: bigint): bigint {
  return divHalfEven(cents * UNITS_PRICE_TO_CENTS, price);
}
