// The caller of an app's request to the public API (ADR 16): an access token
// (`Authorization: Bearer <token>`), or the hosted service's compatible form
// `Authorization: <client_id> <id_token>`. Either acts for the donor who
// connected the app, in the app's book, with what the connection still grants.
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { CONNECTION_USE_WRITE_INTERVAL_MS, limitedScopes } from './apps.ts';
import * as store from './apps.store.ts';
import { actingOf } from '../members/index.ts';
import { ID_TOKEN_GRANT, ID_TOKEN_SCOPE, publicSigningKeys, type OidcProvider } from './oidc.ts';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The caller of an access token, or undefined for an unknown, expired or revoked one, or one of a disabled app or ended connection. */
export async function callerOfAccessToken(deps: Deps, oidc: OidcProvider, value: string): Promise<Caller | undefined> {
  if (value.length > 200 || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  const token = await (await oidc.ready()).AccessToken.find(value);
  if (token === undefined || token.accountId === undefined || token.clientId === undefined) return undefined;
  return callerOfConnection(deps, token.clientId, token.accountId, token.grantId, (token.scope ?? '').split(' '));
}

/**
 * The caller of the compatible header: an id token this platform signed for that client, of a
 * donor connected to it, while the grant that issued it lives (the donor has not disconnected,
 * the app has not revoked its refresh token, its code was not replayed), with no more than the
 * scopes it was issued with. An id token without its grant (from before migration 026's release) acts no more.
 */
export async function callerOfIdToken(deps: Deps, oidc: OidcProvider, clientId: string, idToken: string): Promise<Caller | undefined> {
  if (!JWT.test(idToken)) return undefined;
  try {
    const keys = createLocalJWKSet({ keys: (await publicSigningKeys(deps)) as never });
    const { payload } = await jwtVerify(idToken, keys, { issuer: oidc.issuer, audience: clientId, algorithms: ['RS256'], clockTolerance: 5 });
    const grantId = payload[ID_TOKEN_GRANT];
    const scope = payload[ID_TOKEN_SCOPE];
    if (typeof payload.sub !== 'string' || typeof grantId !== 'string' || typeof scope !== 'string') return undefined;
    const grant = await (await oidc.ready()).Grant.find(grantId);
    if (grant === undefined || grant.clientId !== clientId || grant.accountId !== payload.sub) return undefined;
    return await callerOfConnection(deps, clientId, payload.sub, grantId, scope.split(' '));
  } catch {
    return undefined;
  }
}

async function callerOfConnection(deps: Deps, clientId: string, sub: string, grantId: string | undefined, tokenScopes: readonly string[] | undefined): Promise<Caller | undefined> {
  if (!/^\d{1,15}$/.test(sub)) return undefined;
  const app = await store.findApp(deps.db, clientId);
  if (app === undefined || app.disabled_at !== null) return undefined;
  const connection = await store.activeConnection(deps.db, app.id, Number(sub));
  if (connection === undefined || (grantId !== undefined && connection.grant_id !== grantId)) return undefined;
  const person = await store.actingUser(deps.db, Number(sub), app.book);
  const acting = person === undefined ? undefined : await actingOf(deps.db, person);
  if (person === undefined || acting === undefined) return undefined;
  const granted = connection.scopes.split(' ');
  const scopes = limitedScopes(tokenScopes === undefined ? granted : tokenScopes.filter((s) => granted.includes(s)));
  return {
    ...acting,
    key_id: 0,
    mode: person.book,
    book: person.book,
    last_used_at: connection.last_used_at,
    app: { app_id: app.id, connection_id: connection.id, client_id: clientId, scopes, monthly_limit_cents: connection.monthly_limit_cents },
  };
}

/** Records that a connection was used, at most once per interval. */
export async function noteConnectionUse(deps: Deps, caller: Caller): Promise<void> {
  if (caller.app === undefined) return;
  const now = deps.clock.now();
  if (caller.last_used_at !== null && Date.parse(caller.last_used_at) >= now.getTime() - CONNECTION_USE_WRITE_INTERVAL_MS) return;
  await store.touchConnection(deps.db, caller.app.connection_id, now.toISOString(), new Date(now.getTime() - CONNECTION_USE_WRITE_INTERVAL_MS).toISOString());
}
