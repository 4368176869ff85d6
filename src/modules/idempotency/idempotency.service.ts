// Claiming an Idempotency-Key and settling it (rules §11). The first
// request with a key claims it with a fresh token; a later one with the same
// key and request gets the stored answer, or the resource its work committed;
// a different request with the key is refused; a claim whose attempt died
// (its lock ran out) is taken over.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../shared/errors.ts';
import { Gathered } from '../../db/gathered.ts';
import * as store from './idempotency.store.ts';
import type { IdempotencyClaim } from './idempotency.store.ts';
import type { IdempotencyKeysTable } from '../../db/schema.ts';

export type Claimed =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  /** The stored answer of the first request: its status and what the HTTP layer stored. */
  | { kind: 'answered'; status: number; response: string }
  /** The first request's work committed (`<kind>:<id>`) but its answer was not stored. */
  | { kind: 'committed'; resource: string };

/** The claims and answers of requests that arrive or end together, each written as one statement (db/gathered.ts). */
export interface KeyWrites {
  claims: Gathered<store.NewClaim, boolean>;
  answers: Gathered<store.Answered, void>;
}

declare module '../../deps.ts' {
  interface Runtime {
    idempotency: KeyWrites;
  }
}

/** For platform.ts to build once per node. */
export function createKeyWrites(deps: Deps): KeyWrites {
  return {
    claims: new Gathered((items) => store.insertClaims(deps.db, items)),
    answers: new Gathered<store.Answered, void>(async (items) => {
      await store.storeResponses(deps.db, items);
      return items.map(() => undefined);
    }),
  };
}

/** How well claims and answers shared statements on this node (tests, diagnostics). */
export function keyWriteStats(deps: Deps): { claims: Gathered<unknown, unknown>['stats']; answers: Gathered<unknown, unknown>['stats'] } {
  const { claims, answers } = deps.runtime.idempotency;
  return { claims: { ...claims.stats }, answers: { ...answers.stats } };
}

function inUse(): AppError {
  return new AppError('conflict', 'idempotency_key_in_use', 'a request with this Idempotency-Key is being processed; retry shortly');
}

/**
 * Throws idempotency_key_reused (another request with this key), idempotency_key_in_use (still
 * running). `unwritten`: for a use case that records the key in its own transaction (the donation
 * writers): a key no record holds is claimed without a write of its own (one read), and the work
 * inserts its record with its outcome; two requests racing for the key are decided by that insert.
 */
export async function claimKey(deps: Deps, userId: number, key: string, requestHash: string, options: { unwritten?: boolean } = {}): Promise<Claimed> {
  const now = deps.clock.now();
  const claim = { user_id: userId, key, token: randomUUID() };
  const lockedUntil = new Date(now.getTime() + deps.config.idempotencyLockMs).toISOString();
  const expiredBefore = new Date(now.getTime() - deps.config.idempotencyTtlHours * 3_600_000).toISOString();
  if (options.unwritten === true) {
    // A lookup (it sees every commit made before it began): no pool connection held for it.
    const existing = await store.findRecord(deps.lookups, userId, key);
    if (existing !== undefined && existing.created_at < expiredBefore) await store.clearExpired(deps.db, userId, key, expiredBefore);
    if (existing === undefined || existing.created_at < expiredBefore)
      return { kind: 'claimed', claim: { ...claim, unwritten: { requestHash, at: now.toISOString(), lockedUntil } } };
    return fromRecord(deps, existing, claim, requestHash, lockedUntil);
  }
  const newClaim = { claim, requestHash, lockedUntil, at: now.toISOString() };
  // A new key (nearly every request) is claimed in one statement, shared with the requests that
  // claim keys at the same time. Only when a record of it exists is an expired one cleared, so
  // that the key is claimed afresh.
  if (await deps.runtime.idempotency.claims.add(newClaim)) return { kind: 'claimed', claim };
  await store.clearExpired(deps.db, userId, key, expiredBefore);
  if (await deps.runtime.idempotency.claims.add(newClaim)) return { kind: 'claimed', claim };
  const existing = await store.findRecord(deps.db, userId, key);
  if (existing === undefined) throw inUse();
  return fromRecord(deps, existing, claim, requestHash, lockedUntil);
}

/**
 * A claim of a key no statement has read or written: the work's writer inserts its record, or finds
 * one there. That record is written with the work's outcome, never in progress, so it holds no
 * lock: its `locked_until` is its own time (one date made a keyed request, not two).
 */
export function unwrittenClaim(deps: Deps, userId: number, key: string, requestHash: string): IdempotencyClaim {
  const at = deps.clock.now().toISOString();
  return { user_id: userId, key, token: randomUUID(), unwritten: { requestHash, at, lockedUntil: at } };
}

/** What a request with a key another request recorded gets: its answer, its resource, the key taken over, or a refusal. */
async function fromRecord(deps: Deps, existing: IdempotencyKeysTable, claim: IdempotencyClaim, requestHash: string, lockedUntil: string): Promise<Claimed> {
  if (existing.request_hash !== requestHash) throw new AppError('unprocessable', 'idempotency_key_reused', 'this Idempotency-Key was used with a different request');
  if (existing.state === 'done' && existing.response_status !== null && existing.response_body !== null) {
    return { kind: 'answered', status: existing.response_status, response: existing.response_body };
  }
  if (existing.state === 'committed' && existing.resource !== null) return { kind: 'committed', resource: existing.resource };
  // In progress. If its lock ran out, the first attempt died: take the key over with a new
  // token. Should the first attempt still be alive, its outcome write fails and it rolls back.
  if (await store.takeOver(deps.db, claim, lockedUntil, deps.clock.now().toISOString())) return { kind: 'claimed', claim };
  throw inUse();
}

/**
 * Stores a claimed request's answer (`response` undefined: released for a retry, unless its work
 * committed). Nothing when the work's transaction stored it. A claim that was unwritten has a
 * record only if its work committed one: its answer is inserted or set on that record.
 */
export async function settleKey(deps: Deps, claim: IdempotencyClaim, status: number, response: string | undefined): Promise<void> {
  if (claim.answered === true) return;
  if (claim.unwritten !== undefined) {
    if (response !== undefined) await store.upsertAnswer(deps.db, claim, { status, response });
    return;
  }
  if (response === undefined) await store.release(deps.db, claim);
  else await deps.runtime.idempotency.answers.add({ claim, status, response });
}
