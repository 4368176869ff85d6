// The HTTP contract of donations (spec 2.1, 2.3, 4.2; rules §8).
import { Type } from '@sinclair/typebox';
import { Amount, ExternalId, IsoDate, MetadataInput, MetadataOutput, Nullable, NullableIsoDate, Paged, StringEnum, Ein, Id } from '../../http/schemas.ts';
import { BookQuery } from '../../http/operator.ts';
import { DEDICATION_MAX, DESIGNATION_MAX, DONATION_EVENTS, DONATION_STATUSES, SHARES, VISIBILITIES } from './donations.ts';

const Status = StringEnum(DONATION_STATUSES);
const Visibility = StringEnum(VISIBILITIES);
const Share = StringEnum(SHARES, { description: 'What the charity learns of you: name_and_email, name (the default; not shown when chosen) or anonymous' });

export const CreateDonationBody = Type.Object(
  {
    amount: Amount(10, 'Amount of the donation'),
    ein: Ein('EIN of the recipient non-profit; 123456789 or 12-3456789'),
    note: Type.Optional(Type.String({ maxLength: 1000, description: 'Public note shown with the donation' })),
    private_memo: Type.Optional(Type.String({ maxLength: 1000, description: 'Private memo, never shown to others' })),
    visibility: Type.Optional(Visibility),
    share: Type.Optional(Share),
    designation: Type.Optional(Type.String({ maxLength: DESIGNATION_MAX, description: 'What the donation is for: on the remittance to the charity, shown to you only' })),
    dedication: Type.Optional(Type.String({ maxLength: DEDICATION_MAX, description: 'In honour or memory of: on the remittance to the charity, shown to you only' })),
    external_id: Type.Optional(ExternalId),
    metadata: Type.Optional(MetadataInput),
    fundraiser_id: Type.Optional({ ...Id, description: 'The fundraiser to give to (rules §22): open, and for the same organisation as `ein`' }),
  },
  { additionalProperties: false },
);

/** A change to a donation of the caller's: its metadata (a key set to "" is removed). */
export const UpdateDonationBody = Type.Object({ metadata: MetadataInput }, { additionalProperties: false });

/** Form 2.1. */
export const OwnDonation = Type.Object(
  {
    id: Type.Integer(),
    amount: Type.Number(),
    status: Status,
    note: Type.Optional(Type.String()),
    scheduled_donation_id: Nullable(Type.Integer()),
    visibility: Visibility,
    created_at: IsoDate,
    mailed_at: NullableIsoDate,
    non_profit: Type.Ref('DonationNonProfit'),
    fund: Type.Object({ id: Type.Integer(), name: Type.String() }),
    user: Type.Object({ id: Type.Integer(), name: Type.String(), city: Type.String(), avatar: Type.String(), slug: Type.String() }),
    share: Type.Optional(Share),
    designation: Type.Optional(Type.String()),
    dedication: Type.Optional(Type.String()),
    external_id: Type.Optional(Type.String()),
    metadata: Type.Optional(MetadataOutput),
    fundraiser_id: Type.Optional(Type.Integer({ description: 'The fundraiser it was given to' })),
  },
  { $id: 'OwnDonation' },
);

/** Form 2.3; `amount` and `visibility` appear only for the donation's owner. */
export const UserDonation = Type.Object(
  {
    id: Type.Integer(),
    user_id: Type.Integer(),
    status: Status,
    note: Type.Optional(Type.String()),
    created_at: IsoDate,
    mailed_at: NullableIsoDate,
    non_profit: Type.Ref('DonationNonProfit'),
    amount: Type.Optional(Type.Number({ description: 'Owner only' })),
    visibility: Type.Optional(Visibility),
    share: Type.Optional(Share),
    designation: Type.Optional(Type.String({ description: 'Owner only' })),
    dedication: Type.Optional(Type.String({ description: 'Owner only' })),
    external_id: Type.Optional(Type.String({ description: 'Owner only' })),
    metadata: Type.Optional(MetadataOutput),
    fundraiser_id: Type.Optional(Type.Integer({ description: 'Owner only: the fundraiser it was given to' })),
  },
  { $id: 'UserDonation' },
);

export const OwnDonationPage = Paged(Type.Ref('OwnDonation'));
export const UserDonationPage = Paged(Type.Ref('UserDonation'));

export const DonationIdParams = Type.Object({ donation_id: Id });

/** The most donations one operator batch moves. */
export const DONATIONS_BATCH_MAX = 1000;

/** An operator's reason for rejecting a donation. */
export const RejectBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false });

/** One event for many donations: listed ids, or those in a status (/admin/v1/donations/batch). */
export const DonationBatchBody = Type.Object(
  {
    event: StringEnum(DONATION_EVENTS),
    ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: DONATIONS_BATCH_MAX })),
    status: Type.Optional(Status),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/** The operator's queue (/admin/v1/donations): a status (scheduled unless given), after an id, a book. */
export const QueueQuery = Type.Object(
  {
    ...BookQuery.properties,
    status: Type.Optional(Status),
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'The last id of the page before' })),
  },
  { additionalProperties: false },
);

/** A family member's request declined (rules §20): the reason the requester is told. */
export const DeclineBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }) }, { additionalProperties: false });
