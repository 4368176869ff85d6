// Row types of portfolios, prices and valuations (migration 032, docs/rules.md §19).
import type { Generated } from 'kysely';

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
}

export interface PortfolioValuationsTable {
  valuation_id: number;
  portfolio_id: number;
  unit_price: string;
  prices: string;
}
