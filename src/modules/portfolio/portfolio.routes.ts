// The portfolios a donor may choose (GET /v1/portfolios) and the donor's
// choice (/v1/users/me/allocation), rules §19.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { checkedCents, withProblems } from '../../http/schemas.ts';
import { listPortfolios } from './offers-and-valuations.service.ts';
import { AllocationBody, InvestNowBody, PortfolioList } from './portfolio.schema.ts';
import { cancelExchange, getAllocation, investNow, setAllocation } from './allocation.service.ts';
import { Type } from '@sinclair/typebox';

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
    const tags = ['Portfolios'];
    const response = withProblems({ 200: Type.Ref('Allocation') });
    app.get(
      '/users/me/allocation',
      { schema: { tags, summary: "The caller's portfolio, share of contributions to invest, units and what waits for the next valuation", response } },
      async (request) => getAllocation(deps, request.caller),
    );
    app.put(
      '/users/me/allocation',
      {
        schema: {
          tags,
          summary: 'Choose a portfolio (null: cash only) and the whole percent of new contributions to invest; a change of portfolio is an exchange at the next valuation',
          body: AllocationBody,
          response,
        },
      },
      async (request) => setAllocation(deps, request.caller, request.body),
    );
    app.post(
      '/users/me/allocation/investments',
      {
        schema: {
          tags,
          summary: 'Invest money the fund already holds: bought into its chosen portfolio at the next valuation (nothing moves now)',
          body: InvestNowBody,
          response: withProblems({ 201: Type.Ref('Allocation') }),
        },
      },
      async (request, reply) => reply.code(201).send(await investNow(deps, request.caller, checkedCents(request.body.amount))),
    );
    app.delete(
      '/users/me/allocation/exchange',
      { schema: { tags, summary: 'Cancel the exchange waiting for the next valuation: the fund stays in the portfolio it holds', response } },
      async (request) => cancelExchange(deps, request.caller),
    );
  };
}
