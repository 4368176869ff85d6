import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { setLinkHeader } from '../../http/page.ts';
import { withProblems } from '../../http/schemas.ts';
import { pageRequest } from '../../shared/page.ts';
import { getNonProfit, searchNonProfits } from './nonprofits.service.ts';
import { NonProfitPage, NonProfitSearchQuery } from './nonprofits.schema.ts';

export function nonProfitRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/non_profits', {
      schema: { tags: ['Non-profits'], summary: 'Search non-profits', querystring: NonProfitSearchQuery, response: withProblems({ 200: NonProfitPage }) },
    }, async (request, reply) => {
      const page = pageRequest(request.query);
      const { query, cause_id, state } = request.query;
      const result = await searchNonProfits(deps, { query, cause_id, state }, page);
      setLinkHeader(request, reply, result.meta, page.per_page);
      return result;
    });

    app.get('/non_profits/:ein', {
      schema: {
        tags: ['Non-profits'], summary: 'One non-profit by EIN',
        params: Type.Object({ ein: Type.String({ maxLength: 20, description: '9 digits; 12-3456789 is accepted' }) }),
        response: withProblems({ 200: Type.Ref('NonProfit') }),
      },
    }, async (request) => getNonProfit(deps, request.params.ein));
  };
}
