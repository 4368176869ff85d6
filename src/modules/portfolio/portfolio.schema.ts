// The HTTP contract's shapes of portfolios, prices and valuations (rules §19), and of the
// operator's move of a fund's money between available and the portfolio.
import { Type } from '@sinclair/typebox';
import { Amount, Nullable, StringEnum } from '../../http/schemas.ts';
import { FEE_BPS_MAX, HOLDINGS_MAX, RISK_LEVELS } from './unit-price.ts';

export const PortfolioMoveBody = Type.Object({ move: StringEnum(['invest', 'liquidate'] as const), amount: Type.Number() }, { additionalProperties: false });

const Holding = Type.Object(
  {
    symbol: Type.String({ description: 'The ticker symbol: capital letters, digits, dots and dashes' }),
    weight: Type.Integer({ description: 'Whole percent of the portfolio; the weights sum to 100' }),
  },
  { additionalProperties: false },
);

export const Portfolio = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    risk_level: StringEnum(RISK_LEVELS),
    annual_fee_bps: Type.Integer({ description: 'The annual fee in basis points (1/100 of a percent), accrued daily from units' }),
    holdings: Type.Array(Holding),
    status: StringEnum(['active', 'retired'] as const),
    unit_price: Nullable(Type.String({ description: 'Dollars per unit at the last valuation, 8 decimals; null before the first' })),
    valued_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Portfolio' },
);

export const PortfolioList = Type.Object({
  items: Type.Array(Type.Ref('Portfolio')),
  meta: Type.Object({ count: Type.Integer(), page: Type.Integer(), last: Type.Integer() }),
});

export const NewPortfolioBody = Type.Object(
  {
    name: Type.String({ maxLength: 200 }),
    description: Type.String({ maxLength: 2000 }),
    risk_level: Type.String(),
    annual_fee_bps: Type.Integer({ description: `0 to ${FEE_BPS_MAX}` }),
    holdings: Type.Array(Holding, { maxItems: HOLDINGS_MAX * 2 }),
  },
  { additionalProperties: false },
);

export const PricesBody = Type.Object(
  {
    prices: Type.Array(
      Type.Object(
        {
          symbol: Type.String({ maxLength: 40 }),
          price: Type.String({ maxLength: 40, description: 'Dollars, up to 8 decimals' }),
          time: Type.String({ maxLength: 40, description: 'ISO 8601' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100_000 },
    ),
  },
  { additionalProperties: false },
);

export const ValuationBody = Type.Object({ at: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; now when left out' })) }, { additionalProperties: false });

export const Allocation = Type.Object(
  {
    portfolio_id: Nullable(Type.Integer({ description: 'The chosen portfolio; null for cash only' })),
    invest_share: Type.Integer({ description: 'Whole percent of each new contribution invested at the next valuation after it clears' }),
    units: Type.String({ description: 'Units held (8 decimals)' }),
    unit_price: Nullable(Type.String({ description: "The held portfolio's unit price at the last valuation" })),
    portfolio_balance: Type.Number({ description: 'Units x unit price at the last valuation, in dollars' }),
    pending_exchange: Nullable(
      Type.Object(
        { to_portfolio_id: Nullable(Type.Integer()), requested_at: Type.String({ format: 'date-time' }) },
        { description: 'A change of portfolio made at the next valuation' },
      ),
    ),
    pending_investment: Type.Number({ description: 'Dollars of cleared contributions to invest at the next valuation' }),
  },
  { $id: 'Allocation' },
);

export const InvestNowBody = Type.Object({ amount: Amount(0.01, 'Money the fund holds, bought into its chosen portfolio at the next valuation') }, { additionalProperties: false });

export const AllocationBody = Type.Object(
  {
    portfolio_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'A portfolio of GET /v1/portfolios, or null for cash only' }),
    invest_share: Type.Integer({ description: 'Whole percent of new contributions to invest, 0 to 100' }),
  },
  { additionalProperties: false },
);
