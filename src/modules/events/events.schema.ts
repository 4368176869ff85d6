// The HTTP contract's shapes of events: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { IsoDate } from '../../http/schemas.ts';

export const Event = Type.Object({
  id: Type.Integer(),
  type: Type.String({ description: 'donation.created, donation.updated, gift.created, gift.updated, contribution.created, contribution.updated' }),
  object_type: Type.String(),
  object_id: Type.Integer(),
  data: Type.Record(Type.String(), Type.Unknown()),
  created_at: IsoDate,
});
