// The HTTP contract of a fund's successor plan (rules §20).
import { Type } from '@sinclair/typebox';
import { SUCCESSORS_MAX } from './succession.ts';

export const SuccessorLineSchema = Type.Union([
  Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { additionalProperties: false }),
  Type.Object({ ein: Type.String({ minLength: 9, maxLength: 10 }), share_percent: Type.Integer({ minimum: 1, maximum: 100 }) }, { additionalProperties: false }),
]);

export const SuccessorPlan = Type.Object({
  successors: Type.Array(SuccessorLineSchema, { maxItems: SUCCESSORS_MAX }),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const SuccessorPlanBody = Type.Object({ successors: Type.Array(SuccessorLineSchema, { maxItems: SUCCESSORS_MAX }) }, { additionalProperties: false });
