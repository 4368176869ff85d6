import { Type } from '@sinclair/typebox';
import { Id } from './schemas.ts';

/** `:user_id` takes a numeric id, or `me` for the caller. */
export const UserIdParam = Type.Union([Id, Type.Literal('me')], { description: 'User id, or me' });

export function resolveUserId(param: number | 'me', callerId: number): number {
  return param === 'me' ? callerId : param;
}
