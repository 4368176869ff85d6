// Investing: the fund's portfolio and share of contributions to invest, the
// move waiting for the next valuation, the value over time (rules §19).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../modules/accounts/index.ts';
import { cancelExchange, getAllocation, investNow, listPortfolios, setAllocation, valueHistory } from '../../modules/portfolio/index.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import { investPage } from '../pages/invest.ts';
import type { FormState } from '../layout.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

export function investRoutes({ deps }: WebContext) {
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const caller = (request: FastifyRequest) => callerOf(sessionOf(request));
    const show = async (request: FastifyRequest, reply: FastifyReply, options: { state?: FormState; done?: string; form?: 'choose' | 'now' }, status = 200) => {
      const [allocation, portfolios, history] = await Promise.all([
        getAllocation(deps, caller(request)),
        listPortfolios(deps, { all: false }),
        valueHistory(deps, caller(request)),
      ]);
      return sendPage(reply, investPage(request.visitor, { allocation, portfolios, history }, options), status);
    };

    web.get('/invest', async (request, reply) => {
      const done = (request.query as { done?: string }).done;
      return show(request, reply, done === undefined ? {} : { done });
    });

    web.post('/invest', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const portfolio = form.text('portfolio_id', { required: true, max: 20 });
      const share = form.text('invest_share', { required: true, max: 3 });
      if (portfolio !== '' && portfolio !== 'cash' && !/^\d{1,15}$/.test(portfolio)) form.fail('portfolio_id', 'must be one of the portfolios, or cash only');
      if (share !== '' && !/^\d{1,3}$/.test(share)) form.fail('invest_share', 'must be a whole percent from 0 to 100');
      if (!form.ok) return show(request, reply, { state: form.state() }, 422);
      const result = await attempt(() => setAllocation(deps, caller(request), { portfolio_id: portfolio === 'cash' ? null : Number(portfolio), invest_share: Number(share) }));
      if (!result.ok) return show(request, reply, { state: stateOf(result.error, form.values) }, STATUS_OF_KIND[result.error.kind]);
      return reply
        .code(303)
        .header('location', `/invest?done=${result.value.pending_exchange === null ? 'allocation_saved' : 'exchange_waiting'}`)
        .send();
    });

    web.post('/invest/now', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const cents = form.amount('amount', 1);
      if (!form.ok) return show(request, reply, { state: form.state(), form: 'now' }, 422);
      const result = await attempt(() => investNow(deps, caller(request), cents));
      if (!result.ok) return show(request, reply, { state: stateOf(result.error, form.values), form: 'now' }, STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/invest?done=investment_waiting').send();
    });

    web.post('/invest/exchange/cancel', async (request, reply) => {
      const result = await attempt(() => cancelExchange(deps, caller(request)));
      if (!result.ok) return show(request, reply, { state: stateOf(result.error, {}) }, STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/invest?done=exchange_cancelled').send();
    });
  };
}
