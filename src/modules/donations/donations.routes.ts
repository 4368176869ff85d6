import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { DONATION_STATUSES } from './donations.ts';
import { exportFilters, sendCsv, wantsCsv } from '../../http/csv.ts';
import { DonationProof } from '../ledger/index.ts';
import { answeringWith, keyedAnswer, sendAnswer, type Answer, type Replayers } from '../../http/idempotency.ts';
import { resolveUserId, UserIdParam } from '../../http/params.ts';
import { ExternalIdPageQuery, checkedCents, EmptyObject, Id, PageQuery, withProblems } from '../../http/schemas.ts';
import { ownDonationsOfFundraiser } from './donations.fundraiser.ts';
import * as service from './donations.service.ts';
import { decideRequest } from './donations.requests.ts';
import { DONATION_CSV_HEADER, exportDonations } from './donations.exports.ts';
import * as lists from './donations.lists.ts';
import { CreateDonationBody, DeclineBody, DonationIdParams, OwnDonationPage, UpdateDonationBody, UserDonationPage } from './donations.schema.ts';
import { updateDonationMetadata } from './donations.partner.ts';

type CreateBody = { amount: number; ein: string; note?: string; private_memo?: string; visibility?: 'public' | 'private' };

function newDonation(body: CreateBody): service.NewDonation {
  return { ...body, amount_cents: checkedCents(body.amount) };
}

/** A new donation's answer: its POST's, and a replay's of the same Idempotency-Key. */
function created(donation: { id: number; user_id: number }): Answer {
  return { status: 201, location: `/v1/users/${donation.user_id}/donations/${donation.id}`, body: donation };
}

export const donationReplayers: Replayers = {
  donation: async (deps, caller, id) => created(await service.getCreatedDonation(deps, caller, Number(id))),
};

export function donationRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Donations'];

    app.get(
      '/donations',
      {
        schema: {
          tags,
          summary: "The caller's donations (form 2.1), newest first; ?external_id= finds the one with your id, ?fundraiser_id= those given to a fundraiser",
          querystring: Type.Object({ ...ExternalIdPageQuery.properties, fundraiser_id: Type.Optional(Id) }, { additionalProperties: true }),
          response: withProblems({ 200: OwnDonationPage }),
        },
      },
      async (request, reply) => {
        if (request.query.external_id !== undefined) return lists.ownDonationsByExternalId(deps, request.caller, request.query.external_id);
        const fundraiser = request.query.fundraiser_id;
        if (fundraiser !== undefined) return listPage(request, reply, (page) => ownDonationsOfFundraiser(deps, request.caller, fundraiser, page));
        // rules §13: Accept: text/csv gives every row matching ?from=&to=&status=, streamed.
        if (wantsCsv(request)) {
          const filters = exportFilters(request.query as Record<string, unknown>, DONATION_STATUSES);
          return sendCsv(reply, 'donations.csv', DONATION_CSV_HEADER, exportDonations(deps, request.caller, filters));
        }
        // Written as UTF-8 bytes, byte for byte what the schema's serializer would write (donations.json.ts).
        const { json } = await listPage(request, reply, (page) => lists.listOwnDonationsJson(deps, request.caller, page));
        return reply.type('application/json; charset=utf-8').send(json);
      },
    );

    app.get(
      '/donations/:donation_id',
      {
        schema: { tags, summary: "One of the caller's donations (form 2.1)", params: DonationIdParams, response: withProblems({ 200: Type.Ref('OwnDonation') }) },
      },
      async (request) => lists.getOwnDonation(deps, request.caller, request.params.donation_id),
    );

    app.post(
      '/donations',
      {
        schema: { tags, summary: "Create a donation from the caller's fund", body: CreateDonationBody, response: withProblems({ 201: Type.Ref('UserDonation') }) },
        config: { keyWrittenWithWork: true },
      },
      async (request, reply) =>
        keyedAnswer(request, reply, async () => {
          const donation = await service.createDonation(deps, request.caller, newDonation(request.body), answeringWith(request.idempotency, created));
          return sendAnswer(reply, created(donation));
        }),
    );

    app.get(
      '/donations/:donation_id/proof',
      {
        schema: {
          tags: ['Donations', 'Ledger'],
          summary: "The donation's journal entries, each with its inclusion proof to the newest signed checkpoint of the log (409 proof_not_ready until one holds them all)",
          params: DonationIdParams,
          response: withProblems({ 200: DonationProof, 409: Type.Ref('Problem') }),
        },
      },
      async (request) => service.proofOfOwnDonation(deps, request.caller, request.params.donation_id),
    );

    app.patch(
      '/donations/:donation_id',
      {
        schema: {
          tags,
          summary: 'Change a donation\'s metadata (a key set to "" is removed)',
          params: DonationIdParams,
          body: UpdateDonationBody,
          response: withProblems({ 200: Type.Ref('OwnDonation') }),
        },
      },
      async (request) => updateDonationMetadata(deps, request.caller, request.params.donation_id, request.body.metadata),
    );

    app.delete(
      '/donations/:donation_id',
      {
        schema: { tags, summary: 'Cancel a scheduled or waiting donation', params: DonationIdParams, response: withProblems({ 200: EmptyObject }) },
      },
      async (request) => {
        await service.cancelDonation(deps, request.caller, request.params.donation_id);
        return {};
      },
    );

    app.post(
      '/donations/:donation_id/approve',
      {
        schema: {
          tags: ['Shared funds'],
          summary: "Approve a family member's request (organizers, advisors): held, or waiting for funds",
          params: DonationIdParams,
          response: withProblems({ 200: Type.Ref('OwnDonation') }),
        },
      },
      async (request) => {
        await decideRequest(deps, request.caller, request.params.donation_id, { approve: true });
        return lists.getOwnDonation(deps, request.caller, request.params.donation_id);
      },
    );

    app.post(
      '/donations/:donation_id/decline',
      {
        schema: {
          tags: ['Shared funds'],
          summary: "Decline a family member's request with a reason (organizers, advisors)",
          params: DonationIdParams,
          body: DeclineBody,
          response: withProblems({ 200: Type.Ref('OwnDonation') }),
        },
      },
      async (request) => {
        await decideRequest(deps, request.caller, request.params.donation_id, { approve: false, reason: request.body.reason });
        return lists.getOwnDonation(deps, request.caller, request.params.donation_id);
      },
    );

    app.get(
      '/users/:user_id/donations',
      {
        schema: {
          tags,
          summary: "A user's donations (form 2.3); others see public ones with reduced fields",
          params: Type.Object({ user_id: UserIdParam }),
          querystring: PageQuery,
          response: withProblems({ 200: UserDonationPage }),
        },
      },
      async (request, reply) => listPage(request, reply, (page) => lists.listUserDonations(deps, request.caller, resolveUserId(request.params.user_id, request.caller), page)),
    );

    app.get(
      '/users/:user_id/donations/:donation_id',
      {
        schema: {
          tags,
          summary: 'One donation of a user (form 2.3)',
          params: Type.Object({ user_id: UserIdParam, donation_id: DonationIdParams.properties.donation_id }),
          response: withProblems({ 200: Type.Ref('UserDonation') }),
        },
      },
      async (request) => service.getUserDonation(deps, request.caller, resolveUserId(request.params.user_id, request.caller), request.params.donation_id),
    );

    app.post(
      '/users/:user_id/donations',
      {
        schema: {
          tags,
          summary: "Create a donation under the caller's own user path",
          params: Type.Object({ user_id: UserIdParam }),
          body: CreateDonationBody,
          response: withProblems({ 201: Type.Ref('UserDonation'), 403: Type.Ref('Problem') }),
        },
        config: { keyWrittenWithWork: true },
      },
      async (request, reply) =>
        keyedAnswer(request, reply, async () => {
          const userId = resolveUserId(request.params.user_id, request.caller);
          const donation = await service.createDonationForUser(deps, request.caller, userId, newDonation(request.body), answeringWith(request.idempotency, created));
          return sendAnswer(reply, created(donation));
        }),
    );
  };
}
