// Operators' route for a fund's portfolio (/admin/v1/users/:id/portfolio):
// money moved between available and invested.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { IdParams } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { AppError } from '../../shared/errors.ts';
import { parseDollars } from '../../shared/money.ts';
import { fundOfUser } from '../users/index.ts';
import { movePortfolio } from './portfolio.service.ts';
import { PortfolioMoveBody } from './portfolio.schema.ts';

export function portfolioOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
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
