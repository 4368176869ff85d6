// The HTTP contract of giving at a charity's checkout (rules §24): the four calls a checkout
// provider makes with a donor's token of Login with Almoner.
import { Type } from '@sinclair/typebox';
import { Ein, Id, IsoDate, Nullable, NullableIsoDate, StringEnum } from '../../http/schemas.ts';
import { DESIGNATION_MAX, DONATION_STATUSES, SHARES } from '../donations/index.ts';
import { GRANT_MAX_DOLLARS, GRANT_MIN_DOLLARS, TRACKING_ID_PATTERN } from './dafpay.ts';

export const CheckoutDonor = Type.Object(
  {
    id: Type.Integer({ description: 'The donor: the person who signed in' }),
    name: Type.Optional(Type.String({ description: 'With the profile scope' })),
    email: Type.Optional(Type.String({ description: 'With the email scope' })),
  },
  { $id: 'CheckoutDonor' },
);

export const GrantableFund = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    holder: Type.Object({ id: Type.Integer(), name: Type.String() }),
    role: StringEnum(['organizer', 'advisor'] as const),
    available_to_grant: Type.Integer({ description: 'Whole dollars the donor may grant from it now: its available money, within the monthly limit they set for the app' }),
  },
  { $id: 'GrantableFund' },
);

export const GrantableFunds = Type.Object({ data: Type.Array(Type.Ref('GrantableFund')) });

export const Grant = Type.Object(
  {
    id: Type.Integer({ description: 'The donation the grant is' }),
    fund_id: Type.Integer(),
    amount: Type.Integer({ description: 'Whole dollars' }),
    status: StringEnum(DONATION_STATUSES, {
      description: "The donation's status: scheduled or waiting_for_funds until approved, then paid (completed) or mailed; rejected, cancelled or voided end it",
    }),
    ein: Type.String(),
    non_profit: Type.Object({ name: Type.String() }),
    tracking_id: Nullable(Type.String()),
    share: StringEnum(SHARES),
    designation: Nullable(Type.String()),
    created_at: IsoDate,
    paid_at: NullableIsoDate,
    voided_at: NullableIsoDate,
  },
  { $id: 'Grant' },
);

export const CreateGrantBody = Type.Object(
  {
    fund_id: { ...Id, description: 'One of GET /v1/dafpay/funds' },
    ein: Ein('EIN of the charity whose checkout it is; 123456789 or 12-3456789'),
    amount: Type.Integer({ minimum: GRANT_MIN_DOLLARS, maximum: GRANT_MAX_DOLLARS, description: `Whole dollars, ${GRANT_MIN_DOLLARS} to ${GRANT_MAX_DOLLARS}` }),
    tracking_id: Type.Optional(
      Type.String({
        pattern: TRACKING_ID_PATTERN,
        description: "The checkout provider's id for it, 1 to 64 letters, digits or dashes: on the charity's remittance and ACH addenda",
      }),
    ),
    share: Type.Optional(StringEnum(SHARES, { description: 'What the charity learns of the donor: name_and_email, name (the default) or anonymous' })),
    designation: Type.Optional(Type.String({ maxLength: DESIGNATION_MAX, description: 'What the grant is for, as the charity will read it' })),
  },
  { additionalProperties: false },
);
