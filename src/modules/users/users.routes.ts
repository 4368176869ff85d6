import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { resolveUserId, UserIdParam } from '../../http/params.ts';
import { withProblems } from '../../http/schemas.ts';
import { centsToDollars } from '../../shared/money.ts';
import * as service from './users.service.ts';

export function userRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Users'];

    app.get(
      '/users/me',
      {
        schema: { tags, summary: "The caller's profile", response: withProblems({ 200: Type.Ref('Profile') }) },
      },
      async (request) => service.getProfile(deps, request.caller, 'me'),
    );

    app.get(
      '/users/me/balance',
      {
        schema: { tags, summary: "The caller's fund balance", response: withProblems({ 200: Type.Ref('Balance') }) },
      },
      async (request) => {
        const b = await service.getBalance(deps, request.caller);
        return {
          amount: centsToDollars(b.amount_cents),
          pending_deposit_balance: centsToDollars(b.pending_deposit_balance_cents),
          portfolio_balance: centsToDollars(b.portfolio_balance_cents),
          available_balance: centsToDollars(b.available_balance_cents),
        };
      },
    );

    app.get(
      '/users/:user_id',
      {
        schema: {
          tags,
          summary: 'A profile by slug (any case) or numeric id',
          params: Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$', description: 'Profile slug, or an all-digit user id' }) }),
          response: withProblems({ 200: Type.Ref('Profile') }),
        },
      },
      async (request) => service.getProfile(deps, request.caller, request.params.user_id),
    );

    app.get(
      '/users/:user_id/causes',
      {
        schema: {
          tags,
          summary: "The causes of a user's fund (a bare array)",
          params: Type.Object({ user_id: UserIdParam }),
          response: withProblems({ 200: Type.Array(Type.Ref('Cause')) }),
        },
      },
      async (request) => service.listUserCauses(deps, request.caller, resolveUserId(request.params.user_id, request.caller)),
    );
  };
}
