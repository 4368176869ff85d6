// The HTTP contract of non-profits and causes (spec 2.2, 2.5, 2.7).
import { Type } from '@sinclair/typebox';
import { Nullable, PageQuery, PageMeta } from '../../http/schemas.ts';

export const Cause = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    color: Type.String({ description: 'Hex colour, #RRGGBB' }),
    logo: Type.String({ description: 'Logo URL' }),
  },
  { $id: 'Cause' },
);

export const NonProfit = Type.Object(
  {
    id: Type.Integer({ description: 'Organization id' }),
    ein: Type.String({ description: 'Employer Identification Number, 9 digits' }),
    name: Type.String(),
    website: Nullable(Type.String()),
    city: Type.String(),
    state: Type.String(),
    public_path: Type.String(),
    public_url: Type.String(),
    latitude: Nullable(Type.Number()),
    longitude: Nullable(Type.Number()),
    logo: Type.String(),
    cause: Type.Ref('Cause'),
    causes: Type.Array(Type.Ref('Cause')),
  },
  { $id: 'NonProfit' },
);

/** Form 2.2: the non-profit inside a donation. */
export const DonationNonProfit = Type.Object(
  {
    ein: Type.String(),
    name: Type.String(),
    website: Type.String(),
    city: Type.String(),
    state: Type.String(),
    logo: Type.String(),
    public_path: Type.String(),
    public_url: Type.String(),
    cause_id: Type.Integer(),
  },
  { $id: 'DonationNonProfit' },
);

export const NonProfitSearchQuery = Type.Composite(
  [
    PageQuery,
    Type.Object({
      query: Type.Optional(Type.String({ maxLength: 200, description: 'Name words, an EIN or a city' })),
      cause_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Only non-profits of this cause' })),
      state: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter state code' })),
      near: Type.Optional(Type.String({ maxLength: 40, description: 'lat,lng: only organisations within radius_km of this point' })),
      radius_km: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 500, description: 'With near; default 25' })),
    }),
  ],
  { additionalProperties: true },
);

export const NonProfitPage = Type.Object({
  items: Type.Array(Type.Ref('NonProfit')),
  meta: Type.Composite([
    PageMeta,
    Type.Object({
      count_capped: Type.Optional(
        Type.Boolean({
          description: 'Present and true when count is a lower bound ("2,000+"): the search stopped at its cap, or left unread some organisations that use the words',
        }),
      ),
    }),
  ]),
});
