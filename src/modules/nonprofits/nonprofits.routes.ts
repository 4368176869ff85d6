import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { setLinkHeader } from '../../http/page.ts';
import { withProblems } from '../../http/schemas.ts';
import { pageRequest } from '../../shared/page.ts';
import { AppError } from '../../shared/errors.ts';
import { getNonProfit } from './nonprofits.service.ts';
import type { DirectorySearch } from './search.service.ts';
import { NonProfitPage, NonProfitSearchQuery } from './nonprofits.schema.ts';

/** `near=lat,lng`: two numbers in range, or a 400. */
function parseNear(near: string | undefined, radiusKm: number | undefined) {
  if (near === undefined) {
    if (radiusKm !== undefined) throw new AppError('bad_request', 'invalid_parameter', 'radius_km needs near=lat,lng');
    return undefined;
  }
  const match = /^(-?\d{1,2}(?:\.\d+)?),(-?\d{1,3}(?:\.\d+)?)$/.exec(near.replace(/\s+/g, ''));
  const latitude = Number(match?.[1]);
  const longitude = Number(match?.[2]);
  if (match === null || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
    throw new AppError('bad_request', 'invalid_parameter', 'near must be lat,lng in degrees, as near=44.47,-73.21');
  }
  return { latitude, longitude, radius_km: radiusKm ?? 25 };
}

export function nonProfitRoutes(deps: Deps, directory: DirectorySearch): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/non_profits',
      {
        schema: { tags: ['Non-profits'], summary: 'Search non-profits', querystring: NonProfitSearchQuery, response: withProblems({ 200: NonProfitPage }) },
      },
      async (request, reply) => {
        const page = pageRequest(request.query);
        const { query, cause_id, state, near, radius_km } = request.query;
        const result = await directory.search({ query, cause_id, state, near: parseNear(near, radius_km) }, page);
        setLinkHeader(request, reply, result.meta, page.per_page);
        return result;
      },
    );

    app.get(
      '/non_profits/:ein',
      {
        schema: {
          tags: ['Non-profits'],
          summary: 'One non-profit by EIN',
          params: Type.Object({ ein: Type.String({ maxLength: 20, description: '9 digits; 12-3456789 is accepted' }) }),
          response: withProblems({ 200: Type.Ref('NonProfit') }),
        },
      },
      async (request) => getNonProfit(deps, request.params.ein),
    );
  };
}
