// Idempotency-Key on POST (DECISIONS 11). The first request with a key
// claims it; its response is stored and replayed for the same key and body
// within the TTL. Stored per caller, with a hash of the request.
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import type { Caller } from '../shared/caller.ts';
import { AppError } from '../shared/errors.ts';
import { idempotencyClaims, type IdempotencyClaim } from '../shared/outcome.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
  }
}

/** What a replay answers for a recorded outcome, by the resource's kind (`donation` of `donation:42`). */
export type Replayers = Record<string, (caller: Caller, id: string) => Promise<{ status: number; location?: string; body: unknown }>>;

const KEY_MAX_LENGTH = 255;

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
function hold(request: FastifyRequest, claim: IdempotencyClaim): false {
  request.idempotency = claim;
  return false;
}

/** Runs a route's handler with its request's claim in context, where the use case records its outcome. */
export function withClaim<R>(request: FastifyRequest, handler: () => R): R {
  const claim = request.idempotency;
  return claim === undefined ? handler() : idempotencyClaims.run(claim, handler);
}

export async function claimIdempotencyKey(deps: Deps, request: FastifyRequest, reply: FastifyReply, replayers: Replayers): Promise<boolean> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return false;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length === 0 || key.length > KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('bad_request', 'invalid_parameter', `Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} visible ASCII characters`);
  }
  const userId = request.caller.user_id;
  const hash = requestHash(request);
  const token = randomUUID();
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
    locked_until: new Date(now.getTime() + deps.config.idempotencyLockMs).toISOString(),
    created_at: now.toISOString(),
    claim_token: token,
    resource: null,
  }).onConflict((oc) => oc.columns(['user_id', 'key']).doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return hold(request, { user_id: userId, key, token });
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
  if (existing.state === 'committed' && existing.resource !== null) {
    // The work is done (its outcome was written in its transaction) but its answer was not
    // stored: the attempt died after the commit, or is sending it now. Answer from the resource.
    const [kind = '', id = ''] = existing.resource.split(/:(.*)/s);
    const replayer = replayers[kind];
    if (replayer !== undefined) {
      const replayed = await replayer(request.caller, id);
      reply.code(replayed.status).header('idempotent-replayed', 'true');
      if (replayed.location !== undefined) reply.header('location', replayed.location);
      await reply.send(replayed.body);
      return true;
    }
  }
  // In progress. If its lock ran out, the first attempt died: take the key over with a new
  // token. Should the first attempt still be alive, its outcome write fails and it rolls back.
  const takenOver = await deps.db.updateTable('idempotency_keys')
    .set({ locked_until: new Date(now.getTime() + deps.config.idempotencyLockMs).toISOString(), claim_token: token })
    .where('user_id', '=', userId).where('key', '=', key).where('state', '=', 'in_progress')
    .where('locked_until', '<', now.toISOString())
    .executeTakeFirst();
  if (Number(takenOver.numUpdatedRows) === 1) return hold(request, { user_id: userId, key, token });
  throw new AppError('conflict', 'idempotency_key_in_use', 'a request with this Idempotency-Key is being processed; retry shortly');
}

/** onSend: stores the outcome of a claimed request; a 5xx releases the key for a retry. */
export async function settleIdempotencyKey(deps: Deps, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const claim = request.idempotency;
  if (claim === undefined) return;
  request.idempotency = undefined;
  if (reply.statusCode >= 500 || typeof payload !== 'string') {
    // Released for a retry, unless the work committed: then a retry replays its outcome.
    await deps.db.deleteFrom('idempotency_keys').where('user_id', '=', claim.user_id).where('key', '=', claim.key)
      .where('claim_token', '=', claim.token).where('state', '=', 'in_progress').execute();
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
    .where('user_id', '=', claim.user_id).where('key', '=', claim.key).where('claim_token', '=', claim.token)
    .execute();
}
