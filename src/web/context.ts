// What the web app's pages share: the context its routes are built with,
// sending a page, and sending signed-out visitors to sign in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import type { DirectorySearch } from '../modules/nonprofits/index.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { OidcProvider } from '../modules/apps/index.ts';
import type { Html } from './html.ts';
import type { Visitor } from './visitor.ts';
import type { OpenApi } from './pages/reference.ts';

declare module 'fastify' {
  interface FastifyRequest {
    visitor: Visitor;
  }
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.text);
}

/** GET pages of signed-in users send signed-out visitors to sign in, and back afterwards. */
export async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.visitor.session !== undefined) return undefined;
  const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  return reply.code(303).header('location', `/signin${next}`).send();
}

/** The signed-in visitor's session, on a route behind requireSession. */
export function sessionOf(request: FastifyRequest): NonNullable<Visitor['session']> {
  const session = request.visitor.session;
  if (session === undefined) throw new Error('a route behind requireSession has a session');
  return session;
}

export interface WebContext {
  deps: Deps;
  /** The API's OpenAPI document (the reference pages are rendered from it). */
  openapi: () => OpenApi;
  directory: DirectorySearch;
  limiter: RateLimiter;
  /** Login with Almoner's provider: its sign-in and consent are the web app's pages. */
  oidc: OidcProvider;
}
