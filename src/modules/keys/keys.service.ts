// Use cases for API keys.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import type { Trx } from '../../db/database.ts';
import { generateKey, hashKey, type KeyMode } from './keys.ts';
import * as store from './keys.store.ts';

export interface CreatedKey extends store.ApiKeyView {
  key: string;
}

/** Creates a key for a user; the full key is in the result and nowhere else, ever. */
export async function createKey(deps: Deps, userId: number, name: string, mode: KeyMode, trx?: Trx): Promise<CreatedKey> {
  // A key acts in its user's book: a sandbox key belongs to a sandbox twin (users.createKeyForOwner), never to a live user.
  assert(await store.bookOfUser(trx ?? deps.db, userId) === mode, `a ${mode} key is made for a user of the ${mode} book`);
  const key = generateKey(deps.ids, mode);
  const view = await store.insertKey(trx ?? deps.db, {
    user_id: userId,
    name,
    key_hash: hashKey(key),
    last4: key.slice(-4),
    mode,
    created_at: deps.clock.now().toISOString(),
  });
  return { ...view, key };
}

export function listKeys(deps: Deps, userId: number): Promise<store.ApiKeyView[]> {
  return store.listKeys(deps.db, userId);
}

/** Throws not_found (api_key_not_found) for unknown, revoked or another user's keys. */
export async function revokeKey(deps: Deps, userId: number, keyId: number): Promise<void> {
  const revoked = await store.revokeKey(deps.db, userId, keyId, deps.clock.now().toISOString());
  if (!revoked) throw notFound('api_key_not_found', `no API key ${keyId}`);
}
