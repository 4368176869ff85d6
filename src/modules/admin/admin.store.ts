// Every SQL statement about operator tokens.
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { AdminTokensTable } from '../../db/schema.ts';

const TOKEN_VIEW = ['id', 'name', 'last4', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'] as const;

/** What an operator sees of a token: never its hash. */
export type AdminTokenView = Pick<Selectable<AdminTokensTable>, (typeof TOKEN_VIEW)[number]>;

export async function insertAdminToken(
  db: Db | Trx,
  token: { name: string; operator: string; token_hash: string; last4: string; created_at: string; expires_at: string | null },
): Promise<number> {
  const row = await db.insertInto('admin_tokens').values(token).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The token with this hash that works at `now` (not revoked, not expired), or undefined. */
export async function findAdminToken(
  db: Db,
  tokenHash: string,
  now: string,
): Promise<{ id: number; name: string; operator: string | null; last_used_at: string | null } | undefined> {
  return db
    .selectFrom('admin_tokens')
    .select(['id', 'name', 'operator', 'last_used_at'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

/** Writes last_used_at unless it was written since `notBefore` (by any node). */
export async function touchAdminToken(db: Db, id: number, now: string, notBefore: string): Promise<void> {
  await db
    .updateTable('admin_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
    .execute();
}

/** Every token, newest first, revoked and expired ones too. */
export async function listAdminTokens(db: Db): Promise<AdminTokenView[]> {
  return db.selectFrom('admin_tokens').select(TOKEN_VIEW).orderBy('id', 'desc').execute();
}

/** Revokes a token not revoked yet; returns it as it was, or undefined. */
export async function revokeAdminToken(trx: Trx, id: number, at: string): Promise<AdminTokenView | undefined> {
  const before = await trx.selectFrom('admin_tokens').select(TOKEN_VIEW).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  if (before === undefined) return undefined;
  await trx.updateTable('admin_tokens').set({ revoked_at: at }).where('id', '=', id).execute();
  return before;
}
