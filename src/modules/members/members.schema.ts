// The HTTP contract of shared funds (rules §20): members, the funds a person may act on.
import { Type } from '@sinclair/typebox';
import { Id, StringEnum } from '../../http/schemas.ts';
import { ROLES } from './members.ts';

export const RoleSchema = StringEnum(ROLES, { description: 'organizer: everything; advisor: gives and invests, sees everything; family: sees, and asks to give' });

export const Member = Type.Object(
  {
    id: Type.Integer(),
    role: RoleSchema,
    status: StringEnum(['invited', 'active'] as const),
    user: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() }), Type.Null()], { description: 'null while the invitation waits' }),
    email: Type.Union([Type.String(), Type.Null()], { description: 'where a waiting invitation went; null once accepted' }),
    invited_at: Type.String({ format: 'date-time' }),
    joined_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    invitation_url: Type.Optional(Type.String({ description: 'Sandbox invitations only: the link a live invitation mails' })),
  },
  { $id: 'FundMember' },
);

export const MemberList = Type.Object({ items: Type.Array(Type.Ref('FundMember')) });

export const InviteBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: RoleSchema }, { additionalProperties: false });

export const RoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

export const FundChoice = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  holder: Type.Object({ id: Type.Integer(), name: Type.String() }),
  role: RoleSchema,
  current: Type.Boolean(),
});

export const MeBody = Type.Object({ current_fund_id: Id }, { additionalProperties: false });
