// Settings: API keys and the profile.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createKey, listKeys, revokeKey } from '../../modules/keys/index.ts';
import { currentFund, findUserById, fundCauseIds, updateProfile, SLUG_MAX } from '../../modules/users/index.ts';
import { CAUSES } from '../../modules/nonprofits/index.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import { keyPage, keysPage, profileSettingsPage, type ProfileValues } from '../pages/settings.ts';
import { requireSession, sendPage, type WebContext } from '../web.ts';

const AVATAR_URL_MAX = 500;

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
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const userId = (request: FastifyRequest) => request.visitor.session!.user_id;

    web.get('/settings/keys', async (request, reply) => {
      const done = (request.query as { done?: string }).done;
      return sendPage(reply, keysPage(request.visitor, await listKeys(deps, userId(request)), done === undefined ? {} : { done }));
    });

    web.post('/settings/keys', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const name = form.text('name', { required: true, max: 200 });
      const mode = form.oneOf('mode', ['live', 'test'] as const, 'live');
      if (!form.ok) return sendPage(reply, keysPage(request.visitor, await listKeys(deps, userId(request)), { state: form.state() }), 422);
      const created = await createKey(deps, userId(request), name, mode);
      // Shown in this response only (no redirect): the key is never in a URL, a log or the database.
      return sendPage(reply, keysPage(request.visitor, await listKeys(deps, userId(request)), { created: { name, key: created.key } }), 201);
    });

    web.get('/settings/keys/:id', async (request, reply) => {
      const id = keyId(request);
      const key = (await listKeys(deps, userId(request))).find((k) => k.id === id);
      if (key === undefined) throw new AppError('not_found', 'api_key_not_found', `no API key ${id}`);
      return sendPage(reply, keyPage(request.visitor, key));
    });

    web.post('/settings/keys/:id/revoke', async (request, reply) => {
      await revokeKey(deps, userId(request), keyId(request));
      return reply.code(303).header('location', '/settings/keys?done=key_revoked').send();
    });

    const current = async (id: number): Promise<ProfileValues> => {
      const user = await findUserById(deps.db, id);
      const fund = await currentFund(deps.db, id);
      if (user === undefined || fund === undefined) throw new AppError('not_found', 'user_not_found', `no user ${id}`);
      return { name: user.name, slug: user.slug, visible: user.visible, avatar_url: user.avatar_url ?? '', fund_name: fund.name, cause_ids: await fundCauseIds(deps.db, fund.id) };
    };
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
      if (!result.ok) return sendPage(reply, profileSettingsPage(request.visitor, shown, CAUSES, { origin, state: stateOf(result.error, form.values) }), STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/settings/profile?done=profile_saved').send();
    });
  };
}
