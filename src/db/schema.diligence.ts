// Row types of the due diligence lists and reviews (migration 028, docs/rules.md §16).
import type { Generated } from 'kysely';

export interface DiligenceListsTable {
  id: Generated<number>;
  kind: string;
  as_of: string;
  imported_at: string;
  entries: number;
  source: string;
  sha256: string;
}

export interface RevocationsTable {
  list_id: number;
  ein: string;
  name: string;
  revoked_on: string;
  reinstated_on: string | null;
}

export interface Pub78Table {
  list_id: number;
  ein: string;
  name: string;
  codes: string;
}

export interface SanctionsTable {
  list_id: number;
  entry: number;
  name: string;
  name_key: string;
  kind: string;
  program: string;
}

export interface SanctionReviewsTable {
  id: Generated<number>;
  non_profit_id: number;
  ein: string;
  name: string;
  listed_name: string;
  listed_key: string;
  reason: string;
  status: string;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  note: string | null;
}
