// The portfolios a donor may choose (GET /v1/portfolios, rules §19).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { withProblems } from '../../http/schemas.ts';
import { listPortfolios } from './portfolios.service.ts';
import { PortfolioList } from './portfolio.schema.ts';

export function portfolioRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/portfolios',
      {
        schema: { tags: ['Portfolios'], summary: 'The portfolios a donor may choose, with their unit price at the last valuation', response: withProblems({ 200: PortfolioList }) },
      },
      async () => {
        const items = await listPortfolios(deps, { all: false });
        return { items, meta: { count: items.length, page: 1, last: 1 } };
      },
    );
  };
}
