// The tables of telling people (migration 019): webhook endpoints, deliveries
// and attempts, the mail outbox, password resets.
import type { ColumnType, Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  book: Book;
  user_id: number;
  url: string;
  description: Generated<string>;
  /** JSON array of event types; [] is every type. */
  event_types: Generated<string>;
  disabled: Generated<number>;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** The person who made it (a member acting on the fund); null before migration 035. It ends with their membership. */
  created_by: number | null;
  /** An app's endpoint (rules §25): it hears of the donations the app made, not of its owner's fund. */
  app_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: number | null;
  message_id: string;
  type: string;
  payload: string;
  /** pending (due at next_at), succeeded, failed (out of attempts, or its endpoint is gone). */
  status: string;
  attempts: Generated<number>;
  next_at: string;
  claimed_until: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  endpoint_id: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  succeeded: number;
}

export interface MailOutboxTable {
  id: Generated<number>;
  event_id: number | null;
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  status: string;
  attempts: Generated<number>;
  next_at: string;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** What one process records for the others (migration 042): `public_url`, the address a server is reached at. */
export interface PlatformSettingsTable {
  name: string;
  value: string;
  updated_at: string;
}
