// Row types of portfolios, prices and valuations (migration 032, docs/rules.md §19).
import type { ColumnType, Generated } from 'kysely';

export interface PortfoliosTable {
  id: Generated<number>;
  name: string;
  description: string;
  risk: string;
  fee_bps: number;
  holdings: string;
  status: 'active' | 'retired';
  created_at: string;
  retired_at: string | null;
}

export interface PricesTable {
  id: Generated<number>;
  symbol: string;
  at: string;
  price: string;
  imported_at: string;
}

export interface ValuationsTable {
  id: Generated<number>;
  at: string;
  created_at: string;
  created_by: string;
  /** 'monthly_fees' and 'funds' while its rounds run (migration 056), 'done' once finished. */
  stage: ColumnType<ValuationStage, ValuationStage | undefined, ValuationStage>;
  /** The last fund its rounds have valued (or charged) in its stage; 0 before the first. */
  after_fund_id: ColumnType<number, number | undefined, number>;
  /** JSON: its audit entry in each book. */
  audit_ids: ColumnType<string, string | undefined, string>;
  /** The flat monthly fee it charges each fund (0: none), fixed when it starts. */
  monthly_fee_cents: ColumnType<number, number | undefined, never>;
}

export type ValuationStage = 'monthly_fees' | 'funds' | 'done';

export interface PortfolioValuationsTable {
  valuation_id: number;
  portfolio_id: number;
  unit_price: string;
  prices: string;
  units_outstanding: string;
}

export interface FundAllocationsTable {
  fund_id: number;
  portfolio_id: number | null;
  invest_share: number;
  updated_at: string;
}

export interface FundUnitsTable {
  fund_id: number;
  portfolio_id: number;
  units: string;
}

export interface ExchangesTable {
  id: Generated<number>;
  fund_id: number;
  to_portfolio_id: number | null;
  status: 'pending' | 'executed' | 'cancelled';
  created_at: string;
  done_at: string | null;
  valuation_id: number | null;
  /** The member who asked for it (rules §20). */
  actor_id: import('./schema.members.ts').ActorColumn;
}

export interface InvestmentsTable {
  id: Generated<number>;
  fund_id: number;
  /** The contribution whose share this is; null for money the fund already held (invest now). */
  contribution_id: number | null;
  amount_cents: number;
  status: 'pending' | 'executed' | 'cancelled';
  created_at: string;
  bought_cents: number | null;
  valuation_id: number | null;
  /** Who asked to invest money the fund held (`user:<id>`); null for a contribution's share. */
  actor_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface FundValuationsTable {
  valuation_id: number;
  fund_id: number;
  book: string;
  portfolio_id: number | null;
  units: string;
  value_cents: number;
  fee_basis_units: string;
  fee_ms: number;
  fee_bps: number;
  fee_units: string;
  fee_cents: number;
  gain_cents: number;
  bought_cents: number;
  sold_cents: number;
}

export interface MonthlyFeesTable {
  valuation_id: number;
  fund_id: number;
  book: string;
  cents: number;
  /** The units sold for the part of the fee its available money did not cover. */
  from_units: string;
}
