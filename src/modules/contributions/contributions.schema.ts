// The HTTP contract's shapes of contributions: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { IsoDate, NullableIsoDate, StringEnum } from '../../http/schemas.ts';
import { CONTRIBUTION_STATUSES, CONTRIBUTION_TYPES } from './contributions.ts';

export const Contribution = Type.Object(
  {
    id: Type.Integer(),
    units: Type.Number({ description: 'Units contributed (up to 8 decimals)' }),
    type: StringEnum(CONTRIBUTION_TYPES),
    status: StringEnum(CONTRIBUTION_STATUSES),
    valuation: Type.Number({ description: 'Unit price in USD (up to 8 decimals)' }),
    currency: Type.String({ description: 'USD, a stock symbol, a crypto token symbol...' }),
    frequency: Type.String({ description: 'OneTime, Weekly, Monthly or Yearly' }),
    created_at: IsoDate,
    received_at: NullableIsoDate,
    completed_at: NullableIsoDate,
  },
  { $id: 'Contribution' },
);

export const Instructions = Type.Object({
  method: StringEnum(['mail_check', 'bank_transfer', 'stock_transfer', 'crypto_transfer', 'daf_transfer'] as const),
  steps: Type.Array(Type.String(), { description: 'What to do, in order' }),
  reference: Type.String({ description: 'To write on the check or in the transfer: ties the money to this contribution' }),
});

/** A contribution with what a declaration adds: its reference, and while it waits, the instructions. */
export const DeclaredContribution = Type.Composite([
  Type.Omit(Contribution, ['$id']),
  Type.Object({ reference: Type.Union([Type.String(), Type.Null()]), instructions: Type.Union([Instructions, Type.Null()]) }),
]);
