// The HTTP contract's shapes of the sandbox (/v1/sandbox): test money in, and one of a sandbox
// key's own objects moved along its state machine.
import { Type } from '@sinclair/typebox';
import { Amount, Ein, Id, StringEnum } from '../../http/schemas.ts';
import { DONATION_EVENTS } from '../donations/index.ts';

export const DepositBody = Type.Object({ amount: Amount(1, 'Amount to deposit') }, { additionalProperties: false });

export const AdvanceBody = Type.Union([
  Type.Object({ object: Type.Literal('donation'), id: Id, event: StringEnum(DONATION_EVENTS) }, { additionalProperties: false }),
  Type.Object({ object: Type.Literal('contribution'), id: Id, to: StringEnum(['pending', 'success', 'failed'] as const) }, { additionalProperties: false }),
  Type.Object(
    {
      object: Type.Literal('gift'),
      code: Type.String({ format: 'uuid' }),
      action: StringEnum(['deny', 'claim'] as const),
      ein: Type.Optional(Ein()),
    },
    { additionalProperties: false },
  ),
]);
