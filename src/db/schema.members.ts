// Row types of shared funds (migration 033, docs/rules.md §20).
import type { ColumnType, Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

/** The member who did something (migration 033): optional on insert, where a release before it wrote none. */
export type ActorColumn = ColumnType<number | null, number | null | undefined, number | null>;

export interface FundMembersTable {
  id: Generated<number>;
  fund_id: number;
  book: Book;
  user_id: number | null;
  email: string | null;
  role: string;
  status: string;
  token_hash: string | null;
  token_expires_at: string | null;
  invited_by: number | null;
  created_at: string;
  joined_at: string | null;
  ended_at: string | null;
  ended_by: string | null;
}

export interface MemberRolesTable {
  id: Generated<number>;
  member_id: number;
  fund_id: number;
  user_id: number;
  role: string;
  since: string;
  until: string | null;
}

export interface SuccessorLinesTable {
  id: Generated<number>;
  fund_id: number;
  email: string | null;
  ein: string | null;
  share_percent: number | null;
  updated_by: number;
  updated_at: string;
}

export interface DeathRecordsTable {
  id: Generated<number>;
  fund_id: number;
  user_id: number;
  document_reference: string;
  status: string;
  recorded_by: string;
  recorded_at: string;
  approved_by: string | null;
  approved_at: string | null;
  outcome: string | null;
}
