import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { IsoDate, NullableIsoDate, PageQuery, Paged, StringEnum, withProblems } from '../../http/schemas.ts';
import { CONTRIBUTION_STATUSES, CONTRIBUTION_TYPES } from './contributions.ts';
import { listContributions } from './contributions.service.ts';

export const Contribution = Type.Object(
  {
    id: Type.Integer(),
    units: Type.Number({ description: 'Units contributed (up to 8 decimals)' }),
    type: StringEnum(CONTRIBUTION_TYPES),
    status: StringEnum(CONTRIBUTION_STATUSES),
    valuation: Type.Number({ description: 'Unit price in USD (up to 8 decimals)' }),
    currency: Type.String({ description: 'USD, a stock symbol, a crypto token symbol...' }),
    frequency: Type.String({ description: 'OneTime, Weekly, Monthly or Yearly' }),
    created_at: IsoDate,
    received_at: NullableIsoDate,
    completed_at: NullableIsoDate,
  },
  { $id: 'Contribution' },
);

export function contributionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/contributions',
      {
        schema: {
          tags: ['Contributions'],
          summary: "The caller's contributions, newest first",
          querystring: PageQuery,
          response: withProblems({ 200: Paged(Type.Ref('Contribution')) }),
        },
      },
      async (request, reply) => listPage(request, reply, (page) => listContributions(deps, request.caller, page)),
    );
  };
}
