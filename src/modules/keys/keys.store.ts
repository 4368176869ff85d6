// Every SQL statement about API keys.
import type { Db, Trx } from '../../db/database.ts';
import type { Selectable } from 'kysely';
import type { ApiKeysTable, Database } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import type { Book } from '../../shared/book.ts';
import type { Caller } from '../../shared/caller.ts';

const KEY_VIEW = ['id', 'name', 'last4', 'mode', 'created_at', 'last_used_at'] as const;

/** What a key's owner sees of it: never its hash. */
export type ApiKeyView = Pick<Selectable<ApiKeysTable>, (typeof KEY_VIEW)[number]>;

/** A key and the person it belongs to (modules/members makes them a caller on the fund they act on). */
export type KeyHolder = Pick<Caller, 'key_id' | 'mode' | 'book' | 'last_used_at'> & { user_id: number; own_status: string; owner_status: string | null };

// Runs on every authenticated request (the node's cache aside): prepared once.

// A key acts only in its user's book (a key whose mode differs from it is no key at all),
// and a sandbox twin is stopped with its owner.
const holderQuery = prepared<Database, KeyHolder, { key_hash: string }>((db, p) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .leftJoin('users as o', 'o.id', 'u.sandbox_of')
    .select(['k.id as key_id', 'k.user_id', 'k.mode', 'k.last_used_at', 'u.book', 'u.status as own_status', 'o.status as owner_status'])
    .where('k.key_hash', '=', p('key_hash'))
    .where('k.revoked_at', 'is', null)
    .whereRef('k.mode', '=', 'u.book'),
);

export async function findKeyHolder(db: Db, keyHash: string): Promise<KeyHolder | undefined> {
  return (await holderQuery(db, { key_hash: keyHash }))[0];
}

/** Writes last_used_at unless another request (on any node) did so within the interval. */
export async function touchKey(db: Db, keyId: number, now: string, notBefore: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
    .execute();
}

/** The book of the user a key would act for. */
export async function bookOfUser(db: Db | Trx, userId: number): Promise<Book | undefined> {
  return (await db.selectFrom('users').select('book').where('id', '=', userId).executeTakeFirst())?.book;
}

export async function insertKey(db: Db | Trx, key: { user_id: number; name: string; key_hash: string; last4: string; mode: string; created_at: string }): Promise<ApiKeyView> {
  return db.insertInto('api_keys').values(key).returning(KEY_VIEW).executeTakeFirstOrThrow();
}

export async function listKeys(db: Db, userId: number): Promise<ApiKeyView[]> {
  return db.selectFrom('api_keys').select(KEY_VIEW).where('user_id', '=', userId).where('revoked_at', 'is', null).orderBy('id', 'desc').execute();
}

export async function revokeKey(db: Db, userId: number, keyId: number, at: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await bumpAuthEpoch(trx);
    return true;
  });
}

/** Every change that may end a key's validity raises the epoch in its transaction. */
export async function bumpAuthEpoch(trx: Trx): Promise<void> {
  await trx
    .updateTable('auth_epoch')
    .set((eb) => ({ epoch: eb('epoch', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

const epochQuery = prepared<Database, { epoch: number }, Record<string, never>>((db) => db.selectFrom('auth_epoch').select('epoch').where('id', '=', 1));

/** The auth epoch as it is now (keys.service.ts shares these reads between concurrent requests). */
export async function authEpoch(db: Db): Promise<number> {
  return (await epochQuery(db, {}))[0]?.epoch ?? 0;
}
