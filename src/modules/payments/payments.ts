// Rules of paying charities (docs/rules.md §17): how a payment is made, the
// states it moves through, and the bank's return codes.
import { ACH_RETURNS } from './payments.returns.ts';

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
  return new Date(Date.parse(`${isoDay}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}
