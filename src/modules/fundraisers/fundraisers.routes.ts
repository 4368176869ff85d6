// /v1/fundraisers (rules §22): open one, read any of the caller's book, list and end one's own.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { checkedCents, ExternalIdPageQuery, IdParams, Paged, PageQuery, withProblems } from '../../http/schemas.ts';
import * as service from './fundraisers.service.ts';
import { CreateFundraiserBody, CreateMatchBody, UpdateFundraiserBody } from './fundraisers.schema.ts';
import * as matches from './matches.service.ts';

export function fundraiserRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Fundraisers'];
    const one = Type.Ref('Fundraiser');

    app.post(
      '/fundraisers',
      { schema: { tags, summary: 'Open a fundraiser for an organisation: a goal, days, a story', body: CreateFundraiserBody, response: withProblems({ 201: one }) } },
      async (request, reply) => {
        const { goal, offline_amount, ...rest } = request.body;
        const made = await service.createFundraiser(deps, request.caller, {
          ...rest,
          goal_cents: checkedCents(goal),
          offline_cents: offline_amount === undefined ? undefined : checkedCents(offline_amount),
        });
        return reply.code(201).header('location', `/v1/fundraisers/${made.id}`).send(made);
      },
    );

    app.get(
      '/fundraisers',
      {
        schema: {
          tags,
          summary: "The caller's fundraisers, newest first; ?external_id= finds the one with your id",
          querystring: ExternalIdPageQuery,
          response: withProblems({ 200: Paged(one) }),
        },
      },
      async (request, reply) =>
        request.query.external_id !== undefined
          ? service.fundraisersByExternalId(deps, request.caller, request.query.external_id)
          : listPage(request, reply, (page) => service.listFundraisers(deps, request.caller, page)),
    );

    app.get(
      '/fundraisers/:id',
      {
        schema: {
          tags,
          summary: 'A fundraiser, as anyone sees it (its owner also its partner fields): progress and its newest supporters',
          params: IdParams,
          response: withProblems({ 200: one }),
        },
      },
      async (request) => service.getFundraiser(deps, request.caller, request.params.id),
    );

    app.patch(
      '/fundraisers/:id',
      {
        schema: {
          tags,
          summary: 'Change one of the caller\'s fundraisers\' metadata (a key set to "" is removed)',
          params: IdParams,
          body: UpdateFundraiserBody,
          response: withProblems({ 200: one }),
        },
      },
      async (request) => service.updateFundraiserMetadata(deps, request.caller, request.params.id, request.body.metadata),
    );

    app.post(
      '/fundraisers/:id/end',
      { schema: { tags, summary: "End one of the caller's fundraisers now: it takes no more donations", params: IdParams, response: withProblems({ 200: one }) } },
      async (request) => service.endFundraiserOf(deps, request.caller, request.params.id),
    );

    const match = Type.Ref('Match');
    app.post(
      '/fundraisers/:id/matches',
      {
        schema: {
          tags,
          summary: "Pledge to match a fundraiser's donations at a ratio up to a cap, held from your fund at once",
          params: IdParams,
          body: CreateMatchBody,
          response: withProblems({ 201: match }),
        },
      },
      async (request, reply) => {
        const { ratio, cap, per_donation_cap, give_rest } = request.body;
        const made = await matches.createMatch(deps, request.caller, request.params.id, {
          ratio,
          cap_cents: checkedCents(cap),
          ...(per_donation_cap === undefined ? {} : { per_donation_cap_cents: checkedCents(per_donation_cap) }),
          ...(give_rest === undefined ? {} : { give_rest }),
        });
        return reply.code(201).header('location', `/v1/matches/${made.id}`).send(made);
      },
    );

    app.get(
      '/matches',
      { schema: { tags, summary: "The caller's matches, newest first", querystring: PageQuery, response: withProblems({ 200: Paged(match) }) } },
      async (request, reply) => listPage(request, reply, (page) => matches.listMatches(deps, request.caller, page)),
    );

    app.get('/matches/:id', { schema: { tags, summary: "One of the caller's matches", params: IdParams, response: withProblems({ 200: match }) } }, async (request) =>
      matches.getMatch(deps, request.caller, request.params.id),
    );

    app.post(
      '/matches/:id/end',
      {
        schema: {
          tags,
          summary: 'End one of your matches now: what is left is given (give_rest) or goes back to your fund',
          params: IdParams,
          response: withProblems({ 200: match }),
        },
      },
      async (request) => matches.endMatchOf(deps, request.caller, request.params.id),
    );
  };
}
