// /v1/dafpay (rules §24): the four calls a checkout provider makes with a donor's token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { sendAnswer, type Answer, type Replayers } from '../../http/idempotency.ts';
import { IdParams, withProblems } from '../../http/schemas.ts';
import * as service from './dafpay.service.ts';
import { CreateGrantBody, GrantableFunds } from './dafpay.schema.ts';

const created = (grant: { id: number }): Answer => ({ status: 201, location: `/v1/dafpay/grants/${grant.id}`, body: grant });

/** A grant's POST replayed after its answer was lost answers the grant, not the donation it is. */
export const dafpayReplayers: Replayers = {
  'POST /v1/dafpay/grants donation': async (deps, caller, id) => created(await service.getGrant(deps, caller, Number(id))),
};

export function dafpayRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Giving at a checkout'];
    const grant = Type.Ref('Grant');

    app.get(
      '/dafpay/donor',
      { schema: { tags, summary: 'Who is giving: the donor the token acts for', response: withProblems({ 200: Type.Ref('CheckoutDonor') }) } },
      async (request) => service.checkoutDonor(deps, request.caller),
    );

    app.get(
      '/dafpay/funds',
      {
        schema: {
          tags,
          summary: 'The funds the donor may grant from (advisor or organizer), with the whole dollars each may grant now',
          response: withProblems({ 200: GrantableFunds }),
        },
      },
      async (request) => service.grantableFunds(deps, request.caller),
    );

    app.post(
      '/dafpay/grants',
      {
        schema: {
          tags,
          summary: 'Grant whole dollars from a fund to the charity of the checkout; send an Idempotency-Key',
          body: CreateGrantBody,
          response: withProblems({ 201: grant }),
        },
      },
      async (request, reply) => sendAnswer(reply, created(await service.createGrant(deps, request.caller, request.body, request.idempotency))),
    );

    app.get(
      '/dafpay/grants/:id',
      { schema: { tags, summary: 'A grant this app made: its status, paid or voided', params: IdParams, response: withProblems({ 200: grant }) } },
      async (request) => service.getGrant(deps, request.caller, request.params.id),
    );
  };
}
