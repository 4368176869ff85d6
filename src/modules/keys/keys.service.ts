// Use cases for API keys.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import type { Trx } from '../../db/database.ts';
import type { Caller } from '../../shared/caller.ts';
import { hashSecret } from '../../shared/secrets.ts';
import { generateKey, looksLikeKey, LAST_USED_WRITE_INTERVAL_MS, type KeyMode } from './keys.ts';
import * as store from './keys.store.ts';
import { CallerCache } from './caller-cache.ts';
import { FreshReads, stamped, type Stamp } from '../../db/fresh-reads.ts';
import { actingOf } from '../members/index.ts';

export interface CreatedKey extends store.ApiKeyView {
  key: string;
}

/** Creates a key for a user; the full key is in the result and nowhere else, ever. */
export async function createKey(deps: Deps, userId: number, name: string, mode: KeyMode, trx?: Trx): Promise<CreatedKey> {
  // A key acts in its user's book: a sandbox key belongs to a sandbox twin (users.createKeyForOwner), never to a live user.
  assert((await store.bookOfUser(trx ?? deps.db, userId)) === mode, `a ${mode} key is made for a user of the ${mode} book`);
  const key = generateKey(deps.ids, mode);
  const view = await store.insertKey(trx ?? deps.db, {
    user_id: userId,
    name,
    key_hash: hashSecret(key),
    last4: key.slice(-4),
    mode,
    created_at: deps.clock.now().toISOString(),
  });
  return { ...view, key };
}

export function listKeys(deps: Deps, userId: number): Promise<store.ApiKeyView[]> {
  return store.listKeys(deps.db, userId);
}

/** The keys' callers a node keeps, and the shared reads of the auth epoch that keep them true. */
export interface KeyCache {
  epoch: FreshReads<Stamp>;
  callers: CallerCache;
}

declare module '../../deps.ts' {
  interface Runtime {
    keys: KeyCache;
  }
}

/** For platform.ts to build once per node. */
export function createKeyCache(deps: Deps): KeyCache {
  return { epoch: new FreshReads(stamped(deps.undone, () => store.authEpoch(deps.lookups))), callers: new CallerCache() };
}

/** Throws not_found (api_key_not_found) for unknown, revoked or another user's keys. */
export async function revokeKey(deps: Deps, userId: number, keyId: number): Promise<void> {
  const revoked = await store.revokeKey(deps.db, userId, keyId, deps.clock.now().toISOString());
  if (!revoked) throw notFound('api_key_not_found', `no API key ${keyId}`);
}

/**
 * The caller a key acts for, or undefined for a string that is no live key.
 * Served from the node's cache while the auth epoch is unchanged (caller-cache.ts).
 */
export async function callerOfKey(deps: Deps, key: string): Promise<Caller | undefined> {
  // A string that cannot be a key is not worth a database round trip.
  if (!looksLikeKey(key)) return undefined;
  const keyHash = hashSecret(key);
  const { epoch: epochs, callers: cache } = deps.runtime.keys;
  // A read that began after this call (db/fresh-reads.ts: concurrent requests share it).
  const epoch = await epochs.get();
  let caller = cache.get(keyHash, epoch);
  if (caller === undefined) {
    const holder = await store.findKeyHolder(deps.db, keyHash);
    const acting = holder === undefined ? undefined : await actingOf(deps.db, holder);
    if (holder !== undefined && acting !== undefined) {
      caller = { key_id: holder.key_id, mode: holder.mode, book: holder.book, last_used_at: holder.last_used_at, ...acting };
      cache.set(keyHash, epoch, caller);
    }
  }
  return caller;
}

/** Records that a key was used, at most once per LAST_USED_WRITE_INTERVAL_MS. */
export async function noteKeyUse(deps: Deps, caller: Caller): Promise<void> {
  const now = deps.clock.now();
  const stale = caller.last_used_at === null || Date.parse(caller.last_used_at) < now.getTime() - LAST_USED_WRITE_INTERVAL_MS;
  if (!stale) return;
  const notBefore = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS).toISOString();
  await store.touchKey(deps.db, caller.key_id, now.toISOString(), notBefore);
  caller.last_used_at = now.toISOString();
}
