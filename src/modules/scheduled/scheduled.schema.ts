// The HTTP contract's shapes of scheduled: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { IsoDate, MetadataInput, MetadataOutput, Nullable, StringEnum } from '../../http/schemas.ts';
import { SCHEDULE_FREQUENCIES } from './scheduled.ts';

export const Schedule = Type.Object({
  id: Type.Integer(),
  ein: Type.String(),
  non_profit_name: Type.String(),
  amount: Type.Number(),
  frequency: StringEnum(SCHEDULE_FREQUENCIES),
  next_date: Nullable(Type.String({ format: 'date' })),
  status: StringEnum(['active', 'cancelled', 'completed'] as const),
  note: Nullable(Type.String()),
  visibility: StringEnum(['public', 'private'] as const),
  created_at: IsoDate,
  fundraiser_id: Nullable(Type.Integer({ description: 'The fundraiser its payments are given to while it is open; only the first is matched' })),
  external_id: Type.Optional(Type.String()),
  metadata: Type.Optional(MetadataOutput),
});

/** A change to a recurring donation: its metadata (a key set to "" is removed). */
export const UpdateScheduleBody = Type.Object({ metadata: MetadataInput }, { additionalProperties: false });
