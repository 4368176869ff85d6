// Operators' routes for users (/admin/v1/users): list, create, suspend and
// reactivate, a statement, and a person's data exported or forgotten.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { Id, PageQuery } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { pageRequest } from '../../shared/page.ts';
import { exportUser, forgetUser } from '../privacy/index.ts';
import { createUserAudited, listUsers, setUserStatus, statement } from './users.service.ts';
import { NewUserBody } from './users.schema.ts';

export function userOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/users',
      {
        schema: {
          tags,
          summary: 'Users with their funds (live users; ?book=test for the sandbox twins)',
          querystring: Type.Composite([PageQuery, BookQuery], { additionalProperties: false }),
        },
      },
      async (request) => {
        const page = pageRequest(request.query);
        const { items, count } = await listUsers(deps, bookOf(request), page);
        return { items, meta: { count, page: page.page, last: Math.max(1, Math.ceil(count / page.per_page)) } };
      },
    );

    app.post('/users', { schema: { tags, summary: 'Create a user with a fund', body: NewUserBody } }, async (request, reply) =>
      reply.code(201).send(await createUserAudited(deps, request.body, request.operator.actor)),
    );

    for (const [path, status] of [
      ['suspend', 'suspended'],
      ['reactivate', 'active'],
    ] as const) {
      app.post(`/users/:id/${path}`, { schema: { tags, summary: `${path} a user`, params: Type.Object({ id: Id }) } }, async (request) => {
        await setUserStatus(deps, request.params.id, status, request.operator.actor);
        return {};
      });
    }

    app.get(
      '/users/:id/statement',
      { schema: { tags, summary: "A user's balances and journal lines", params: Type.Object({ id: Id }), querystring: BookQuery } },
      async (request) => statement(deps, bookOf(request), request.params.id),
    );

    app.get(
      '/users/:id/export',
      { schema: { tags, summary: 'Everything stored about a live user and their sandbox twin (a person asking for their data)', params: Type.Object({ id: Id }) } },
      async (request) => exportUser(deps, request.params.id),
    );

    app.post(
      '/users/:id/forget',
      {
        schema: {
          tags,
          summary: "Forget a live user: their personal data is pseudonymised, their keys and sign-in end; the ledger's amounts stay (audited)",
          params: Type.Object({ id: Id }),
        },
      },
      async (request) => {
        await forgetUser(deps, request.params.id, request.operator.actor);
        return {};
      },
    );
  };
}
