import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { checkedCents, withProblems } from '../../http/schemas.ts';
import { AdvanceBody, DepositBody } from './sandbox.schema.ts';
import { sandboxAdvance, sandboxDeposit } from './sandbox.service.ts';

export function sandboxRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Sandbox'];
    const responses = withProblems({ 403: Type.Ref('Problem'), 409: Type.Ref('Problem') });

    app.post(
      '/sandbox/deposits',
      {
        schema: {
          tags,
          summary: 'Sandbox keys only: deposit test money (a pending contribution that clears by itself)',
          body: DepositBody,
          response: { ...responses, 201: Type.Object({ contribution_id: Type.Integer() }) },
        },
      },
      async (request, reply) => {
        return reply.code(201).send({ contribution_id: await sandboxDeposit(deps, request.caller, checkedCents(request.body.amount)) });
      },
    );

    app.post(
      '/sandbox/advance',
      {
        schema: {
          tags,
          summary: 'Sandbox keys only: move one of your objects along its state machine',
          body: AdvanceBody,
          response: { ...responses, 200: Type.Object({ status: Type.String() }) },
        },
      },
      async (request) => sandboxAdvance(deps, request.caller, request.body),
    );
  };
}
