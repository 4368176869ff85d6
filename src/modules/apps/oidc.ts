// Login with Almoner (ADR 16): the OpenID Connect provider, panva's
// oidc-provider configured for money: authorization code flow with PKCE for
// every client, confidential clients only (a secret, kept as its hash), exact
// redirect URIs, opaque access tokens the API looks up, refresh tokens with
// `offline_access`, revocation, userinfo. Sign-in and consent are the web
// app's pages; the provider's login is always the web session's user.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
// oidc-provider is loaded when the provider is first made (makeProvider): a command that never signs
// anyone in does not pay its load (a third of a second).
import type { default as Provider, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Deps } from '../../deps.ts';
import { ALL_SCOPES } from './apps.ts';
import { hashSecret } from '../../shared/secrets.ts';
import * as store from './apps.store.ts';
import { databaseAdapter } from './oidc.adapter.ts';

export const TTL_SECONDS = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  IdToken: 3600,
  RefreshToken: 30 * 24 * 3600,
  Interaction: 3600,
  Session: 3600,
  Grant: 365 * 24 * 3600,
} as const;

/** The id token's claims naming the grant that issued it and the scopes it was issued with. */
export const ID_TOKEN_GRANT = 'almoner_grant';
export const ID_TOKEN_SCOPE = 'almoner_scope';

/** The paths the provider answers; everything else is the platform's own. */
export const OIDC_PREFIX = '/oidc/';
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

export interface ProviderHooks {
  /** The live user signed in to the web app in the browser that sent this request, if any. */
  signedInUser(req: IncomingMessage): Promise<number | undefined>;
  /** The web app's error page, for errors the provider shows to a person (a bad redirect URI, an unknown client). */
  errorPage(status: number, title: string, detail: string): string;
}

export interface OidcProvider {
  /** The provider, made on first use (its keys are read from the database then, so a node starts while the database is away). */
  ready(): Promise<Provider>;
  /** Answers a request under OIDC_PREFIX or at DISCOVERY_PATH. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  issuer: string;
}

/** The provider's signing keys (private JWKs, newest first, retired last) and cookie keys, made on first start. */
async function keys(deps: Deps): Promise<{ signing: Record<string, unknown>[]; cookies: string[] }> {
  let rows = await store.currentKeys(deps.db);
  const at = deps.clock.now().toISOString();
  if (!rows.some((r) => r.use === 'signing')) {
    await store.insertKey(deps.db, { use: 'signing', secret: JSON.stringify(await newSigningKey()), created_at: at });
  }
  if (!rows.some((r) => r.use === 'cookie')) {
    await store.insertKey(deps.db, { use: 'cookie', secret: randomBytes(32).toString('base64url'), created_at: at });
  }
  rows = await store.currentKeys(deps.db);
  const signing = rows.filter((r) => r.use === 'signing').sort((a, b) => Number(a.retired_at !== null) - Number(b.retired_at !== null) || b.id - a.id);
  return {
    signing: signing.map((r) => JSON.parse(r.secret) as Record<string, unknown>),
    cookies: rows.filter((r) => r.use === 'cookie').map((r) => r.secret),
  };
}

/** A new RS256 signing key as a private JWK with its key id. */
export async function newSigningKey(): Promise<Record<string, unknown>> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomBytes(12).toString('base64url'), alg: 'RS256', use: 'sig' };
}

/** The public half of the signing keys (what verifies an id token), from the database. */
export async function publicSigningKeys(deps: Deps): Promise<Record<string, unknown>[]> {
  const rows = await store.currentKeys(deps.db);
  return rows
    .filter((r) => r.use === 'signing')
    .map((r) => {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = JSON.parse(r.secret) as Record<string, unknown>;
      return pub;
    });
}

/** The grant of a live user's connection to an app, if they have one. */
async function grantOfConnection(deps: Deps, clientId: string, accountId: string): Promise<string | undefined> {
  const app = await store.findApp(deps.db, clientId);
  if (app === undefined || !/^\d{1,15}$/.test(accountId)) return undefined;
  return (await store.activeConnection(deps.db, app.id, Number(accountId)))?.grant_id;
}

function sameSecret(stored: string, sent: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(hashSecret(sent));
  return a.length === b.length && timingSafeEqual(a, b);
}

export function buildProvider(deps: Deps, hooks: ProviderHooks): OidcProvider {
  const issuer = deps.config.publicUrl.replace(/\/$/, '');
  let made: Promise<{ provider: Provider; callback: ReturnType<Provider['callback']> }> | undefined;
  const ready = () => {
    made ??= makeProvider(deps, hooks, issuer).catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
  return {
    issuer,
    ready: async () => (await ready()).provider,
    handle: (req, res) => {
      // The provider builds every address it advertises from the request: it sees the issuer's
      // host and scheme, whatever Host or X-Forwarded-* the request came with (ADR 16: one public URL).
      const pub = new URL(issuer);
      req.headers.host = pub.host;
      req.headers['x-forwarded-host'] = pub.host;
      req.headers['x-forwarded-proto'] = pub.protocol.slice(0, -1);
      ready().then(
        ({ callback }) => void callback(req, res),
        (error: unknown) => {
          deps.log.error({ err: error }, 'the OpenID Connect provider could not start');
          res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
          res.end(JSON.stringify({ type: '/errors/unavailable', title: 'Unavailable', status: 503, code: 'unavailable', detail: 'sign-in is unavailable for a moment' }));
        },
      );
    },
  };
}

async function makeProvider(deps: Deps, hooks: ProviderHooks, issuer: string): Promise<{ provider: Provider; callback: ReturnType<Provider['callback']> }> {
  const { default: Provider, interactionPolicy } = await import('oidc-provider');
  const { signing, cookies } = await keys(deps);
  const policy = interactionPolicy.base();
  // The provider's login is the web app's: whoever is signed in there, and no one when no one is.
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('web_session', 'the web sign-in is another user or none', async (ctx: KoaContextWithOIDC) => {
      const user = await hooks.signedInUser(ctx.req);
      return user === undefined || String(user) !== ctx.oidc.session?.accountId;
    }),
  );

  const configuration: Configuration = {
    adapter: databaseAdapter(deps),
    jwks: { keys: signing as never },
    cookies: { keys: cookies, long: { httpOnly: true, sameSite: 'lax' }, short: { httpOnly: true, sameSite: 'lax' } },
    scopes: [...ALL_SCOPES],
    // An id token names the grant that issued it and the scopes it was issued with (ID_TOKEN_GRANT,
    // ID_TOKEN_SCOPE): the compatible header acts only while that grant lives, never with more.
    claims: { openid: ['sub', ID_TOKEN_GRANT, ID_TOKEN_SCOPE], profile: ['name', 'preferred_username', 'profile'], email: ['email', 'email_verified'] },
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    pkce: { required: () => true },
    routes: {
      authorization: '/oidc/auth',
      jwks: '/oidc/jwks',
      token: '/oidc/token',
      userinfo: '/oidc/userinfo',
      revocation: '/oidc/token/revocation',
      end_session: '/oidc/session/end',
    },
    features: {
      devInteractions: { enabled: false },
      revocation: {
        enabled: true,
        // A client revokes only its own tokens.
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      introspection: { enabled: false },
      // Not offered: discovery advertises only what answers.
      pushedAuthorizationRequests: { enabled: false },
    },
    // Every refresh gives a new refresh token and ends the one used (ADR 16); a used one sent again
    // ends the grant (the library's reuse rule).
    rotateRefreshToken: true,
    ttl: {
      AccessToken: TTL_SECONDS.AccessToken,
      AuthorizationCode: TTL_SECONDS.AuthorizationCode,
      IdToken: TTL_SECONDS.IdToken,
      RefreshToken: TTL_SECONDS.RefreshToken,
      Interaction: TTL_SECONDS.Interaction,
      Session: TTL_SECONDS.Session,
      Grant: TTL_SECONDS.Grant,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
    },
    // A browser app may call userinfo from its own origin, the origin of one of its redirect URIs.
    clientBasedCORS: (ctx, origin, client) => ctx.oidc.route === 'userinfo' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}`, policy },
    // The consent a donor gave this app lives in its connection; ending the connection ends the grant.
    loadExistingGrant: async (ctx) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (accountId === undefined || clientId === undefined) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? (await grantOfConnection(deps, clientId, accountId));
      return grantId === undefined ? undefined : ctx.oidc.provider.Grant.find(grantId);
    },
    findAccount: async (_ctx, sub, token) => {
      const row = /^\d{1,15}$/.test(sub) ? await store.accountClaims(deps.db, Number(sub)) : undefined;
      if (row === undefined || row.status !== 'active') return undefined;
      // The code or refresh token an id token is issued from: its grant and scopes go into the id token.
      const source = token as { grantId?: unknown; scope?: unknown } | undefined;
      return {
        accountId: sub,
        claims: async (use) => ({
          sub,
          ...(use === 'id_token' && typeof source?.grantId === 'string' && typeof source.scope === 'string'
            ? { [ID_TOKEN_GRANT]: source.grantId, [ID_TOKEN_SCOPE]: source.scope }
            : {}),
          name: row.name,
          preferred_username: row.slug,
          profile: `${issuer}/${row.slug}`,
          ...(row.email === null ? {} : { email: row.email, email_verified: false }),
        }),
      };
    },
    renderError: async (ctx, out) => {
      const status = ctx.status >= 400 ? ctx.status : 400;
      ctx.type = 'html';
      ctx.body = hooks.errorPage(status, 'This sign-in link does not work', `${out.error_description ?? out.error}. Go back to the app and start again.`);
    },
  };

  const provider = new Provider(issuer, configuration);
  // Its addresses come from the forwarded host and scheme, which `handle` sets to the issuer's.
  provider.proxy = true;
  // Clients' secrets are stored as their SHA-256: compare the hash of what the client sent.
  provider.Client.prototype.compareClientSecret = function (this: { clientSecret: string }, sent: string) {
    return sameSecret(this.clientSecret, sent);
  };
  provider.on('server_error', (_ctx, error) => deps.log.error({ err: error }, 'the OpenID Connect provider failed'));
  return { provider, callback: provider.callback() };
}
