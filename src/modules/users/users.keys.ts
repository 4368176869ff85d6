// A live user's API keys: their own, and their sandbox twin's (made on first
// use), which their settings page and the operator's CLI manage together.
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import type { Trx } from '../../db/database.ts';
import { createKey, listKeys, revokeKey, type ApiKeyView, type CreatedKey, type KeyMode } from '../keys/index.ts';
import { createAuditedIn, createUser, type NewUser } from './users.service.ts';
import * as store from './users.store.ts';
import { mirrorNewTwin } from '../members/index.ts';

/**
 * The user a test key acts for: the sandbox twin of `userId` (created on
 * first use: hidden, with a fund of its own), or `userId` itself if it is a
 * twin already. Throws user_not_found.
 */
export async function sandboxUserFor(deps: Deps, userId: number, trx: Trx): Promise<number> {
  const parent = await store.sandboxOf(trx, userId);
  if (parent === undefined) throw notFound('user_not_found', `no user ${userId}`);
  if (parent !== null) return userId;
  const existing = await store.findSandboxTwin(trx, userId);
  if (existing !== undefined) return existing;
  const user = await store.findUserById(trx, userId);
  const fund = await store.currentFund(trx, userId);
  assert(user !== undefined && fund !== undefined, 'the live user and fund exist');
  const twin = await createUser(
    deps,
    {
      name: user.name,
      slug: `${user.slug}-sandbox`,
      city: user.city,
      visible: false,
      fund_name: `${fund.name} (sandbox)`,
      sandbox_of: userId,
    },
    trx,
  );
  // The twin follows the live memberships around its owner (rules §20), making the twins they need.
  await mirrorNewTwin(trx, userId, deps.clock.now().toISOString(), (t, live) => sandboxUserFor(deps, live, t));
  return twin.user_id;
}

/**
 * A key for the live user `ownerId` (the web's settings): a live key is
 * theirs; a sandbox key belongs to their sandbox twin, in the test book, as
 * the API makes it. Never a test key on a live user.
 */
export async function createKeyForOwner(deps: Deps, ownerId: number, name: string, mode: KeyMode, trx?: Trx): Promise<CreatedKey> {
  if (mode === 'test' && !deps.config.sandbox) throw new AppError('unprocessable', 'sandbox_disabled', 'this platform has no sandbox: only live keys can be made');
  const make = async (t: Trx) => createKey(deps, mode === 'test' ? await sandboxUserFor(deps, ownerId, t) : ownerId, name, mode, t);
  return trx === undefined ? deps.db.transaction().execute(make) : make(trx);
}

/** The keys of a live user and of their sandbox twin, newest first: what their settings page manages. */
export async function keysOfOwner(deps: Deps, ownerId: number): Promise<ApiKeyView[]> {
  const twin = await store.findSandboxTwin(deps.db, ownerId);
  const keys = [...(await listKeys(deps, ownerId)), ...(twin === undefined ? [] : await listKeys(deps, twin))];
  return keys.sort((a, b) => b.id - a.id);
}

/** Revokes one of the keys keysOfOwner lists. Throws api_key_not_found. */
export async function revokeKeyOfOwner(deps: Deps, ownerId: number, keyId: number): Promise<void> {
  const own = (await listKeys(deps, ownerId)).some((k) => k.id === keyId);
  const holder = own ? ownerId : await store.findSandboxTwin(deps.db, ownerId);
  if (holder === undefined) throw notFound('api_key_not_found', `no API key ${keyId}`);
  await revokeKey(deps, holder, keyId);
}

/**
 * The one composition of a new user with an API key (the operator's CLI, the
 * tests), in one transaction, audited: a test key belongs to the user's
 * sandbox twin, made with it. `also` runs in the same transaction (e.g. a web account).
 */
export async function createUserWithKey(deps: Deps, input: NewUser, key: { name: string; mode: KeyMode }, actor: string, also?: (trx: Trx, userId: number) => Promise<void>) {
  return deps.db.transaction().execute(async (trx) => {
    const user = await createAuditedIn(deps, trx, input, actor);
    const created = await createKeyForOwner(deps, user.user_id, key.name, key.mode, trx);
    if (also !== undefined) await also(trx, user.user_id);
    return { ...user, key: created };
  });
}
