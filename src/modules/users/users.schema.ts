// The HTTP contract's shapes of users: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.ts';

export const UserRef = Type.Object({ id: Type.Integer(), name: Type.String(), avatar: Type.String(), slug: Type.String() });

export const Profile = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    avatar: Type.String(),
    cover_image: Type.String(),
    slug: Type.String(),
    fund_name: Type.String(),
    visible: Type.Optional(Type.Boolean({ description: 'Own profile only' })),
    current_fund: Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      summary: Type.String(),
      causes: Type.Array(Type.Ref('Cause')),
      users: Type.Array(UserRef),
    }),
    follows_user: Type.Boolean({ description: 'The viewer follows this user' }),
    follows_viewer: Type.Boolean({ description: 'This user follows the viewer' }),
    onboarding_status: StringEnum(['none', 'complete'] as const),
  },
  { $id: 'Profile' },
);

export const Balance = Type.Object(
  {
    amount: Type.Number({ description: 'available + reserved + portfolio' }),
    pending_deposit_balance: Type.Number(),
    portfolio_balance: Type.Number(),
    available_balance: Type.Number(),
  },
  { $id: 'Balance' },
);

/** An operator's new user (/admin/v1/users). */
export const NewUserBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    slug: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,60}$' })),
    city: Type.Optional(Type.String({ maxLength: 200 })),
    visible: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
