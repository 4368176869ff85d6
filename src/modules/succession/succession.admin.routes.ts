// Operators' routes for deaths (/admin/v1/deaths, rules §20): one operator
// records, a second approves, and the fund's successor plan runs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { Id, IdParams, StringEnum } from '../../http/schemas.ts';
import { OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { approveDeath, listDeaths, recordDeath } from './succession.service.ts';

export function deathOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/deaths',
      {
        schema: {
          tags,
          summary: 'Recorded deaths, newest first',
          querystring: Type.Object({ status: Type.Optional(StringEnum(['recorded', 'approved'] as const)) }, { additionalProperties: false }),
        },
      },
      async (request) => ({ items: await listDeaths(deps, request.query.status) }),
    );
    app.post(
      '/deaths',
      {
        schema: {
          tags,
          summary: "Record the death of a fund's holder with a document's reference (audited); nothing happens until a second operator approves",
          body: Type.Object({ user_id: Id, document_reference: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => reply.code(201).send(await recordDeath(deps, request.body.user_id, request.body.document_reference, request.operator.actor)),
    );
    app.post(
      '/deaths/:id/approve',
      { schema: { tags, summary: "A second operator approves a recorded death: the fund's successor plan runs (audited)", params: IdParams } },
      async (request) => approveDeath(deps, request.params.id, request.operator.actor),
    );
  };
}
