// The tables of Login with Almoner (migration 021): apps, the connections
// donors consent to, the OpenID Connect provider's artifacts and keys.
import type { Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

export interface AppsTable {
  id: Generated<number>;
  client_id: string;
  owner_id: number;
  book: Book;
  name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  logo_uri: string | null;
  secret_hash: string;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  /** Deleted by its owner (migration 022): disabled for good. */
  deleted_at: string | null;
}

export interface AppConnectionsTable {
  id: Generated<number>;
  app_id: number;
  user_id: number;
  /** Space-separated. */
  scopes: string;
  grant_id: string;
  monthly_limit_cents: number | null;
  /** 'YYYY-MM' (UTC) that spent_cents counts: the previous release's counter; app_spending since migration 026. */
  spent_month: string | null;
  spent_cents: Generated<number>;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What an app gave in a calendar month (migration 026), and the limit it was last counted under. */
export interface AppSpendingTable {
  connection_id: number;
  /** 'YYYY-MM' (UTC). */
  month: string;
  spent_cents: number;
  limit_cents: number | null;
}

export interface OidcArtifactsTable {
  kind: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

export interface OidcKeysTable {
  id: Generated<number>;
  use: 'signing' | 'cookie';
  secret: string;
  created_at: string;
  retired_at: string | null;
}
