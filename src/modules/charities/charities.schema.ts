// The HTTP contract's shapes of charities' claims on the operator API (rules §18).
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.ts';

export const ClaimDecisionBody = Type.Object(
  { note: Type.String({ minLength: 1, maxLength: 500, description: 'Why: it goes in the audit log' }) },
  { additionalProperties: false },
);

export const ClaimsQuery = Type.Object(
  {
    status: StringEnum(['unconfirmed', 'pending', 'approved', 'rejected'] as const, {
      default: 'pending',
      description: 'Which claims: by default the confirmed ones waiting for a decision',
    }),
  },
  { additionalProperties: false },
);
