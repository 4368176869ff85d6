// A fund's successor plan on the API (rules §20): who becomes its organizers, and which
// charities receive its money, when its holder dies. Organizers read and replace it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { withProblems } from '../../http/schemas.ts';
import { getPlan, setPlan } from './succession.service.ts';
import { SuccessorPlan, SuccessorPlanBody } from './succession.schema.ts';

export function successionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Shared funds'];
    app.get('/fund/successor_plan', { schema: { tags, summary: "The fund's successor plan (organizers)", response: withProblems({ 200: SuccessorPlan }) } }, async (request) =>
      getPlan(deps, request.caller),
    );

    app.put(
      '/fund/successor_plan',
      {
        schema: {
          tags,
          summary: 'Replace the successor plan: people (by e-mail) who become organizers, charities (by EIN) whose shares sum to 100',
          body: SuccessorPlanBody,
          response: withProblems({ 200: SuccessorPlan }),
        },
      },
      async (request) => setPlan(deps, request.caller, request.body.successors),
    );
  };
}
