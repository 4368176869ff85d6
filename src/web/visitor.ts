// Who is looking at a page: the signed-in session (from an HttpOnly cookie)
// or an anonymous visitor, and the CSRF token their forms must carry. A
// signed-in visitor's token belongs to their session; an anonymous one's is
// a random cookie that the form must repeat (double submit).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { newSecret, sessionFor, type Session } from '../modules/accounts/index.ts';

export const SESSION_COOKIE = 'almoner_session';
export const CSRF_COOKIE = 'almoner_csrf';

export interface Visitor {
  session: Session | undefined;
  /** The session cookie's value, when it names a live session. */
  token: string | undefined;
  csrf: string;
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    // The first cookie of a name wins, as browsers send the most specific path first.
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export function cookieHeader(deps: Deps, name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${deps.config.cookieSecure ? '; Secure' : ''}`;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Reads the visitor; sets a CSRF cookie for an anonymous visitor who has none. */
export async function readVisitor(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<Visitor> {
  const cookies = parseCookies(request.headers.cookie);
  const token = cookies.get(SESSION_COOKIE);
  const session = token !== undefined && TOKEN.test(token) ? await sessionFor(deps, token) : undefined;
  if (session !== undefined) return { session, token, csrf: session.csrf_token };
  let csrf = cookies.get(CSRF_COOKIE);
  if (csrf === undefined || !TOKEN.test(csrf)) {
    csrf = newSecret();
    reply.header('set-cookie', cookieHeader(deps, CSRF_COOKIE, csrf, 7 * 24 * 3600));
  }
  if (token !== undefined) reply.header('set-cookie', cookieHeader(deps, SESSION_COOKIE, '', 0));
  return { session: undefined, token: undefined, csrf };
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A form post is ours when its token matches the visitor's and, if the
 * browser says where it came from, that origin is this site.
 */
export function formIsGenuine(deps: Deps, request: FastifyRequest, visitor: Visitor, sent: string | null): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      return false;
    }
    if (host !== request.headers.host && host !== new URL(deps.config.publicUrl).host) return false;
  } else if (origin === 'null') {
    return false;
  }
  return sent !== null && same(sent, visitor.csrf);
}
