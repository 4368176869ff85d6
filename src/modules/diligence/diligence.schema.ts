// The HTTP contract's shapes of due diligence on the operator API (rules §16).
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.ts';

export const ReviewDecisionBody = Type.Object(
  { note: Type.String({ minLength: 1, maxLength: 500, description: 'Why: it goes in the audit log' }) },
  { additionalProperties: false },
);

export const ReviewAction = StringEnum(['clear', 'confirm'] as const);
