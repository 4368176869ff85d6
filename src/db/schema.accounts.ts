// Row types of web accounts: sign-in e-mails and password hashes, sessions, sign-in failures.
import type { Generated } from 'kysely';

export interface AccountsTable {
  user_id: number;
  email: string;
  password_hash: string;
  created_at: string;
  /** When the address was proven by a link mailed to it (migration 036); null: not yet. */
  email_confirmed_at: string | null;
}

/** A link mailed to prove an address: the account's own, or the one it is changing to (migration 036). */
export interface AddressConfirmationsTable {
  token_hash: string;
  user_id: number;
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface WebSessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  email: string;
  ip: string;
  at: string;
}
