// Row types of contributions (rules §7) and their receipts (§13).
import type { ColumnType, Generated } from 'kysely';
import type { ActorColumn } from './schema.members.ts';
import type { Book } from '../shared/book.ts';

export interface ContributionsTable {
  id: Generated<number>;
  user_id: number;
  fund_id: number;
  type: string;
  status: string;
  units: string;
  valuation: string;
  currency: string;
  frequency: string;
  amount_cents: number;
  created_at: string;
  received_at: string | null;
  completed_at: string | null;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
  /** 016: a declared contribution's reference (ALM-XXXX-XXXX), unique; null for one an operator recorded. */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  declared_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** 041: what the donor declared (cents), kept when the arrival sets amount_cents; null when not declared or before 041. */
  declared_cents: ColumnType<number | null, number | null | undefined, number | null>;
  cancelled_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where the valuation of non-cash assets came from (e.g. "NYSE close 2026-11-20"). */
  valuation_source: ColumnType<string | null, string | null | undefined, string | null>;
  /** The member who declared it (rules §20); null for one an operator recorded. */
  actor_id: ActorColumn;
  /** Partner fields (rules §21): the owner's own id for it (unique per owner) and its metadata, a JSON object of strings. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ReceiptsTable {
  id: Generated<number>;
  book: Book;
  contribution_id: number;
  user_id: number;
  /** A correction names the receipt it replaces; both remain. */
  replaces_id: number | null;
  issued_at: string;
  /** The receipt as issued (JSON): never changed. */
  body: string;
}
