// The HTTP contract's shapes of contributions: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { Decimal8, Id, IsoDate, MetadataInput, MetadataOutput, NullableIsoDate, StringEnum } from '../../http/schemas.ts';
import { BookQuery } from '../../http/operator.ts';
import { CONTRIBUTION_STATUSES, CONTRIBUTION_TYPES, FREQUENCIES } from './contributions.ts';

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
    external_id: Type.Optional(Type.String()),
    metadata: Type.Optional(MetadataOutput),
  },
  { $id: 'Contribution' },
);

/** A change to a contribution: its metadata (a key set to "" is removed). */
export const UpdateContributionBody = Type.Object({ metadata: MetadataInput }, { additionalProperties: false });

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

/** An operator's contribution (/admin/v1/contributions). */
export const RecordBody = Type.Object(
  {
    user_id: Id,
    type: StringEnum(CONTRIBUTION_TYPES),
    units: Decimal8,
    valuation: Decimal8,
    currency: Type.String({ pattern: '^[A-Z0-9.-]{1,16}$' }),
    frequency: Type.Optional(StringEnum(FREQUENCIES)),
    status: Type.Optional(StringEnum(['waiting_for_funds', 'pending', 'success'] as const)),
  },
  { additionalProperties: false },
);

export const AdvanceBody = Type.Object({ status: StringEnum(['pending', 'success', 'failed'] as const) }, { additionalProperties: false });

export const AwaitingQuery = Type.Composite([BookQuery, Type.Object({ reference: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,20}$' })) })], {
  additionalProperties: false,
});

/** What arrived for a declared contribution. */
export const ReceivedBody = Type.Object(
  {
    units: Type.String({ description: 'What arrived, up to 8 decimals (cash: the dollars)' }),
    valuation: Type.String({ description: 'Per unit in USD, up to 8 decimals (cash: 1)' }),
    valuation_source: Type.Optional(Type.String({ description: 'Where a non-cash valuation came from, e.g. "NYSE close 2026-11-20"' })),
    force: Type.Optional(Type.Boolean({ description: 'Record it even though it is worth more than 10% away from what was declared (audited as forced)' })),
  },
  { additionalProperties: false },
);

export const CorrectionBody = Type.Object({ reason: Type.String({ description: 'Why, as the new receipt states it (1 to 500 characters)' }) }, { additionalProperties: false });

export const ValueCorrectionBody = Type.Object(
  {
    units: Type.String({ description: 'What really arrived, up to 8 decimals (cash: the dollars)' }),
    valuation: Type.String({ description: 'Per unit in USD, up to 8 decimals (cash: 1)' }),
    valuation_source: Type.Optional(Type.String({ description: 'Where a non-cash valuation came from; the first one stays when not given' })),
    reason: Type.String({ description: 'Why the first value was wrong, as the corrected receipt states it (1 to 500 characters)' }),
  },
  { additionalProperties: false },
);

export const ValueCorrected = Type.Object({
  amount: Type.Number({ description: 'The value now, in USD' }),
  previous_amount: Type.Number({ description: 'The value recorded before, in USD' }),
  receipt: Type.Union([Type.String(), Type.Null()], { description: 'The corrected receipt that replaces the last one (a contribution that succeeded), or null' }),
});
