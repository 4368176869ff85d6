import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { Amount, checkedCents, StringEnum, withProblems, Ein, Id } from '../../http/schemas.ts';
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
          body: Type.Object({ amount: Amount(1, 'Amount to deposit') }, { additionalProperties: false }),
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
          body: Type.Union([
            Type.Object(
              { object: Type.Literal('donation'), id: Id, event: StringEnum(['approve', 'reject', 'pay', 'mail_check', 'cash_check', 'void_check'] as const) },
              { additionalProperties: false },
            ),
            Type.Object({ object: Type.Literal('contribution'), id: Id, to: StringEnum(['pending', 'success', 'failed'] as const) }, { additionalProperties: false }),
            Type.Object(
              {
                object: Type.Literal('gift'),
                code: Type.String({ format: 'uuid' }),
                action: StringEnum(['deny', 'claim'] as const),
                ein: Type.Optional(Ein()),
              },
              { additionalProperties: false },
            ),
          ]),
          response: { ...responses, 200: Type.Object({ status: Type.String() }) },
        },
      },
      async (request) => sandboxAdvance(deps, request.caller, request.body),
    );
  };
}
