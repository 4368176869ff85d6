import { Type } from '@sinclair/typebox';
import { Id } from './schemas.ts';
import type { Caller } from '../shared/caller.ts';

/** `:user_id` takes a numeric id, or `me` for the caller. */
export const UserIdParam = Type.Union([Id, Type.Literal('me')], { description: 'User id, or me' });

/** `me` names the holder of the fund the caller acts on (rules §20): the caller, unless they chose a fund they share. */
export function resolveUserId(param: number | 'me', caller: Pick<Caller, 'user_id'>): number {
  return param === 'me' ? caller.user_id : param;
}
