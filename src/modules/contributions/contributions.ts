// Contribution vocabulary (spec 2.8).
import { isDecimal8 } from '../../shared/money.ts';
import type { FieldError } from '../../shared/errors.ts';
export const CONTRIBUTION_TYPES = [
  'bank_account_scheduled_deposit',
  'credit_card_scheduled_deposit',
  'crypto_payment',
  'stock_payment',
  'check_payment',
  'wire_payment',
  'check_daf_transfer',
  'wire_daf_transfer',
  'company_payment',
  'third_party_payment',
] as const;
export type ContributionType = (typeof CONTRIBUTION_TYPES)[number];

/** What each type is called where a person reads it (pages, statements, receipts). */
export const CONTRIBUTION_TYPE_NAMES: Readonly<Record<ContributionType, string>> = {
  wire_payment: 'Wire transfer',
  bank_account_scheduled_deposit: 'Bank transfer (ACH)',
  credit_card_scheduled_deposit: 'Card payment',
  check_payment: 'Check',
  stock_payment: 'Stock or fund shares',
  crypto_payment: 'Cryptocurrency',
  wire_daf_transfer: 'Wire from another donor-advised fund',
  check_daf_transfer: 'Check from another donor-advised fund',
  company_payment: 'From your company',
  third_party_payment: 'From someone else for you',
};

/** A type's name for a person; an unknown one (an older row) with its underscores as spaces. */
export function contributionTypeName(type: string): string {
  return CONTRIBUTION_TYPE_NAMES[type as ContributionType] ?? type.replace(/_/g, ' ');
}

export const CONTRIBUTION_STATUSES = ['pending', 'success', 'waiting_for_funds', 'failed'] as const;
export type ContributionStatus = (typeof CONTRIBUTION_STATUSES)[number];

export const FREQUENCIES = ['OneTime', 'Weekly', 'Monthly', 'Yearly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** rules §7: waiting_for_funds -> pending -> success; waiting_for_funds or pending -> failed. */
export const CONTRIBUTION_TRANSITIONS: Record<string, readonly ContributionStatus[]> = {
  waiting_for_funds: ['pending', 'failed'],
  pending: ['success', 'failed'],
  success: [],
  failed: [],
};

/** A positive decimal text with at most 8 places (units, valuations): kept exact, never a float. */
export function isPositiveDecimal8(text: unknown): text is string {
  return typeof text === 'string' && isDecimal8(text) && !/^0+(\.0+)?$/.test(text);
}

/** Every problem with an operator's contribution fields, at once. */
export function contributionProblems(input: { type: string; units: string; valuation: string; currency: string; frequency: string; status: string }): FieldError[] {
  const problems: FieldError[] = [];
  const bad = (field: string, message: string) => problems.push({ field, code: 'validation_failed', message });
  if (!(CONTRIBUTION_TYPES as readonly string[]).includes(input.type)) bad('type', `must be one of ${CONTRIBUTION_TYPES.join(', ')}`);
  if (!isPositiveDecimal8(input.units)) bad('units', 'must be a positive decimal with at most 8 places');
  if (!isPositiveDecimal8(input.valuation)) bad('valuation', 'must be a positive decimal with at most 8 places');
  if (!/^[A-Z0-9.-]{1,16}$/.test(input.currency)) bad('currency', 'must be 1 to 16 capital letters or digits (USD, AAPL, BTC)');
  if (!(FREQUENCIES as readonly string[]).includes(input.frequency)) bad('frequency', `must be one of ${FREQUENCIES.join(', ')}`);
  if (!['waiting_for_funds', 'pending', 'success'].includes(input.status)) bad('status', 'a new contribution is waiting_for_funds, pending or success');
  return problems;
}
