// Every SQL statement about operator tokens.
import type { Db, Trx } from '../../db/database.ts';

export async function insertAdminToken(db: Db | Trx, token: { name: string; token_hash: string; last4: string; created_at: string }): Promise<number> {
  const row = await db.insertInto('admin_tokens').values(token).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The live (not revoked) operator token with this hash, or undefined. */
export async function findAdminToken(db: Db, tokenHash: string): Promise<{ id: number; name: string } | undefined> {
  return db.selectFrom('admin_tokens').select(['id', 'name']).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).executeTakeFirst();
}
