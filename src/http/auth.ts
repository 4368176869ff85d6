// Resolves the caller from the API key (DECISIONS 2): X-Api-Key, else
// `Authorization: Bearer <key>`, else a bare `Authorization: <key>`.
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { callerOfKey, noteKeyUse, type CallerCache } from '../modules/keys/index.ts';
import type { Caller } from '../shared/caller.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const CHALLENGE = { 'www-authenticate': 'ApiKey' };

export function keyFromHeaders(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct !== undefined && direct.trim() !== '') return direct.trim();
  const authorization = request.headers.authorization?.trim();
  if (authorization === undefined || authorization === '') return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization);
  return (bearer?.[1] ?? authorization).trim();
}

/** Returns the caller, or throws 401 unauthenticated / invalid_api_key. */
export async function authenticate(deps: Deps, cache: CallerCache, request: FastifyRequest): Promise<Caller> {
  const key = keyFromHeaders(request);
  if (key === undefined) {
    throw new AppError('unauthenticated', 'unauthenticated', 'send your API key in the X-Api-Key header', { headers: CHALLENGE });
  }
  const caller = await callerOfKey(deps, cache, key);
  if (caller === undefined) {
    throw new AppError('unauthenticated', 'invalid_api_key', 'the API key is unknown or revoked', { headers: CHALLENGE });
  }
  if (caller.book === 'test' && !deps.config.sandbox) {
    throw new AppError('forbidden', 'sandbox_disabled', 'this platform has no sandbox: sandbox keys do not work here');
  }
  if (caller.user_status !== 'active') {
    throw new AppError('forbidden', 'forbidden', 'this account is suspended');
  }
  await noteKeyUse(deps, caller);
  return caller;
}
