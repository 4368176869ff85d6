// The HTTP contract's shapes of gifts: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { Amount, ExternalId, IsoDate, MetadataInput, MetadataOutput, Nullable, StringEnum } from '../../http/schemas.ts';
import { GIFT_STATUSES } from './gifts.ts';

export const Gift = Type.Object(
  {
    name: Type.String({ description: 'Beneficiary of the gift' }),
    amount: Type.Number(),
    message: Nullable(Type.String()),
    code: Type.String({ format: 'uuid' }),
    ein: Nullable(Type.String()),
    seen: Type.Boolean(),
    status: StringEnum(GIFT_STATUSES),
    updated_at: IsoDate,
    created_at: IsoDate,
    claimed: Type.Boolean(),
    url: Type.String({ description: 'Shareable URL of the gift' }),
    external_id: Type.Optional(Type.String({ description: 'The giver’s only' })),
    metadata: Type.Optional(MetadataOutput),
  },
  { $id: 'Gift' },
);

export const CreateGiftBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Beneficiary of the gift' }),
    amount: Amount(18, 'Gift amount'),
    message: Type.Optional(Type.String({ maxLength: 1000, description: 'Shown to the recipient' })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320, description: 'Where to notify the recipient; stored, never returned' })),
    external_id: Type.Optional(ExternalId),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);

/** A change to one of the giver's gifts: its metadata (a key set to "" is removed). */
export const UpdateGiftBody = Type.Object({ metadata: MetadataInput }, { additionalProperties: false });
