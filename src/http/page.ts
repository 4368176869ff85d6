// The RFC 8288 Link header of a paginated response (DECISIONS 4).
import type { FastifyReply, FastifyRequest } from 'fastify';

export function setLinkHeader(request: FastifyRequest, reply: FastifyReply, meta: { page: number; last: number }, perPage: number): void {
  const url = new URL(request.url, 'http://local');
  const link = (page: number, rel: string) => {
    url.searchParams.set('page', String(page));
    url.searchParams.set('per_page', String(perPage));
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (meta.page > 1) links.push(link(Math.min(meta.page - 1, meta.last), 'prev'));
  if (meta.page < meta.last) links.push(link(meta.page + 1, 'next'));
  links.push(link(meta.last, 'last'));
  reply.header('link', links.join(', '));
}
