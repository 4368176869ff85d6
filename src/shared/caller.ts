// Who a request acts for: the authenticated user of an API key (http/auth.ts)
// or of a web session (accounts.callerOf). Every use case takes one.
import type { Book } from './book.ts';

export interface Caller {
  user_id: number;
  fund_id: number;
  key_id: number;
  mode: string;
  /** The book the caller acts in (rules §14): a test key's is 'test'. Every lookup on its behalf names it. */
  book: Book;
  /** The user's status, or for a sandbox twin its live owner's when that is not active: suspending a user stops both. */
  user_status: string;
  last_used_at: string | null;
  /** Set when an app acts for the user with a token of Login with Almoner (ADR 16): what the donor allowed it. */
  app?: AppAccess;
}

export interface AppAccess {
  connection_id: number;
  client_id: string;
  /** The token's scopes that the donor's connection still grants. */
  scopes: readonly string[];
  monthly_limit_cents: number | null;
}
