import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Schedule, UpdateScheduleBody } from './scheduled.schema.ts';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { sendAnswer, type Answer, type Replayers } from '../../http/idempotency.ts';
import { ExternalIdPageQuery, Amount, checkedCents, EmptyObject, ExternalId, MetadataInput, Paged, StringEnum, withProblems, Ein, Id, IdParams } from '../../http/schemas.ts';
import { SCHEDULE_FREQUENCIES } from './scheduled.ts';
import * as service from './scheduled.service.ts';

/** A new recurring donation's answer: its POST's, and a replay's of the same Idempotency-Key. */
function made(schedule: { id: number }): Answer {
  return { status: 201, location: `/v1/scheduled_donations/${schedule.id}`, body: schedule };
}

export const scheduledReplayers: Replayers = {
  scheduled_donation: async (deps, caller, id) => made(await service.getSchedule(deps, caller, Number(id))),
};

export function scheduledRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Recurring donations'];
    app.post(
      '/scheduled_donations',
      {
        schema: {
          tags,
          summary: 'Create a recurring donation; the scheduler makes a donation on each date',
          body: Type.Object(
            {
              ein: Ein(),
              amount: Amount(10, 'Amount of each donation'),
              frequency: StringEnum(SCHEDULE_FREQUENCIES),
              next_date: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'First date, YYYY-MM-DD (UTC); default today' })),
              note: Type.Optional(Type.String({ maxLength: 1000 })),
              visibility: Type.Optional(StringEnum(['public', 'private'] as const)),
              external_id: Type.Optional(ExternalId),
              metadata: Type.Optional(MetadataInput),
              fundraiser_id: Type.Optional({
                ...Id,
                description: 'A fundraiser open today for this organisation: each payment while it is open is given to it; only the first is matched',
              }),
            },
            { additionalProperties: false },
          ),
          response: withProblems({ 201: Schedule }),
        },
      },
      async (request, reply) => {
        const created = await service.createSchedule(deps, request.caller, { ...request.body, amount_cents: checkedCents(request.body.amount) }, request.idempotency);
        return sendAnswer(reply, made(created));
      },
    );

    app.get(
      '/scheduled_donations',
      {
        schema: {
          tags,
          summary: "The caller's recurring donations; ?external_id= finds the one with your id",
          querystring: ExternalIdPageQuery,
          response: withProblems({ 200: Paged(Schedule) }),
        },
      },
      async (request, reply) =>
        request.query.external_id !== undefined
          ? service.schedulesByExternalId(deps, request.caller, request.query.external_id)
          : listPage(request, reply, (page) => service.listSchedules(deps, request.caller, page)),
    );

    app.patch(
      '/scheduled_donations/:id',
      {
        schema: {
          tags,
          summary: 'Change a recurring donation\'s metadata (a key set to "" is removed)',
          params: IdParams,
          body: UpdateScheduleBody,
          response: withProblems({ 200: Schedule }),
        },
      },
      async (request) => service.updateScheduleMetadata(deps, request.caller, request.params.id, request.body.metadata),
    );

    app.get(
      '/scheduled_donations/:id',
      {
        schema: { tags, summary: 'One recurring donation', params: IdParams, response: withProblems({ 200: Schedule }) },
      },
      async (request) => service.getSchedule(deps, request.caller, request.params.id),
    );

    app.delete(
      '/scheduled_donations/:id',
      {
        schema: { tags, summary: 'Stop a recurring donation (donations already made stay)', params: IdParams, response: withProblems({ 200: EmptyObject }) },
      },
      async (request) => {
        await service.cancelSchedule(deps, request.caller, request.params.id);
        return {};
      },
    );
  };
}
