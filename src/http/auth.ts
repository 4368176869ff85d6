// Resolves the caller from the API key (DECISIONS 2): X-Api-Key, else
// `Authorization: Bearer <key>`, else a bare `Authorization: <key>`.
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { authEpoch, findCallerByHash, hashKey, looksLikeKey, touchKey, LAST_USED_WRITE_INTERVAL_MS } from '../modules/keys/index.ts';
import type { Caller } from '../shared/caller.ts';
import type { CallerCache } from './caller-cache.ts';

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
  // A string that cannot be a key is not worth a database round trip.
  let caller: Caller | undefined;
  if (looksLikeKey(key)) {
    const keyHash = hashKey(key);
    const epoch = await authEpoch(deps.db);
    caller = cache.get(keyHash, epoch);
    if (caller === undefined) {
      caller = await findCallerByHash(deps.db, keyHash);
      if (caller !== undefined) cache.set(keyHash, epoch, caller);
    }
  }
  if (caller === undefined) {
    throw new AppError('unauthenticated', 'invalid_api_key', 'the API key is unknown or revoked', { headers: CHALLENGE });
  }
  if (caller.user_status !== 'active') {
    throw new AppError('forbidden', 'forbidden', 'this account is suspended');
  }
  const now = deps.clock.now();
  const stale = caller.last_used_at === null || Date.parse(caller.last_used_at) < now.getTime() - LAST_USED_WRITE_INTERVAL_MS;
  if (stale) {
    const notBefore = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS).toISOString();
    await touchKey(deps.db, caller.key_id, now.toISOString(), notBefore);
    caller.last_used_at = now.toISOString();
  }
  return caller;
}
