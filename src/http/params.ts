import { Type } from '@sinclair/typebox';

/** `:user_id` takes a numeric id, or `me` for the caller. */
export const UserIdParam = Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Literal('me')], { description: 'User id, or me' });

export function resolveUserId(param: number | 'me', callerId: number): number {
  return param === 'me' ? callerId : param;
}
