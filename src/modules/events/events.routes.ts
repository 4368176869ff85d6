import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { setLinkHeader } from '../../http/page.ts';
import { IsoDate, PageQuery, Paged, withProblems } from '../../http/schemas.ts';
import { offsetOf, pageRequest, toPage } from '../../shared/page.ts';

const Event = Type.Object({
  id: Type.Integer(),
  type: Type.String({ description: 'donation.created, donation.updated, gift.created, gift.updated, contribution.created, contribution.updated' }),
  object_type: Type.String(),
  object_id: Type.Integer(),
  data: Type.Record(Type.String(), Type.Unknown()),
  created_at: IsoDate,
});

export function eventRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/events', {
      schema: { tags: ['Events'], summary: "The caller's events, newest first", querystring: PageQuery, response: withProblems({ 200: Paged(Event) }) },
    }, async (request, reply) => {
      const page = pageRequest(request.query);
      const userId = request.caller.user_id;
      const [counted, rows] = await Promise.all([
        deps.db.selectFrom('events').where('user_id', '=', userId).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        deps.db.selectFrom('events').select(['id', 'type', 'object_type', 'object_id', 'data', 'created_at']).where('user_id', '=', userId)
          .orderBy('id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
      ]);
      const result = toPage(rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> })), Number(counted.n), page);
      setLinkHeader(request, reply, result.meta, page.per_page);
      return result;
    });
  };
}
