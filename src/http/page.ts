// The RFC 8288 Link header of a paginated response (rules §4).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pageRequest, type PageRequest } from '../shared/page.ts';

export function setLinkHeader(request: FastifyRequest, reply: FastifyReply, meta: { page: number; last: number }, perPage: number): void {
  // The request's own path (as the client sent it: /public/api/v1 stays) and query, with page and
  // per_page replaced. (Split by hand: a WHATWG URL per request was a measurable share of a list's time.)
  const url = request.originalUrl;
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const params = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
  const link = (page: number, rel: string) => {
    params.set('page', String(page));
    params.set('per_page', String(perPage));
    return `<${path}?${params.toString()}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (meta.page > 1) links.push(link(Math.min(meta.page - 1, meta.last), 'prev'));
  if (meta.page < meta.last) links.push(link(meta.page + 1, 'next'));
  links.push(link(meta.last, 'last'));
  reply.header('link', links.join(', '));
}

/**
 * A list route's answer: the page asked for (`?page=&per_page=`), listed by
 * `list`, with the Link header to its neighbours.
 */
export async function listPage<T extends { meta: { page: number; last: number } }>(
  request: FastifyRequest,
  reply: FastifyReply,
  list: (page: PageRequest) => Promise<T>,
): Promise<T> {
  const page = pageRequest(request.query as { page?: number; per_page?: number });
  const result = await list(page);
  setLinkHeader(request, reply, result.meta, page.per_page);
  return result;
}
