// Rules of paying charities (docs/rules.md §17): how a payment is made, the
// states it moves through, and the bank's return codes.
import { ACH_RETURNS } from './payments.returns.ts';
import { addDays as addCalendarDays, isCalendarDay } from '../../shared/days.ts';

export { ACH_RETURNS, type AchReturn } from './payments.returns.ts';

export const PAYMENT_METHODS = ['ach', 'check'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** open (its run not yet submitted) -> sent -> cashed (a check) | returned (ACH) | voided (a check, by hand or stale). */
export const PAYMENT_STATUSES = ['open', 'sent', 'cashed', 'returned', 'voided'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What each outcome does to a payment, from which status, and the donation event it applies to each grant. */
export const PAYMENT_OUTCOMES = {
  return: { method: 'ach', from: 'sent', to: 'returned', grant: 'return_payment' },
  cash: { method: 'check', from: 'sent', to: 'cashed', grant: 'cash_check' },
  void: { method: 'check', from: 'sent', to: 'voided', grant: 'void_check' },
} as const;
export type PaymentOutcome = keyof typeof PAYMENT_OUTCOMES;

/** The ACH return codes an operator records (every code NACHA defines: payments.returns.ts), in words. */
export const ACH_RETURN_CODES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(ACH_RETURNS).map(([code, meaning]) => [code, meaning.words]));

/** An account number as shown: its last four digits only. */
export function maskedAccount(last4: string): string {
  return `••••${last4}`;
}

/** An ACH account number: 4 to 17 digits (a bank may write dashes or spaces; they are dropped). */
export function normalizeAccountNumber(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  return /^\d{4,17}$/.test(digits) ? digits : null;
}

/** The day `days` after `isoDay` (YYYY-MM-DD). */
export function addDays(isoDay: string, days: number): string {
  return addCalendarDays(isoDay, days);
}

export function isDay(text: string): boolean {
  return isCalendarDay(text);
}

/**
 * The days the Federal Reserve's ACH does not settle in a year, besides weekends: its eleven
 * holidays, a fixed-date one on a Sunday observed the Monday after (one on a Saturday is not moved:
 * the Reserve Banks are open the Friday before). Each as YYYY-MM-DD.
 */
export function federalReserveHolidays(year: number): Set<string> {
  const day = (month: number, date: number) => new Date(Date.UTC(year, month - 1, date));
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  /** The `n`th `weekday` (0 Sunday) of a month; n = -1: the last. */
  const nth = (month: number, weekday: number, n: number) => {
    if (n > 0) {
      const first = day(month, 1);
      return day(month, 1 + ((weekday - first.getUTCDay() + 7) % 7) + (n - 1) * 7);
    }
    const last = day(month + 1, 0);
    return day(month, last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7));
  };
  const fixed = (month: number, date: number) => {
    const d = day(month, date);
    return d.getUTCDay() === 0 ? day(month, date + 1) : d;
  };
  return new Set(
    [
      fixed(1, 1), // New Year's Day
      nth(1, 1, 3), // Birthday of Martin Luther King, Jr.
      nth(2, 1, 3), // Washington's Birthday
      nth(5, 1, -1), // Memorial Day
      ...(year >= 2022 ? [fixed(6, 19)] : []), // Juneteenth
      fixed(7, 4), // Independence Day
      nth(9, 1, 1), // Labor Day
      nth(10, 1, 2), // Columbus Day
      fixed(11, 11), // Veterans Day
      nth(11, 4, 4), // Thanksgiving Day
      fixed(12, 25), // Christmas Day
    ].map(iso),
  );
}

/** Whether ACH settles on `isoDay`: not a Saturday, Sunday or Federal Reserve holiday. */
export function isBankingDay(isoDay: string): boolean {
  const weekday = new Date(`${isoDay}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !federalReserveHolidays(Number(isoDay.slice(0, 4))).has(isoDay);
}

/** The first banking day on or after `isoDay`. */
export function bankingDayFrom(isoDay: string): string {
  let day = isoDay;
  while (!isBankingDay(day)) day = addDays(day, 1);
  return day;
}
