import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreateGiftBody, UpdateGiftBody } from './gifts.schema.ts';
import { updateGiftMetadata } from './gifts.partner.ts';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { sendAnswer, type Answer, type Replayers } from '../../http/idempotency.ts';
import { ExternalIdPageQuery, checkedCents, Paged, withProblems, Ein } from '../../http/schemas.ts';
import * as service from './gifts.service.ts';

/** A new gift's answer: its POST's, and a replay's of the same Idempotency-Key. */
function created(gift: { code: string }): Answer {
  return { status: 201, location: `/v1/gifts/${gift.code}`, body: gift };
}

export const giftReplayers: Replayers = {
  gift: async (deps, caller, code) => created(await service.getGift(deps, caller, code)),
  // A recipient's accept, claim or deny answers with the gift as it is then.
  gift_action: async (deps, caller, code) => ({ status: 200, body: await service.giftFormByCode(deps, caller, code) }),
};

export function giftRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Gifts'];

    app.get(
      '/gifts',
      {
        schema: {
          tags,
          summary: "The caller's gifts, newest first; ?external_id= finds the one with your id",
          querystring: ExternalIdPageQuery,
          response: withProblems({ 200: Paged(Type.Ref('Gift')) }),
        },
      },
      async (request, reply) =>
        request.query.external_id !== undefined
          ? service.giftsByExternalId(deps, request.caller, request.query.external_id)
          : listPage(request, reply, (page) => service.listGifts(deps, request.caller, page)),
    );

    app.patch(
      '/gifts/:code',
      {
        schema: {
          tags,
          summary: 'Change one of the caller\'s gifts\' metadata (a key set to "" is removed)',
          params: Type.Object({ code: Type.String({ format: 'uuid' }) }),
          body: UpdateGiftBody,
          response: withProblems({ 200: Type.Ref('Gift') }),
        },
      },
      async (request) => service.getGift(deps, request.caller, await updateGiftMetadata(deps, request.caller, request.params.code, request.body.metadata)),
    );

    app.get(
      '/gifts/:code',
      {
        schema: {
          tags,
          summary: "One of the caller's gifts",
          params: Type.Object({ code: Type.String({ format: 'uuid' }) }),
          response: withProblems({ 200: Type.Ref('Gift') }),
        },
      },
      async (request) => service.getGift(deps, request.caller, request.params.code),
    );

    app.post(
      '/gifts',
      {
        schema: { tags, summary: "Create a gift; its amount is held from the caller's available balance", body: CreateGiftBody, response: withProblems({ 201: Type.Ref('Gift') }) },
      },
      async (request, reply) => {
        const gift = await service.createGift(deps, request.caller, { ...request.body, amount_cents: checkedCents(request.body.amount) }, request.idempotency);
        return sendAnswer(reply, created(gift));
      },
    );

    // The recipient's side (rules §7): whoever holds the gift's code, except its giver.
    const CodeParams = Type.Object({ code: Type.String({ format: 'uuid' }) });
    const recipientResponses = withProblems({ 200: Type.Ref('Gift'), 403: Type.Ref('Problem'), 409: Type.Ref('Problem') });

    app.post(
      '/gifts/:code/accept',
      {
        schema: { tags, summary: "Accept a gift into the caller's own fund", params: CodeParams, response: recipientResponses },
      },
      async (request) => service.acceptGift(deps, request.caller, request.params.code, request.idempotency),
    );

    app.post(
      '/gifts/:code/claim',
      {
        schema: {
          tags,
          summary: 'Direct a gift to a non-profit: a donation is made from the held money',
          params: CodeParams,
          body: Type.Object({ ein: Ein() }, { additionalProperties: false }),
          response: recipientResponses,
        },
      },
      async (request) => service.claimGift(deps, request.caller, request.params.code, request.body.ein, request.idempotency),
    );

    app.post(
      '/gifts/:code/deny',
      {
        schema: { tags, summary: 'Refuse a gift: the money goes back to the giver', params: CodeParams, response: recipientResponses },
      },
      async (request) => service.denyGift(deps, request.caller, request.params.code, request.idempotency),
    );
  };
}
