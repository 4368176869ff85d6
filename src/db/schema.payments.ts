// Row types of payment runs, payments, their grants and payees' bank details (migration 029, docs/rules.md §17).
import type { Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

export interface PaymentRunsTable {
  id: Generated<number>;
  book: Book;
  pay_date: string;
  status: string;
  opened_at: string;
  opened_by: string;
  submitted_at: string | null;
  submitted_by: string | null;
  /** The second operator who approved it for submission (rules §17), when two are required. */
  approved_at: string | null;
  approved_by: string | null;
  withdrawn_at: string | null;
  withdrawn_by: string | null;
  withdraw_reason: string | null;
}

export interface PayeeAccountsTable {
  id: Generated<number>;
  non_profit_id: number;
  routing: string;
  account_sealed: string;
  account_last4: string;
  account_type: string;
  holder: string;
  status: string;
  created_at: string;
  created_by: string;
  usable_from: string;
  /** The second operator who approved details an operator typed; null for an organisation's own or while `pending`. */
  approved_by: string | null;
}

export interface PaymentsTable {
  id: Generated<number>;
  run_id: number;
  book: Book;
  non_profit_id: number;
  ein: string;
  payee: string;
  address: string;
  method: string;
  amount_cents: number;
  grants: number;
  screened: string;
  status: string;
  payee_account_id: number | null;
  check_number: number | null;
  return_code: string | null;
  created_at: string;
  sent_at: string | null;
  settled_at: string | null;
  settled_by: string | null;
}

/** A check the bank paid after it was voided (migration 038, rules §17), until an operator resolves it. */
export interface PaymentExceptionsTable {
  id: Generated<number>;
  book: Book;
  payment_id: number;
  kind: string;
  amount_cents: number;
  paid_date: string;
  found_at: string;
  found_by: string;
  resolution: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  note: string | null;
}

export interface PaymentGrantsTable {
  payment_id: number;
  donation_id: number;
  amount_cents: number;
}

/** A person's claim to act for an organisation (migration 031, rules §18). */
export interface CharityClaimsTable {
  id: Generated<number>;
  non_profit_id: number;
  user_id: number;
  email: string;
  domain: string;
  website_on_file: number;
  token_hash: string;
  token_expires_at: string;
  status: 'unconfirmed' | 'pending' | 'approved' | 'rejected';
  created_at: string;
  confirmed_at: string | null;
  decided_at: string | null;
  decided_by: string | null;
  decision_note: string | null;
}
