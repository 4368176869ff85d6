import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Event } from './events.schema.ts';
import type { Deps } from '../../deps.ts';
import { setLinkHeader } from '../../http/page.ts';
import { PageQuery, Paged, withProblems } from '../../http/schemas.ts';
import { pageRequest, toPage } from '../../shared/page.ts';
import { listEvents } from './events.store.ts';

export function eventRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/events',
      {
        schema: { tags: ['Events'], summary: "The caller's events, newest first", querystring: PageQuery, response: withProblems({ 200: Paged(Event) }) },
      },
      async (request, reply) => {
        const page = pageRequest(request.query);
        const { rows, count } = await listEvents(deps.db, request.caller.user_id, page);
        const result = toPage(rows, count, page);
        setLinkHeader(request, reply, result.meta, page.per_page);
        return result;
      },
    );
  };
}
