// Resolves the caller from the API key (rules §2): X-Api-Key, else
// `Authorization: Bearer <key>`, else a bare `Authorization: <key>`; or from an
// app's token of Login with Almoner (ADR 16): `Authorization: Bearer <access
// token>`, or the compatible `Authorization: <client_id> <id_token>`.
import { bearerToken } from '../shared/bearer.ts';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { callerOfKey, noteKeyUse } from '../modules/keys/index.ts';
import { looksLikeKey } from '../modules/keys/index.ts';
import { callerOfAccessToken, callerOfIdToken, looksLikeClientId, noteConnectionUse, type OidcProvider } from '../modules/apps/index.ts';
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
  return bearerToken(authorization) ?? authorization;
}

const TOKEN_CHALLENGE = { 'www-authenticate': 'Bearer error="invalid_token"' };

/** An app's token in the Authorization header, if that is what it holds rather than an API key. */
function appTokenFromHeaders(request: FastifyRequest): { accessToken: string } | { clientId: string; idToken: string } | undefined {
  if (request.headers['x-api-key'] !== undefined) return undefined;
  const authorization = request.headers.authorization?.trim() ?? '';
  const bearer = bearerToken(authorization);
  if (bearer !== undefined && !/\s/.test(bearer)) return looksLikeKey(bearer) ? undefined : { accessToken: bearer };
  const compatible = /^(\S+)\s+(\S+)$/.exec(authorization);
  if (compatible?.[1] !== undefined && compatible[2] !== undefined && looksLikeClientId(compatible[1])) return { clientId: compatible[1], idToken: compatible[2] };
  return undefined;
}

/** The caller of an app's token, or throws 401 invalid_token. */
async function appCaller(deps: Deps, oidc: OidcProvider, token: NonNullable<ReturnType<typeof appTokenFromHeaders>>): Promise<Caller> {
  const caller = 'accessToken' in token ? await callerOfAccessToken(deps, oidc, token.accessToken) : await callerOfIdToken(deps, oidc, token.clientId, token.idToken);
  if (caller === undefined) {
    throw new AppError('unauthenticated', 'invalid_token', 'the token is unknown, expired or revoked, or its app was disconnected or disabled', { headers: TOKEN_CHALLENGE });
  }
  return caller;
}

/** Returns the caller, or throws 401 unauthenticated / invalid_api_key / invalid_token. */
export async function authenticate(deps: Deps, request: FastifyRequest, oidc?: OidcProvider): Promise<Caller> {
  const appToken = oidc === undefined ? undefined : appTokenFromHeaders(request);
  const key = keyFromHeaders(request);
  if (key === undefined) {
    throw new AppError('unauthenticated', 'unauthenticated', 'send your API key in the X-Api-Key header', { headers: CHALLENGE });
  }
  const caller = appToken !== undefined && oidc !== undefined ? await appCaller(deps, oidc, appToken) : await callerOfKey(deps, key);
  if (caller === undefined) {
    throw new AppError('unauthenticated', 'invalid_api_key', 'the API key is unknown or revoked', { headers: CHALLENGE });
  }
  if (caller.book === 'test' && !deps.config.sandbox) {
    throw new AppError('forbidden', 'sandbox_disabled', 'this platform has no sandbox: sandbox keys do not work here');
  }
  if (caller.user_status !== 'active') {
    throw new AppError('forbidden', 'forbidden', 'this account is suspended');
  }
  if (caller.app === undefined) await noteKeyUse(deps, caller);
  else await noteConnectionUse(deps, caller);
  return caller;
}
