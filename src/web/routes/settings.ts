// Settings: API keys and the profile.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseCookies } from '../visitor.ts';
import { createKeyForOwner, keysOfOwner, ownProfile, revokeKeyOfOwner, updateProfile, SLUG_MAX } from '../../modules/users/index.ts';
import { CAUSES } from '../../modules/nonprofits/index.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import { keyPage, keysPage, profileSettingsPage, type ProfileValues } from '../pages/settings.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

const AVATAR_URL_MAX = 500;
const NEW_KEY_COOKIE = 'almoner_new_key';

function keyId(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id;
  if (!/^\d{1,15}$/.test(raw)) throw new AppError('not_found', 'api_key_not_found', `no API key ${raw}`);
  return Number(raw);
}

function avatarProblem(url: string): string | undefined {
  if (url === '') return undefined;
  if (url.length > AVATAR_URL_MAX) return `must be at most ${AVATAR_URL_MAX} characters`;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? undefined : 'must start with https://';
  } catch {
    return 'must be a web address, like https://example.org/me.jpg';
  }
}

export function settingsRoutes({ deps }: WebContext) {
  const newKeyCookie = (key: string) =>
    `${NEW_KEY_COOKIE}=${key}; Path=/settings/keys; HttpOnly; SameSite=Strict; Max-Age=${key === '' ? 0 : 300}${deps.config.cookieSecure ? '; Secure' : ''}`;
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const userId = (request: FastifyRequest) => sessionOf(request).user_id;

    // A new key travels from the create form to this page in a short-lived cookie only this
    // path receives, so reloading the page never creates a second key, and the key is shown once.
    web.get('/settings/keys', async (request, reply) => {
      const done = (request.query as { done?: string }).done;
      const keys = await keysOfOwner(deps, userId(request));
      const fresh = parseCookies(request.headers.cookie).get(NEW_KEY_COOKIE);
      let created: { name: string; key: string } | undefined;
      if (fresh !== undefined) {
        reply.header('set-cookie', newKeyCookie(''));
        // The cookie holds "<key id>.<key>": shown only for a key of this user that ends as it does.
        const dot = fresh.indexOf('.');
        const id = Number(fresh.slice(0, dot));
        const key = fresh.slice(dot + 1);
        const mine = keys.find((k) => k.id === id && key.endsWith(k.last4));
        if (dot > 0 && mine !== undefined) created = { name: mine.name, key };
      }
      return sendPage(
        reply,
        keysPage(request.visitor, keys, { ...(done === undefined ? {} : { done }), ...(created === undefined ? {} : { created }), sandbox: deps.config.sandbox }),
      );
    });

    web.post('/settings/keys', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const name = form.text('name', { required: true, max: 200 });
      const mode = form.oneOf('mode', deps.config.sandbox ? (['live', 'test'] as const) : (['live'] as const), 'live');
      if (!form.ok) return sendPage(reply, keysPage(request.visitor, await keysOfOwner(deps, userId(request)), { state: form.state(), sandbox: deps.config.sandbox }), 422);
      const created = await createKeyForOwner(deps, userId(request), name, mode);
      return reply
        .code(303)
        .header('set-cookie', newKeyCookie(`${created.id}.${created.key}`))
        .header('location', '/settings/keys')
        .send();
    });

    web.get('/settings/keys/:id', async (request, reply) => {
      const id = keyId(request);
      const key = (await keysOfOwner(deps, userId(request))).find((k) => k.id === id);
      if (key === undefined) throw new AppError('not_found', 'api_key_not_found', `no API key ${id}`);
      return sendPage(reply, keyPage(request.visitor, key));
    });

    web.post('/settings/keys/:id/revoke', async (request, reply) => {
      await revokeKeyOfOwner(deps, userId(request), keyId(request));
      return reply.code(303).header('location', '/settings/keys?done=key_revoked').send();
    });

    const current = (id: number): Promise<ProfileValues> => ownProfile(deps, id);
    const origin = new URL(deps.config.publicUrl).host;

    web.get('/settings/profile', async (request, reply) => {
      const done = (request.query as { done?: string }).done;
      return sendPage(reply, profileSettingsPage(request.visitor, await current(userId(request)), CAUSES, { origin, ...(done === undefined ? {} : { done }) }));
    });

    web.post('/settings/profile', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const change = {
        name: form.text('name', { required: true, max: 200 }),
        slug: form.text('slug', { required: true, max: SLUG_MAX }).toLowerCase(),
        visible: form.checked('visible'),
        avatar_url: form.text('avatar_url', { max: AVATAR_URL_MAX }),
        fund_name: form.text('fund_name', { required: true, max: 200 }),
        cause_ids: form.integers('cause_ids'),
      };
      const avatar = avatarProblem(change.avatar_url);
      if (avatar !== undefined) form.fail('avatar_url', avatar);
      const shown: ProfileValues = { ...change };
      if (!form.ok) return sendPage(reply, profileSettingsPage(request.visitor, shown, CAUSES, { origin, state: form.state() }), 422);
      const result = await attempt(() => updateProfile(deps, userId(request), { ...change, avatar_url: change.avatar_url === '' ? null : change.avatar_url }));
      if (!result.ok)
        return sendPage(reply, profileSettingsPage(request.visitor, shown, CAUSES, { origin, state: stateOf(result.error, form.values) }), STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/settings/profile?done=profile_saved').send();
    });
  };
}
