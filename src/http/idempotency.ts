// Idempotency-Key on POST (DECISIONS 11). The first request with a key
// claims it; its response is stored and replayed for the same key and body
// within the TTL. Stored per caller, with a hash of the request.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { user_id: number; key: string };
  }
}

const KEY_MAX_LENGTH = 255;
/** How long a claimed key stays "in progress" before a retry may take it over (a crashed node). */
const LOCK_MS = 60_000;

interface StoredResponse {
  content_type: string;
  location?: string;
  body: string;
}

function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  return createHash('sha256').update(`${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`).digest('hex');
}

/** preHandler: claims the key, or replays, or refuses. Returns true when it has replied. */
export async function claimIdempotencyKey(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return false;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length === 0 || key.length > KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('bad_request', 'invalid_parameter', `Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} visible ASCII characters`);
  }
  const userId = request.caller.user_id;
  const hash = requestHash(request);
  const now = deps.clock.now();
  const expiredBefore = new Date(now.getTime() - deps.config.idempotencyTtlHours * 3_600_000).toISOString();
  // An expired record no longer protects anything: clear it so the key can be claimed afresh.
  await deps.db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('created_at', '<', expiredBefore).execute();
  const inserted = await deps.db.insertInto('idempotency_keys').values({
    user_id: userId,
    key,
    request_hash: hash,
    state: 'in_progress',
    response_status: null,
    response_body: null,
    locked_until: new Date(now.getTime() + LOCK_MS).toISOString(),
    created_at: now.toISOString(),
  }).onConflict((oc) => oc.columns(['user_id', 'key']).doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) {
    request.idempotency = { user_id: userId, key };
    return false;
  }
  const existing = await deps.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
  if (existing === undefined) {
    throw new AppError('conflict', 'idempotency_key_in_use', 'a request with this Idempotency-Key is being processed; retry shortly');
  }
  if (existing.request_hash !== hash) {
    throw new AppError('unprocessable', 'idempotency_key_reused', 'this Idempotency-Key was used with a different request');
  }
  if (existing.state === 'done' && existing.response_status !== null && existing.response_body !== null) {
    const stored = JSON.parse(existing.response_body) as StoredResponse;
    reply.code(existing.response_status).header('idempotent-replayed', 'true').type(stored.content_type);
    if (stored.location !== undefined) reply.header('location', stored.location);
    await reply.send(stored.body);
    return true;
  }
  // In progress. If its lock ran out, the first attempt died: take the key over.
  const takenOver = await deps.db.updateTable('idempotency_keys')
    .set({ locked_until: new Date(now.getTime() + LOCK_MS).toISOString() })
    .where('user_id', '=', userId).where('key', '=', key).where('state', '=', 'in_progress')
    .where('locked_until', '<', now.toISOString())
    .executeTakeFirst();
  if (Number(takenOver.numUpdatedRows) === 1) {
    request.idempotency = { user_id: userId, key };
    return false;
  }
  throw new AppError('conflict', 'idempotency_key_in_use', 'a request with this Idempotency-Key is being processed; retry shortly');
}

/** onSend: stores the outcome of a claimed request; a 5xx releases the key for a retry. */
export async function settleIdempotencyKey(deps: Deps, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const claim = request.idempotency;
  if (claim === undefined) return;
  request.idempotency = undefined;
  const where = deps.db.deleteFrom('idempotency_keys').where('user_id', '=', claim.user_id).where('key', '=', claim.key);
  if (reply.statusCode >= 500 || typeof payload !== 'string') {
    await where.execute();
    return;
  }
  const location = reply.getHeader('location');
  const stored: StoredResponse = {
    content_type: String(reply.getHeader('content-type') ?? 'application/json'),
    body: payload,
    ...(typeof location === 'string' ? { location } : {}),
  };
  await deps.db.updateTable('idempotency_keys')
    .set({ state: 'done', response_status: reply.statusCode, response_body: JSON.stringify(stored) })
    .where('user_id', '=', claim.user_id).where('key', '=', claim.key)
    .execute();
}
