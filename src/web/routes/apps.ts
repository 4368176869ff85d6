// Login with Almoner in the web app (ADR 16): Apps in settings (connected
// apps, registering one's own), and the provider's interaction: sign-in is
// the web app's own, consent is this page. A new client secret travels from
// the form to the page in a short-lived cookie only that page receives.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  appByClientId,
  appsOf,
  connectedApps,
  currentConsent,
  deleteApp,
  disconnectApp,
  looksLikeClientId,
  MONEY_SCOPES,
  limitedScopes,
  scopeRequestProblem,
  newClientSecret,
  recordConsent,
  registerApp,
  SCOPE_WORDS,
  type OidcProvider,
} from '../../modules/apps/index.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import { parseCookies } from '../visitor.ts';
import { appsPage, consentPage, continuePage } from '../pages/apps.ts';
import { CONTENT_SECURITY_POLICY, requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

const SECRET_COOKIE = 'almoner_new_app';

export function appSettingsRoutes({ deps }: WebContext) {
  const secretCookie = (value: string) =>
    `${SECRET_COOKIE}=${value}; Path=/settings/apps; HttpOnly; SameSite=Strict; Max-Age=${value === '' ? 0 : 300}${deps.config.cookieSecure ? '; Secure' : ''}`;
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const userId = (request: FastifyRequest) => sessionOf(request).user_id;
    const page = async (request: FastifyRequest, options: Omit<Parameters<typeof appsPage>[3], 'sandbox'>) =>
      appsPage(request.visitor, await connectedApps(deps, userId(request)), await appsOf(deps, userId(request)), { ...options, sandbox: deps.config.sandbox });

    web.get('/settings/apps', async (request, reply) => {
      const done = (request.query as { done?: string }).done;
      const fresh = parseCookies(request.headers.cookie).get(SECRET_COOKIE);
      let created: { client_id: string; secret: string } | undefined;
      if (fresh !== undefined) {
        reply.header('set-cookie', secretCookie(''));
        const [clientId, secret] = fresh.split('.');
        const mine = (await appsOf(deps, userId(request))).some((a) => a.client_id === clientId);
        if (mine && clientId !== undefined && secret !== undefined) created = { client_id: clientId, secret };
      }
      return sendPage(reply, await page(request, { ...(done === undefined ? {} : { done }), ...(created === undefined ? {} : { created }) }));
    });

    web.post('/settings/apps', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const name = form.text('name', { required: true, max: 100 });
      const uris = form.text('redirect_uris', { required: true, max: 20_000 });
      const logo = form.text('logo_uri', { max: 2000 });
      const sandbox = form.checked('sandbox');
      form.values.sandbox = sandbox ? '1' : '';
      if (!form.ok) return sendPage(reply, await page(request, { state: form.state() }), 422);
      const result = await attempt(() => registerApp(deps, userId(request), { name, redirect_uris: uris.split(/\r?\n/), logo_uri: logo, sandbox }));
      if (!result.ok) return sendPage(reply, await page(request, { state: stateOf(result.error, form.values) }), STATUS_OF_KIND[result.error.kind]);
      return reply
        .code(303)
        .header('set-cookie', secretCookie(`${result.value.app.client_id}.${result.value.client_secret}`))
        .header('location', '/settings/apps')
        .send();
    });

    const clientIdOf = (request: FastifyRequest) => {
      const raw = (request.params as { client_id: string }).client_id;
      if (!looksLikeClientId(raw)) throw new AppError('not_found', 'app_not_found', `you have no app ${raw}`);
      return raw;
    };

    web.post('/settings/apps/:client_id/secret', async (request, reply) => {
      const clientId = clientIdOf(request);
      const secret = await newClientSecret(deps, userId(request), clientId);
      return reply
        .code(303)
        .header('set-cookie', secretCookie(`${clientId}.${secret}`))
        .header('location', '/settings/apps?done=app_secret')
        .send();
    });

    web.post('/settings/apps/:client_id/delete', async (request, reply) => {
      await deleteApp(deps, userId(request), clientIdOf(request));
      return reply.code(303).header('location', '/settings/apps?done=app_deleted').send();
    });

    web.post('/settings/apps/connections/:id/disconnect', async (request, reply) => {
      const raw = (request.params as { id: string }).id;
      if (!/^[1-9]\d{0,14}$/.test(raw)) throw new AppError('not_found', 'connection_not_found', `no connected app ${raw}`);
      await disconnectApp(deps, userId(request), Number(raw));
      return reply.code(303).header('location', '/settings/apps?done=app_disconnected').send();
    });
  };
}

/** The interaction the provider sends a browser to; an expired or foreign one is a clear error, not a crash. */
async function interactionOf(oidc: OidcProvider, request: FastifyRequest, reply: FastifyReply) {
  try {
    return await (await oidc.ready()).interactionDetails(request.raw, reply.raw);
  } catch {
    throw new AppError('bad_request', 'interaction_expired', 'this sign-in has expired or was opened in another browser; go back to the app and start again');
  }
}

/**
 * The name of the app a sign-in continues to, when `next` is a Login with Almoner interaction
 * (the sign-in page names it). The interaction is looked up by its id, which only the browser it
 * was made for holds; an unknown, expired or disabled one names nothing.
 */
export async function appSigningIn(deps: WebContext['deps'], oidc: OidcProvider, next: string): Promise<string | undefined> {
  const uid = /^\/oauth\/interaction\/([A-Za-z0-9_-]{1,64})$/.exec(next)?.[1];
  if (uid === undefined) return undefined;
  const interaction = await (await oidc.ready()).Interaction.find(uid).catch(() => undefined);
  const clientId = interaction?.params.client_id;
  if (typeof clientId !== 'string') return undefined;
  const app = await appByClientId(deps, clientId);
  return app === undefined || app.disabled_at !== null ? undefined : app.name;
}

export function interactionRoutes({ deps, oidc }: WebContext) {
  return async (web: FastifyInstance) => {
    web.get('/oauth/interaction/:uid', async (request, reply) => {
      const interaction = await interactionOf(oidc, request, reply);
      const session = request.visitor.session;
      if (session === undefined)
        return reply
          .code(303)
          .header('location', `/signin?next=${encodeURIComponent(`/oauth/interaction/${interaction.uid}`)}`)
          .send();
      if (interaction.prompt.name === 'login') {
        const to = await (await oidc.ready()).interactionResult(request.raw, reply.raw, { login: { accountId: String(session.user_id) } }, { mergeWithLastSubmission: false });
        return sendPage(reply.header('refresh', `0; url=${to}`), continuePage(request.visitor, to));
      }
      // A checkout's token grants and does nothing else (rules §24): asked with more, the app is told so.
      const refused = scopeRequestProblem(String(interaction.params.scope ?? '').split(' '));
      if (refused !== undefined) {
        const to = await (await oidc.ready()).interactionResult(request.raw, reply.raw, { error: 'invalid_scope', error_description: refused }, { mergeWithLastSubmission: false });
        return redirectOut(reply, to, await appByClientId(deps, String(interaction.params.client_id)));
      }
      return showConsent(request, reply, interaction);
    });

    web.post('/oauth/interaction/:uid', async (request, reply) => {
      const interaction = await interactionOf(oidc, request, reply);
      const session = request.visitor.session;
      if (session === undefined || interaction.prompt.name !== 'consent' || interaction.session?.accountId !== String(session.user_id)) {
        throw new AppError('conflict', 'interaction_changed', 'you signed in as someone else meanwhile; go back to the app and start again');
      }
      const form = new FormReader(request.body as URLSearchParams);
      const decision = form.oneOf('decision', ['allow', 'deny'] as const, 'deny');
      const clientId = String(interaction.params.client_id);
      if (decision === 'deny') {
        const to = await (
          await oidc.ready()
        ).interactionResult(request.raw, reply.raw, { error: 'access_denied', error_description: 'the donor did not allow the app' }, { mergeWithLastSubmission: false });
        return redirectOut(reply, to, await appByClientId(deps, clientId));
      }
      const limit = form.dollars('monthly_limit', { required: false, minCents: 1 });
      if (!form.ok) return showConsent(request, reply, interaction, form.state(), 422);
      const scopes = requestedScopes(interaction.params.scope);
      const holding = await currentConsent(deps, clientId, session.user_id);
      const grant =
        interaction.grantId === undefined
          ? new (await oidc.ready()).Grant({ accountId: String(session.user_id), clientId })
          : await (await oidc.ready()).Grant.find(interaction.grantId);
      if (grant === undefined) throw new AppError('bad_request', 'interaction_expired', 'this sign-in has expired; go back to the app and start again');
      grant.addOIDCScope(scopes.join(' '));
      grant.addOIDCClaims(['sub', 'name', 'preferred_username', 'profile', 'email', 'email_verified']);
      const grantId = await grant.save();
      const granted = (grant.getOIDCScope() ?? '').split(' ').filter((s: string) => s !== '');
      // No limit given keeps the one set before (recordConsent): a consent never silently drops it.
      await recordConsent(deps, {
        clientId,
        userId: session.user_id,
        scopes: limitedScopes(granted),
        grantId,
        monthlyLimitCents: movesMoney([...scopes, ...(holding?.scopes ?? [])]) ? limit : null,
      });
      const to = await (await oidc.ready()).interactionResult(request.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return redirectOut(reply, to, await appByClientId(deps, clientId));
    });
  };

  async function showConsent(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Awaited<ReturnType<typeof interactionOf>>,
    state?: ReturnType<FormReader['state']>,
    status = 200,
  ) {
    const app = await appByClientId(deps, String(interaction.params.client_id));
    if (app === undefined || app.disabled_at !== null) throw new AppError('not_found', 'app_not_found', 'this app is not available here');
    // What the app will hold once allowed: what it holds now and what it asks (the grant adds them up).
    const holding = await currentConsent(deps, app.client_id, sessionOf(request).user_id);
    const scopes = limitedScopes([...new Set([...(holding?.scopes ?? []), ...requestedScopes(interaction.params.scope)])].filter((s) => s in SCOPE_WORDS && s !== 'openid'));
    // The consent form's answer leads, by redirects, to the app: the form may go there.
    allowFormsTo(reply, app.redirect_uris);
    return sendPage(
      reply,
      consentPage(
        request.visitor,
        {
          uid: interaction.uid,
          app,
          scopes: scopes.map((scope) => ({ scope, words: SCOPE_WORDS[scope] ?? scope })),
          redirectUri: String(interaction.params.redirect_uri),
          movesMoney: movesMoney(scopes),
          currentLimitCents: holding?.monthly_limit_cents ?? null,
        },
        state,
      ),
      status,
    );
  }
}

function movesMoney(scopes: readonly string[]): boolean {
  return MONEY_SCOPES.some((s) => scopes.includes(s));
}

/** What an app asked for that the platform knows; a checkout provider's `dafpay` alone of the API's (rules §24). */
function requestedScopes(scope: unknown): string[] {
  return limitedScopes(
    String(scope ?? '')
      .split(' ')
      .filter((s) => s in SCOPE_WORDS),
  );
}

/** The site's policy, with the origins of an app's redirect URIs allowed as form targets (the redirect after consent ends there). */
function allowFormsTo(reply: FastifyReply, uris: readonly string[]): void {
  const origins = [...new Set(uris.map((u) => new URL(u).origin))];
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${origins.join(' ')}`));
}

function redirectOut(reply: FastifyReply, to: string, app: { redirect_uris: string[] } | undefined): FastifyReply {
  if (app !== undefined) allowFormsTo(reply, app.redirect_uris);
  return reply.code(303).header('location', to).send();
}
