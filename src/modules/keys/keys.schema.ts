// The HTTP contract's shapes of keys: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { IsoDate, NullableIsoDate, StringEnum } from '../../http/schemas.ts';

export const ApiKey = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    last4: Type.String(),
    mode: StringEnum(['live', 'test'] as const),
    created_at: IsoDate,
    last_used_at: NullableIsoDate,
  },
  { $id: 'ApiKey' },
);

export const CreatedApiKey = Type.Composite([ApiKey, Type.Object({ key: Type.String({ description: 'The full key: shown this once only' }) })]);
