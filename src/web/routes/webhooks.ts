// Settings: webhooks, over the same use cases as /v1/webhook_endpoints, for
// the signed-in user's live endpoints. A new secret travels from the form to
// the page in a short-lived cookie only these pages receive: shown once,
// never made twice by a reload.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../modules/accounts/index.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listAttempts,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  WEBHOOK_EVENT_TYPES,
} from '../../modules/webhooks/index.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import { parseCookies } from '../visitor.ts';
import { endpointPage, webhooksPage } from '../pages/webhooks.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

const SECRET_COOKIE = 'almoner_new_secret';

function endpointId(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id;
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw new AppError('not_found', 'webhook_endpoint_not_found', `no webhook endpoint ${raw}`);
  return Number(raw);
}

export function webhookSettingsRoutes({ deps }: WebContext) {
  const secretCookie = (value: string) =>
    `${SECRET_COOKIE}=${value}; Path=/settings/webhooks; HttpOnly; SameSite=Strict; Max-Age=${value === '' ? 0 : 300}${deps.config.cookieSecure ? '; Secure' : ''}`;
  /** The secret in the cookie, once, if it is for this endpoint (or any, on the list). */
  const takeSecret = (request: FastifyRequest, reply: FastifyReply, id?: number) => {
    const raw = parseCookies(request.headers.cookie).get(SECRET_COOKIE);
    if (raw === undefined) return undefined;
    reply.header('set-cookie', secretCookie(''));
    const dot = raw.indexOf('.');
    const forId = Number(raw.slice(0, dot));
    if (dot <= 0 || (id !== undefined && forId !== id)) return undefined;
    return { id: forId, secret: decodeURIComponent(raw.slice(dot + 1)) };
  };
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const caller = (request: FastifyRequest) => callerOf(sessionOf(request));
    const all = async (request: FastifyRequest) => (await listEndpoints(deps, caller(request), { page: 1, per_page: 100 })).items;

    web.get('/settings/webhooks', async (request, reply) => {
      const secret = takeSecret(request, reply);
      const done = (request.query as { done?: string }).done;
      return sendPage(
        reply,
        webhooksPage(request.visitor, await all(request), WEBHOOK_EVENT_TYPES, { ...(done === undefined ? {} : { done }), ...(secret === undefined ? {} : { secret }) }),
      );
    });

    web.post('/settings/webhooks', async (request, reply) => {
      const body = request.body as URLSearchParams;
      const form = new FormReader(body);
      const url = form.text('url', { required: true, max: 10_000 });
      const description = form.text('description', { max: 500 });
      const types = body.getAll('event_types');
      form.values.event_types = types.join(',');
      if (!form.ok) return sendPage(reply, webhooksPage(request.visitor, await all(request), WEBHOOK_EVENT_TYPES, { state: form.state() }), 422);
      const result = await attempt(() => createEndpoint(deps, caller(request), { url, description, event_types: types }));
      if (!result.ok)
        return sendPage(
          reply,
          webhooksPage(request.visitor, await all(request), WEBHOOK_EVENT_TYPES, { state: stateOf(result.error, form.values) }),
          STATUS_OF_KIND[result.error.kind],
        );
      return reply
        .code(303)
        .header('set-cookie', secretCookie(`${result.value.id}.${encodeURIComponent(result.value.secret)}`))
        .header('location', `/settings/webhooks/${result.value.id}?done=endpoint_created`)
        .send();
    });

    web.get('/settings/webhooks/:id', async (request, reply) => {
      const id = endpointId(request);
      const endpoint = await getEndpoint(deps, caller(request), id);
      const attempts = (await listAttempts(deps, caller(request), id, { page: 1, per_page: 25 })).items;
      const secret = takeSecret(request, reply, id);
      const done = (request.query as { done?: string }).done;
      return sendPage(reply, endpointPage(request.visitor, endpoint, attempts, { ...(done === undefined ? {} : { done }), ...(secret === undefined ? {} : { secret }) }));
    });

    const back = (reply: FastifyReply, id: number, done: string) => reply.code(303).header('location', `/settings/webhooks/${id}?done=${done}`).send();
    web.post('/settings/webhooks/:id/test', async (request, reply) => {
      const id = endpointId(request);
      await sendTestEvent(deps, caller(request), id);
      return back(reply, id, 'endpoint_tested');
    });
    web.post('/settings/webhooks/:id/rotate', async (request, reply) => {
      const id = endpointId(request);
      const rotated = await rotateSecret(deps, caller(request), id);
      return back(reply.header('set-cookie', secretCookie(`${id}.${encodeURIComponent(rotated.secret)}`)), id, 'secret_rotated');
    });
    for (const [path, disabled] of [
      ['disable', true],
      ['enable', false],
    ] as const) {
      web.post(`/settings/webhooks/:id/${path}`, async (request, reply) => {
        const id = endpointId(request);
        await updateEndpoint(deps, caller(request), id, { disabled });
        return back(reply, id, disabled ? 'endpoint_paused' : 'endpoint_enabled');
      });
    }
    web.post('/settings/webhooks/:id/delete', async (request, reply) => {
      await deleteEndpoint(deps, caller(request), endpointId(request));
      return reply.code(303).header('location', '/settings/webhooks?done=endpoint_deleted').send();
    });
  };
}
