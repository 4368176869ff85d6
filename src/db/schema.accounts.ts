// Row types of web accounts: sign-in e-mails and password hashes, sessions, sign-in failures.
import type { Generated } from 'kysely';

export interface AccountsTable {
  user_id: number;
  email: string;
  password_hash: string;
  created_at: string;
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
