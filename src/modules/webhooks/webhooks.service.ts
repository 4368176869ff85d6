// Webhook endpoints as use cases (rules §12): a user's, in the caller's
// book; the secret shown once (on creation and rotation); a rotated secret
// keeps verifying for 24 hours; a test event; a replay for operators.
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError, conflict, fieldErrors, notFound, type FieldError } from '../../shared/errors.ts';
import { looksLikeClientId } from '../apps/index.ts';
import type { Trx } from '../../db/database.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import * as store from './webhooks.store.ts';
import { endpointUrlProblem, newSecret, WEBHOOK_EVENT_TYPES } from './webhooks.ts';
import { authorize } from '../../shared/policy.ts';

export const ROTATION_GRACE_MS = 24 * 3_600_000;

export interface EndpointInput {
  /** The client id of one of the caller's own apps: the endpoint hears of what that app makes (rules §25). */
  app?: unknown;
  url?: unknown;
  description?: unknown;
  event_types?: unknown;
  disabled?: unknown;
}

/** An endpoint in its owner's form (never its secret). */
export function endpointForm(e: store.OwnEndpoint) {
  return {
    id: e.id,
    app: e.app_client_id,
    url: e.url,
    description: e.description,
    event_types: JSON.parse(e.event_types) as string[],
    disabled: e.disabled === 1,
    disabled_reason: e.disabled_reason,
    failing_since: e.failing_since,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

/** The fields' problems, all at once, or the fields to write. */
function validate(deps: Deps, input: EndpointInput, creating: boolean): { url?: string; description?: string; event_types?: string; disabled?: number } {
  const problems: FieldError[] = [];
  const out: { url?: string; description?: string; event_types?: string; disabled?: number } = {};
  if (input.url !== undefined || creating) {
    if (typeof input.url !== 'string') problems.push({ field: 'url', code: 'validation_failed', message: 'is required: the https URL to deliver to' });
    else {
      const problem = endpointUrlProblem(input.url, deps.config.webhookAllowPrivate);
      if (problem !== undefined) problems.push({ field: 'url', code: 'invalid_url', message: problem });
      else out.url = input.url;
    }
  }
  if (input.description !== undefined) {
    if (typeof input.description !== 'string' || input.description.length > 500 || input.description.includes('\u0000'))
      problems.push({ field: 'description', code: 'validation_failed', message: 'must be text of at most 500 characters' });
    else out.description = input.description;
  }
  if (input.event_types !== undefined) {
    const types = input.event_types;
    if (!Array.isArray(types) || types.length > WEBHOOK_EVENT_TYPES.length || !types.every((t) => (WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(t)))
      problems.push({ field: 'event_types', code: 'validation_failed', message: `must be a list of ${WEBHOOK_EVENT_TYPES.join(', ')} (empty: every type)` });
    else out.event_types = JSON.stringify([...new Set(types as string[])].sort());
  }
  if (input.disabled !== undefined) {
    if (typeof input.disabled !== 'boolean') problems.push({ field: 'disabled', code: 'validation_failed', message: 'must be true or false' });
    else out.disabled = input.disabled ? 1 : 0;
  }
  if (problems.length > 0) throw fieldErrors(problems);
  return out;
}

/**
 * A new endpoint; the answer is the only time its secret is shown. A user has at most
 * WEBHOOK_ENDPOINTS_PER_USER (counted under a lock on the user, so requests at once cannot pass
 * it). Throws unprocessable (invalid_url, validation_failed), conflict (webhook_endpoint_limit).
 */
export async function createEndpoint(deps: Deps, caller: Caller, input: EndpointInput) {
  authorize(caller, 'webhooks');
  const fields = validate(deps, input, true);
  const appId = input.app === undefined ? null : await ownAppOf(deps, caller, input.app);
  const at = deps.clock.now().toISOString();
  const secret = newSecret();
  const id = await deps.db.transaction().execute(async (trx) => {
    await store.lockOwner(trx, caller.user_id);
    const max = deps.config.webhookEndpointsPerUser;
    if ((await store.liveEndpointCount(trx, caller.user_id)) >= max) {
      throw conflict('webhook_endpoint_limit', `a user may have at most ${max} webhook endpoints; delete one you no longer use`);
    }
    return insertNew(trx);
  });
  return { ...(await getEndpoint(deps, caller, id)), secret };

  function insertNew(trx: Trx) {
    return store.insertEndpoint(trx, {
      book: caller.book,
      user_id: caller.user_id,
      url: fields.url as string,
      description: fields.description ?? '',
      event_types: fields.event_types ?? '[]',
      disabled: fields.disabled ?? 0,
      disabled_reason: null,
      secret,
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: at,
      updated_at: at,
      deleted_at: null,
      created_by: caller.actor_id,
      app_id: appId,
    });
  }
}

/**
 * The app an endpoint is to be of (rules §25): one the person registered, in the book they act
 * in, not deleted; they act on their own fund (an app's endpoint is its developer's, not a shared
 * fund's). Throws validation_failed (not a client id), app_not_found, forbidden.
 */
async function ownAppOf(deps: Deps, caller: Caller, clientId: unknown): Promise<number> {
  if (typeof clientId !== 'string' || !looksLikeClientId(clientId))
    throw fieldErrors([{ field: 'app', code: 'validation_failed', message: 'must be the client id of one of your apps (app_...)' }]);
  if (caller.user_id !== caller.actor_id) throw new AppError('forbidden', 'forbidden', "an app's endpoint is its developer's: act on your own fund to add one");
  const app = await store.appForEndpoint(deps.db, clientId);
  if (app === undefined || app.owner_id !== caller.actor_id || app.book !== caller.book || app.deleted_at !== null)
    throw notFound('app_not_found', `no app ${clientId} of yours${caller.book === 'test' ? ' in the sandbox' : ''}`);
  return app.id;
}

async function ownEndpoint(deps: Deps, caller: Caller, id: number): Promise<store.OwnEndpoint> {
  const endpoint = await store.findEndpoint(deps.db, caller.book, caller.user_id, id);
  if (endpoint === undefined) throw notFound('webhook_endpoint_not_found', `no webhook endpoint ${id}`);
  return endpoint;
}

export async function getEndpoint(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'read_secrets');
  return endpointForm(await ownEndpoint(deps, caller, id));
}

export async function listEndpoints(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read_secrets');
  const { rows, count } = await store.pageOfEndpoints(deps.db, caller.book, caller.user_id, page);
  return toPage(rows.map(endpointForm), count, page);
}

/** Changes url, description, event_types or disabled; enabling one clears why it was disabled. */
export async function updateEndpoint(deps: Deps, caller: Caller, id: number, input: EndpointInput) {
  authorize(caller, 'webhooks');
  const endpoint = await ownEndpoint(deps, caller, id);
  const fields = validate(deps, input, false);
  const at = deps.clock.now().toISOString();
  await store.updateEndpoint(deps.db, endpoint.id, {
    ...fields,
    ...(fields.disabled === 0 ? { disabled_reason: null, failing_since: null } : {}),
    updated_at: at,
  });
  return getEndpoint(deps, caller, id);
}

export async function deleteEndpoint(deps: Deps, caller: Caller, id: number): Promise<void> {
  authorize(caller, 'webhooks');
  const endpoint = await ownEndpoint(deps, caller, id);
  await deps.db.transaction().execute((trx) => store.deleteEndpoint(trx, endpoint.id, deps.clock.now().toISOString()));
}

/** A new secret, shown once; the old one keeps signing beside it for 24 hours, so receivers can switch without losing a delivery. */
export async function rotateSecret(deps: Deps, caller: Caller, id: number): Promise<{ secret: string; previous_secret_expires_at: string }> {
  authorize(caller, 'webhooks');
  const endpoint = await ownEndpoint(deps, caller, id);
  const now = deps.clock.now();
  const until = new Date(now.getTime() + ROTATION_GRACE_MS).toISOString();
  const secret = newSecret();
  await store.updateEndpoint(deps.db, endpoint.id, { secret, previous_secret: endpoint.secret, previous_secret_until: until, updated_at: now.toISOString() });
  return { secret, previous_secret_expires_at: until };
}

/** Queues a `webhook.test` delivery to this endpoint now (even a disabled one: that is how its owner checks it again). */
export async function sendTestEvent(deps: Deps, caller: Caller, id: number): Promise<{ message_id: string }> {
  authorize(caller, 'webhooks');
  const endpoint = await ownEndpoint(deps, caller, id);
  const at = deps.clock.now().toISOString();
  const messageId = `msg_test_${deps.ids.base62(20)}`;
  const payload = JSON.stringify({ type: 'webhook.test', timestamp: at, data: { endpoint_id: endpoint.id, message: 'A test event from Almoner.' } });
  await deps.db
    .transaction()
    .execute((trx) =>
      store.insertDeliveries(trx, [
        { endpoint_id: endpoint.id, event_id: null, message_id: messageId, type: 'webhook.test', payload, status: 'pending', next_at: at, created_at: at },
      ]),
    );
  return { message_id: messageId };
}

export async function listAttempts(deps: Deps, caller: Caller, id: number, page: PageRequest) {
  authorize(caller, 'read_secrets');
  const endpoint = await ownEndpoint(deps, caller, id);
  const { rows, count } = await store.pageOfAttempts(deps.db, endpoint.id, page);
  return toPage(
    rows.map((a) => ({
      id: a.id,
      at: a.at,
      message_id: a.message_id,
      event_type: a.type,
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      succeeded: a.succeeded === 1,
      error: a.error,
      delivery: { attempts: a.attempts, status: a.delivery_status },
    })),
    count,
    page,
  );
}

/**
 * A member left a fund (rules §20): the endpoints they made for it, which hear every event of the
 * fund, end with the membership, in its transaction. `holders` are the fund's holder and their
 * sandbox twin, `makers` the member and theirs. Returns how many ended.
 */
export async function endEndpointsOfMember(trx: Trx, holders: readonly number[], makers: readonly number[], at: string): Promise<number> {
  const ids = await store.endpointsMadeBy(trx, holders, makers);
  for (const id of ids) await store.deleteEndpoint(trx, id, at);
  return ids.length;
}
