// Operators' routes for portfolios (rules §19): the portfolios offered, the
// prices imported, the valuations made; and a fund's money moved between
// available and invested by hand (/admin/v1/users/:id/portfolio).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { IdParams } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { AppError } from '../../shared/errors.ts';
import { parseDollars } from '../../shared/money.ts';
import { fundOfUser } from '../users/index.ts';
import { movePortfolio } from './operator-moves.service.ts';
import { NewPortfolioBody, PortfolioMoveBody, PricesBody, ValuationBody } from './portfolio.schema.ts';
import { createPortfolio, getPortfolio, importPrices, listPortfolios, retirePortfolio, runValuation } from './offers-and-valuations.service.ts';

export function portfolioOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/portfolios', { schema: { tags, summary: 'Every portfolio, retired ones too, with its last unit price' } }, async () => ({
      items: await listPortfolios(deps, { all: true }),
    }));
    app.get('/portfolios/:id', { schema: { tags, summary: 'One portfolio', params: IdParams } }, async (request) => getPortfolio(deps, request.params.id));
    app.post('/portfolios', { schema: { tags, summary: 'Offer a portfolio: what it holds and its annual fee (audited)', body: NewPortfolioBody } }, async (request, reply) =>
      reply.code(201).send(await createPortfolio(deps, request.body, request.operator.actor)),
    );
    app.post('/portfolios/:id/retire', { schema: { tags, summary: 'No donor may choose it any more (audited)', params: IdParams } }, async (request) =>
      retirePortfolio(deps, request.params.id, request.operator.actor),
    );
    app.post(
      '/prices',
      { schema: { tags, summary: 'Import prices (symbol, price, time), all or none: a bad, duplicate or future row refuses them all', body: PricesBody } },
      async (request, reply) => reply.code(201).send(await importPrices(deps, request.body.prices, request.operator.actor)),
    );
    app.post(
      '/valuations',
      {
        schema: {
          tags,
          summary:
            "A valuation: every portfolio's unit price from its holdings' prices at the time (default now), then every invested fund valued a round at a time; answered once done (409 valuation_running while an interrupted one is still to finish)",
          body: ValuationBody,
        },
      },
      async (request, reply) => reply.code(201).send(await runValuation(deps, request.body.at, request.operator.actor)),
    );
    app.post(
      '/users/:id/portfolio',
      { schema: { tags, summary: 'Move money between available and the portfolio', params: IdParams, querystring: BookQuery, body: PortfolioMoveBody } },
      async (request) => {
        const amount = parseDollars(request.body.amount);
        if (!amount.ok)
          throw new AppError('unprocessable', 'amount_invalid', `amount ${amount.reason}`, { errors: [{ field: 'amount', code: 'amount_invalid', message: amount.reason }] });
        await movePortfolio(deps, (await fundOfUser(deps, bookOf(request), request.params.id)).id, request.body.move, amount.cents, request.operator.actor);
        return {};
      },
    );
  };
}
