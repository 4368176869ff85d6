// The journal's vocabulary and its one rule: every entry sums to zero.
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { AppError } from '../../shared/errors.ts';
import { centsToDollars, FUND_MAX_CENTS } from '../../shared/money.ts';

export const FUND_ACCOUNT_KINDS = ['pending_deposit', 'available', 'reserved', 'portfolio'] as const;
export type FundAccountKind = (typeof FUND_ACCOUNT_KINDS)[number];

/** Counter-accounts outside every fund: where money comes from and goes to. */
export const OUTSIDE_ACCOUNT_KINDS = ['deposits', 'grants_paid'] as const;
export type OutsideAccountKind = (typeof OUTSIDE_ACCOUNT_KINDS)[number];

export interface Movement {
  from_account_id: number;
  to_account_id: number;
  amount_cents: number;
}

export interface Posting {
  account_id: number;
  amount_cents: number;
}

/** Movements to postings: each one debits `from` and credits `to` by the same cents. */
export function postingsOf(movements: readonly Movement[]): Posting[] {
  const postings: Posting[] = [];
  for (const m of movements) {
    assertSafeInteger(m.amount_cents, 'movement amount');
    assert(m.amount_cents > 0, 'a movement moves a positive amount');
    assert(m.from_account_id !== m.to_account_id, 'a movement goes between two accounts');
    postings.push({ account_id: m.from_account_id, amount_cents: -m.amount_cents });
    postings.push({ account_id: m.to_account_id, amount_cents: m.amount_cents });
  }
  const sum = postings.reduce((total, p) => total + p.amount_cents, 0);
  assert(sum === 0, 'a journal entry must balance');
  return postings;
}

export interface FundBalances {
  pending_deposit_cents: number;
  available_cents: number;
  reserved_cents: number;
  portfolio_cents: number;
}

/** The balance response of rules §6: amount = available + reserved + portfolio. */
export function balanceView(b: FundBalances) {
  return {
    amount_cents: b.available_cents + b.reserved_cents + b.portfolio_cents,
    pending_deposit_balance_cents: b.pending_deposit_cents,
    portfolio_balance_cents: b.portfolio_cents,
    available_balance_cents: b.available_cents,
  };
}

/**
 * Money coming into a fund from outside it (a contribution, an accepted gift)
 * may not take it past FUND_MAX_CENTS: every balance stays an exact amount.
 * Throws unprocessable (amount_invalid).
 */
export function assertFundCanHold(fund: { balances: FundBalances }, incomingCents: number): void {
  const b = fund.balances;
  const held = b.pending_deposit_cents + b.available_cents + b.reserved_cents + b.portfolio_cents;
  if (held + incomingCents > FUND_MAX_CENTS) {
    throw new AppError('unprocessable', 'amount_invalid', `a fund may hold at most ${centsToDollars(FUND_MAX_CENTS)} dollars`, {
      errors: [{ field: 'amount', code: 'amount_invalid', message: `would take the fund past ${centsToDollars(FUND_MAX_CENTS)} dollars` }],
    });
  }
}
