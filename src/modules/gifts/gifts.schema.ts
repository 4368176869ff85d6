// The HTTP contract's shapes of gifts: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { Amount, IsoDate, Nullable, StringEnum } from '../../http/schemas.ts';
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
  },
  { $id: 'Gift' },
);

export const CreateGiftBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Beneficiary of the gift' }),
    amount: Amount(18, 'Gift amount'),
    message: Type.Optional(Type.String({ maxLength: 1000, description: 'Shown to the recipient' })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320, description: 'Where to notify the recipient; stored, never returned' })),
  },
  { additionalProperties: false },
);
