// Operators' routes for donations (/admin/v1/donations): one event on one
// donation, or on many at once (all or none).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { IdParams } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { AppError } from '../../shared/errors.ts';
import { DONATION_EVENTS, type DonationStatus } from './donations.ts';
import { applyDonationEvent, applyDonationEventToMany, donationIdsInStatus } from './donations.service.ts';
import { donationQueue } from './donations.lists.ts';
import { DONATIONS_BATCH_MAX, DonationBatchBody, QueueQuery, RejectBody } from './donations.schema.ts';

/** Donations a queue page holds. */
const QUEUE_PAGE = 100;

export function donationOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const event of DONATION_EVENTS) {
      app.post(
        `/donations/:id/${event}`,
        {
          schema: {
            tags,
            summary: `${event.replace('_', ' ')} a donation`,
            params: IdParams,
            querystring: BookQuery,
            ...(event === 'reject' ? { body: RejectBody } : {}),
          },
        },
        async (request) => {
          const reason = (request.body as { reason?: string } | undefined)?.reason;
          const status = await applyDonationEvent(deps, bookOf(request), request.params.id, event, { actor: request.operator.actor, ...(reason === undefined ? {} : { reason }) });
          return { id: request.params.id, status };
        },
      );
    }

    app.get(
      '/donations',
      {
        schema: {
          tags,
          summary: 'The queue: donations in a status (scheduled, waiting for approval, by default), oldest first, 100 at a time after ?after=ID',
          querystring: QueueQuery,
        },
      },
      async (request) => {
        const status = (request.query.status ?? 'scheduled') as DonationStatus;
        const items = await donationQueue(deps, bookOf(request), status, QUEUE_PAGE + 1, request.query.after ?? 0);
        return { items: items.slice(0, QUEUE_PAGE), more: items.length > QUEUE_PAGE };
      },
    );

    app.post(
      '/donations/batch',
      {
        schema: {
          tags,
          summary:
            'Apply one event to many donations, all or none: listed ids, or up to 1,000 donations in a status ("pay every approved donation"; `more` says whether some remain: call again); live donations unless ?book=test',
          querystring: BookQuery,
          body: DonationBatchBody,
        },
      },
      async (request) => {
        const b = request.body;
        if ((b.ids === undefined) === (b.status === undefined)) {
          throw new AppError('unprocessable', 'validation_failed', 'give either ids or status', {
            errors: [{ field: 'ids', code: 'validation_failed', message: 'give either ids or status, not both' }],
          });
        }
        const status = b.status as DonationStatus | undefined;
        const ids = b.ids ?? (await donationIdsInStatus(deps, bookOf(request), status as DonationStatus, DONATIONS_BATCH_MAX));
        // One transaction: all of them or none. `more`: donations still in that status (call again).
        const result = await applyDonationEventToMany(deps, bookOf(request), ids, b.event, {
          actor: request.operator.actor,
          ...(b.reason === undefined ? {} : { reason: b.reason }),
        });
        const more = status !== undefined && (await donationIdsInStatus(deps, bookOf(request), status, 1)).length > 0;
        return { ...result, more };
      },
    );
  };
}
