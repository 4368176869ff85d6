// Row types of the national directory: the organisations, their word index and
// vocabulary, the ZIP centres, and the import runs that fill them.
import type { Generated } from 'kysely';

export interface NonProfitsTable {
  id: Generated<number>;
  ein: string;
  name: string;
  name_lower: string;
  website: string | null;
  city: string;
  state: string;
  zip: string;
  latitude: number | null;
  longitude: number | null;
  ntee_code: string | null;
  cause_id: number;
  eligible: number;
  slug: string;
  income_amt: number;
  asset_amt: number;
  tax_period: string;
  source: string;
  last_seen_run: number | null;
  removed_at: string | null;
  created_at: string;
  updated_at: string;
  /** The IRS file's street address. */
  street: string;
  /** RULING: the year and month the IRS recognised the exemption (YYYYMM). */
  ruling: string;
  /** The BMF codes, as the IRS writes them (codes/bmf_field_codes.csv). */
  subsection: string;
  foundation: string;
  affiliation: string;
  organization: string;
  filing_req: string;
  deductibility: string;
  status: string;
  revenue_amt: number;
  /** What the last screening against the due diligence lists found (migration 028): 'clear', a refusal, or 'review'. */
  diligence: Generated<string>;
}

export interface ZipCentroidsTable {
  zip: string;
  latitude: number;
  longitude: number;
}

export interface NonProfitWordsTable {
  word: string;
  non_profit_id: number;
  kind: string;
  /** The organisation's size (BMF income), so the index lists a word's biggest users first. */
  size: Generated<number>;
}

export interface DirectoryVocabularyTable {
  word: string;
  df: number;
}

export interface ImportRunsTable {
  id: Generated<number>;
  started_at: string;
  finished_at: string | null;
  summary: string | null;
}

export interface DirectoryEpochTable {
  id: number;
  /** Raised when the search vocabulary is rebuilt (the end of an import). */
  epoch: number;
  /** Raised by every change of an organisation's shown fields, in its transaction. */
  records_epoch: Generated<number>;
}

export interface DirectoryTopTable {
  word: string;
  non_profit_id: number;
}
