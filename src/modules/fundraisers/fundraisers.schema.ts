// The HTTP contract of fundraisers (rules §22).
import { Type } from '@sinclair/typebox';
import { Amount, Ein, ExternalId, IsoDate, MetadataInput, MetadataOutput, Nullable, NullableIsoDate, StringEnum } from '../../http/schemas.ts';
import { STORY_MAX, TITLE_MAX } from './fundraisers.ts';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A calendar day, YYYY-MM-DD (UTC)' });

export const CreateFundraiserBody = Type.Object(
  {
    ein: Ein('EIN of the organisation it raises for; 123456789 or 12-3456789'),
    title: Type.String({ minLength: 1, maxLength: TITLE_MAX, pattern: '\\S' }),
    story: Type.Optional(Type.String({ maxLength: STORY_MAX, description: 'Why you raise: shown on its page' })),
    goal: Amount(1, 'What you aim to raise'),
    offline_amount: Type.Optional(Amount(0, 'Raised outside Almoner, shown in its progress')),
    starts_on: Type.Optional({ ...Day, description: 'Its first day (today when not given)' }),
    ends_on: Type.Optional({ ...Day, description: 'Its last day, inclusive (none: open until you end it)' }),
    external_id: Type.Optional(ExternalId),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);

export const UpdateFundraiserBody = Type.Object({ metadata: MetadataInput }, { additionalProperties: false });

export const Fundraiser = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    story: Type.String(),
    status: StringEnum(['upcoming', 'open', 'ended'] as const),
    goal: Type.Number(),
    raised: Type.Number({ description: 'Its donations that hold or paid money (scheduled, approved, check mailed, completed), and offline_amount' }),
    offline_amount: Type.Number(),
    percent: Type.Integer({ description: 'raised of goal, whole percent, at most 100' }),
    donations: Type.Integer({ description: 'How many donations raised it' }),
    starts_on: Type.String(),
    ends_on: Nullable(Type.String()),
    ended_at: NullableIsoDate,
    created_at: IsoDate,
    url: Nullable(Type.String({ description: 'Its public page, where anyone sees its progress and a signed-in donor gives (null in the sandbox)' })),
    non_profit: Type.Ref('DonationNonProfit'),
    organizer: Nullable(Type.Object({ name: Type.String(), slug: Type.String() }, { description: 'null when their profile is hidden' })),
    matching: Type.Object(
      {
        matched: Type.Number({ description: 'What its matches gave' }),
        remaining: Type.Number({ description: 'What its live matches still hold for donations to come' }),
        matchers: Type.Integer({ description: 'Live matches' }),
      },
      { description: 'Its matches (rules §22)' },
    ),
    supporters: Type.Optional(
      Type.Array(Type.Object({ name: Nullable(Type.String()), created_at: IsoDate }), {
        description: 'The newest donors, a name only where the donation is public, its donor visible and not anonymous (one read: GET /v1/fundraisers/:id)',
      }),
    ),
    external_id: Type.Optional(Type.String({ description: 'Owner only' })),
    metadata: Type.Optional(MetadataOutput),
  },
  { $id: 'Fundraiser' },
);

export const CreateMatchBody = Type.Object(
  {
    ratio: Type.Integer({ minimum: 1, maximum: 10, description: 'You give ratio times each donation matched: 1 for 1:1, 2 for 2:1' }),
    cap: Amount(1, 'The most you give in all: held from your available money at once'),
    per_donation_cap: Type.Optional(Amount(1, 'The most you give for any one donation')),
    give_rest: Type.Optional(Type.Boolean({ description: 'When it ends, give what is left to the organisation too (else it goes back to your fund)' })),
  },
  { additionalProperties: false },
);

export const Match = Type.Object(
  {
    id: Type.Integer(),
    fundraiser_id: Type.Integer(),
    ratio: Type.Integer(),
    cap: Type.Number(),
    per_donation_cap: Nullable(Type.Number()),
    give_rest: Type.Boolean(),
    matched: Type.Number({ description: 'What it has given for donations matched' }),
    remaining: Type.Number({ description: 'What it still holds (0 once ended)' }),
    status: StringEnum(['live', 'ended'] as const),
    created_at: IsoDate,
    ended_at: NullableIsoDate,
  },
  { $id: 'Match' },
);
