// Who a request acts for: the authenticated user of an API key (http/auth.ts)
// or of a web session (accounts.callerOf), on the fund they act on. Every use case takes one.
import type { Book } from './book.ts';

/** A member's role in a shared fund (rules §20; modules/members). */
export type MemberRole = 'organizer' | 'advisor' | 'family';

export interface Caller {
  /** The holder of the fund the request acts on (the fund's profile): the person, or the fund they chose (rules §20). */
  user_id: number;
  fund_id: number;
  /** The person: the key's, the token's or the session's user, who did what the request does. */
  actor_id: number;
  /** Their role in the fund. */
  role: MemberRole;
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
  /** The app (its row), whose webhook endpoints hear of what its token makes (rules §25). */
  app_id: number;
  connection_id: number;
  client_id: string;
  /** The token's scopes that the donor's connection still grants. */
  scopes: readonly string[];
  monthly_limit_cents: number | null;
}

/**
 * A user's status as a caller: their own, else (a sandbox twin) their live owner's, else the
 * fund's holder's and the holder's owner's: suspending anyone of them stops the request.
 */
export function callerStatus(statuses: ReadonlyArray<string | null>): string {
  return statuses.find((s) => s !== null && s !== 'active') ?? 'active';
}
