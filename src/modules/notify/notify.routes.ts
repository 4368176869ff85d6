// What a webhook delivery of one of the caller's events carries (GET /v1/events/:id/delivery):
// the relay's own rendering, so a handler tested against it (`alms listen`) sees in production
// exactly the body it saw on a laptop.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { IdParams, withProblems } from '../../http/schemas.ts';
import { notFound } from '../../shared/errors.ts';
import { eventOfUser } from '../events/index.ts';
import { deliveryOf } from './notify.relay.ts';

const Delivery = Type.Object({
  webhook_id: Type.String({ description: 'The `webhook-id` header its deliveries carry (evt_ and the event id)' }),
  body: Type.String({ description: 'The body its deliveries carry, byte for byte: {type, timestamp, data} with the object as its owner reads it' }),
});

export function notifyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/events/:id/delivery',
      {
        schema: {
          tags: ['Events'],
          summary: 'What a webhook delivery of one of your events carries: its webhook-id and its body, rendered now as the platform renders deliveries',
          params: IdParams,
          response: withProblems({ 200: Delivery }),
        },
      },
      async (request) => {
        const event = await eventOfUser(deps.db, request.caller.user_id, request.params.id);
        if (event === undefined) throw notFound('event_not_found', `no event ${request.params.id}`);
        return await deliveryOf(deps, event);
      },
    );
  };
}
