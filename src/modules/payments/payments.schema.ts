// The HTTP contract's shapes of payment runs and payments on the operator API (rules §17).
import { Type } from '@sinclair/typebox';
import { Ein, StringEnum } from '../../http/schemas.ts';
import { BookQuery } from '../../http/operator.ts';
import { ACH_RETURN_CODES } from './payments.ts';

export const OpenRunBody = Type.Object(
  { pay_date: Type.String({ format: 'date', description: "The day the payments are made (YYYY-MM-DD): the ACH effective date, the checks' date" }) },
  { additionalProperties: false },
);

export const ReturnBody = Type.Object(
  { return_code: StringEnum(Object.keys(ACH_RETURN_CODES), { description: 'The ACH return code the bank gave' }) },
  { additionalProperties: false },
);

export const ReturnsFileBody = Type.Object({ file: Type.String({ minLength: 1, description: "The bank's NACHA return file, as text" }) }, { additionalProperties: false });

export const PaidChecksBody = Type.Object(
  { file: Type.String({ minLength: 1, description: "The bank's paid-checks file, as CSV text with a header naming check_number, amount and paid_date" }) },
  { additionalProperties: false },
);

export const ResolveExceptionBody = Type.Object(
  {
    resolution: StringEnum(['recovered', 'charged'] as const, { description: "recovered: the bank gave the money back; charged: the sponsor's own account bore it" }),
    note: Type.String({ minLength: 1, maxLength: 500, description: 'What was done' }),
  },
  { additionalProperties: false },
);

export const RemittancesQuery = Type.Object(
  {
    ...BookQuery.properties,
    part: Type.Optional(Type.Integer({ minimum: 1, description: 'Which file of the advice (from 1; X-Parts says how many)' })),
  },
  { additionalProperties: false },
);

export const WithdrawRunBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why the run is withdrawn (audited)' }) },
  { additionalProperties: false },
);

export const VoidBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (the donors are told)' }) }, { additionalProperties: false });

export const PayeeAccountBody = Type.Object(
  {
    ein: Ein(),
    routing: Type.String({ description: '9-digit ABA routing number' }),
    account: Type.String({ description: 'Account number, 4 to 17 digits' }),
    account_type: StringEnum(['checking', 'savings'] as const),
    holder: Type.String({ description: "The account holder's name" }),
  },
  { additionalProperties: false },
);
