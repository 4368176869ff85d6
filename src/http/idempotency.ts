// Idempotency-Key on POST (rules §11). The first request with a key
// claims it; its response is stored and replayed for the same key and body
// within the TTL. Stored per caller, with a hash of the request.
import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import type { Caller } from '../shared/caller.ts';
import { AppError } from '../shared/errors.ts';
import { claimKey, settleKey, unwrittenClaim, type Claimed, type IdempotencyClaim } from '../modules/idempotency/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's claim on its Idempotency-Key, which its route hands to the use case (recordOutcome). */
    idempotency?: IdempotencyClaim;
  }
  interface FastifyContextConfig {
    /**
     * The route's use case writes its Idempotency-Key record in its own transaction, with its outcome
     * and its answer (answeringWith): the key is claimed without a write of its own.
     */
    keyWrittenWithWork?: boolean;
  }
}

/** An answer a route gives for what it made, or for what a recorded outcome names. */
export interface Answer {
  status: number;
  location?: string;
  body: unknown;
}

/**
 * What a replay answers for a recorded outcome, by the resource's kind
 * (`donation` of `donation:42`), or for one route's (`POST /v1/dafpay/grants donation`). Each
 * module's routes give theirs, made by the same function that makes the route's own answer.
 */
export type Replayers = Record<string, (deps: Deps, caller: Caller, id: string) => Promise<Answer>>;

/** Sends an Answer. */
export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status);
  if (answer.location !== undefined) reply.header('location', answer.location);
  return reply.send(answer.body);
}

const KEY_MAX_LENGTH = 255;

/**
 * An answer as stored: the text sent (`body`), or, stored by the use case's transaction before it
 * was sent, the value the route's schema turns into that text (`value`).
 */
interface StoredResponse {
  content_type: string;
  location?: string;
  body?: string;
  value?: unknown;
}

/**
 * A claim whose use case stores its answer in its own transaction: `answer`, the route's answer
 * for the view the use case made. The replay sends the value through the route's schema again.
 */
export function answeringWith<T>(claim: IdempotencyClaim | undefined, answer: (view: T) => Answer): IdempotencyClaim | undefined {
  if (claim === undefined) return undefined;
  claim.answer = (view) => {
    const { status, location, body } = answer(view as T);
    const stored: StoredResponse = { content_type: 'application/json; charset=utf-8', ...(location === undefined ? {} : { location }), value: body };
    return { status, response: JSON.stringify(stored) };
  };
  return claim;
}

/** The SHA-256 of the request's method, path and body: the one-shot hash (0.3 us), not a Hash object (1.6 us), the same bytes. */
function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  return hash('sha256', `${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`, 'hex');
}

/** What `keyRecorded` needs of a request whose key its use case writes (keyWrittenWithWork). */
interface KeyWritten {
  deps: Deps;
  replayers: Replayers;
  key: string;
  hash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * A route whose use case writes its key (keyWrittenWithWork): its key and request hash, for
     * keyedAnswer to ask, when the use case refuses, whether an earlier request recorded the key.
     * Plain data, not a closure: a closure made here and kept on the request made every keyed
     * request's objects outlive the young generation (docs/performance-history.md, 2026-12-01, late morning).
     */
    keyWritten?: KeyWritten;
  }
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length === 0 || key.length > KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('bad_request', 'invalid_parameter', `Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} visible ASCII characters`);
  }
  return key;
}

/**
 * preHandler: claims the key, or replays, or refuses. Returns true when it has replied. A route
 * whose use case writes its key (keyWrittenWithWork) is given an unwritten claim without a
 * statement: its writer inserts the key's record with the work, and a key recorded before makes
 * the use case refuse (idempotency_key_in_use); keyedAnswer then asks `keyRecorded`, which replays.
 */
export async function claimIdempotencyKey(deps: Deps, request: FastifyRequest, reply: FastifyReply, replayers: Replayers): Promise<boolean> {
  const key = keyOf(request);
  if (key === undefined) return false;
  const hash = requestHash(request);
  if (request.routeOptions.config.keyWrittenWithWork === true) {
    request.idempotency = unwrittenClaim(deps, request.caller.actor_id, key, hash);
    request.keyWritten = { deps, replayers, key, hash };
    return false;
  }
  return answerClaimed(deps, request, reply, replayers, await claimKey(deps, request.caller.actor_id, key, hash));
}

/** A route of keyWrittenWithWork: its answer, or, when its use case refused and the key holds an earlier request's answer, that answer replayed. */
export async function keyedAnswer(request: FastifyRequest, reply: FastifyReply, run: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await run();
  } catch (error) {
    const written = request.keyWritten;
    if (!(error instanceof AppError) || written === undefined) throw error;
    const found = await keyRecorded(request, reply, written, error);
    if (found === 'replied') return reply;
    if (found === 'again') return run();
    throw error;
  }
}

/**
 * Whether an earlier request recorded the key of a request its use case refused: if so it answers
 * as a replay ('replied') instead of the refusal, or, the earlier attempt having died holding it,
 * takes the key over for the use case to run again ('again'). A key whose record was kept past its
 * time is free: the record that made the use case refuse is cleared, and the work runs again.
 */
async function keyRecorded(request: FastifyRequest, reply: FastifyReply, { deps, replayers, key, hash }: KeyWritten, refusal: AppError): Promise<'replied' | 'again' | 'none'> {
  const claimed = await claimKey(deps, request.caller.actor_id, key, hash, { unwritten: true });
  if (claimed.kind !== 'claimed') return (await answerClaimed(deps, request, reply, replayers, claimed)) ? 'replied' : 'none';
  // No record now: the refusal was the use case's own, unless it was the key's insert meeting a
  // record since cleared (expired). Otherwise the record of a dead attempt, now this request's.
  if (claimed.claim.unwritten !== undefined && refusal.code !== 'idempotency_key_in_use') return 'none';
  request.idempotency = claimed.claim;
  return 'again';
}

/** Holds the claim for the use case, or answers for what the key's record says. True when it has replied. */
async function answerClaimed(deps: Deps, request: FastifyRequest, reply: FastifyReply, replayers: Replayers, claimed: Claimed): Promise<boolean> {
  if (claimed.kind === 'claimed') {
    request.idempotency = claimed.claim;
    return false;
  }
  request.idempotency = undefined;
  if (claimed.kind === 'answered') {
    const stored = JSON.parse(claimed.response) as StoredResponse;
    reply.code(claimed.status).header('idempotent-replayed', 'true');
    if (stored.location !== undefined) reply.header('location', stored.location);
    // A value is sent through the route's schema, as the first answer was.
    if ('value' in stored) await reply.send(stored.value);
    else await reply.type(stored.content_type).send(stored.body);
    return true;
  }
  // The work is done (its outcome was written in its transaction) but its answer was not
  // stored: the attempt died after the commit, or is sending it now. Answer from the resource.
  const [kind = '', id = ''] = claimed.resource.split(/:(.*)/s);
  // A route may answer for its resource its own way (`METHOD /path kind`), else the kind's replayer does.
  const replayer = replayers[`${request.method} ${request.routeOptions.url ?? ''} ${kind}`] ?? replayers[kind];
  if (replayer === undefined) throw new AppError('conflict', 'idempotency_key_in_use', 'a request with this Idempotency-Key is being processed; retry shortly');
  await sendAnswer(reply.header('idempotent-replayed', 'true'), await replayer(deps, request.caller, id));
  return true;
}

/** onSend: stores the outcome of a claimed request; a 5xx releases the key for a retry. */
export async function settleIdempotencyKey(deps: Deps, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const claim = request.idempotency;
  if (claim === undefined) return;
  request.idempotency = undefined;
  // The work's transaction stored the answer (a donation's round): nothing to write, and no text
  // of it to make (the payload escaped into JSON again was 2-3 us a keyed request, for nothing).
  if (claim.answered === true) return;
  if (reply.statusCode >= 500 || typeof payload !== 'string') {
    // Released for a retry, unless the work committed: then a retry replays its outcome.
    await settleKey(deps, claim, reply.statusCode, undefined);
    return;
  }
  const location = reply.getHeader('location');
  const stored: StoredResponse = {
    content_type: String(reply.getHeader('content-type') ?? 'application/json'),
    body: payload,
    ...(typeof location === 'string' ? { location } : {}),
  };
  await settleKey(deps, claim, reply.statusCode, JSON.stringify(stored));
}
