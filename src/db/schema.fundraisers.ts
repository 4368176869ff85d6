// Row types of fundraisers and the matches pledged to them (rules §22).
import type { ColumnType, Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

/** A pledge to match a fundraiser's donations (rules §22), its cap held from the matcher's fund. */
export interface MatchesTable {
  id: Generated<number>;
  book: Book;
  fundraiser_id: number;
  user_id: number;
  fund_id: number;
  ratio: number;
  cap_cents: number;
  per_donation_cap_cents: number | null;
  give_rest: number;
  matched_cents: number;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A person's fundraiser for one organisation (rules §22). */
export interface FundraisersTable {
  id: Generated<number>;
  book: Book;
  user_id: number;
  non_profit_id: number;
  title: string;
  story: string;
  goal_cents: number;
  /** Raised outside Almoner, as its organiser says: shown beside what its donations hold or paid. */
  offline_cents: number;
  starts_on: string;
  ends_on: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
}
