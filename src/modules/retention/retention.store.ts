// Every SQL statement of retention: deleting the records whose use has
// passed. Nothing here touches money, the journal or the audit log.
import type { Db } from '../../db/database.ts';

/** Idempotency-Key records created before `before` (past their TTL: they protect nothing). Returns how many. */
export async function deleteIdempotencyKeys(db: Db, before: string): Promise<number> {
  return Number((await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst()).numDeletedRows);
}

/** Web sessions that expired before `before`. Returns how many. */
export async function deleteExpiredSessions(db: Db, before: string): Promise<number> {
  return Number((await db.deleteFrom('web_sessions').where('expires_at', '<', before).executeTakeFirst()).numDeletedRows);
}

/** Failed sign-ins recorded before `before` (long past the throttle's window). Returns how many. */
export async function deleteSignInFailures(db: Db, before: string): Promise<number> {
  return Number((await db.deleteFrom('sign_in_failures').where('at', '<', before).executeTakeFirst()).numDeletedRows);
}

/**
 * Up to `limit` events created before `before`, oldest first; returns how many.
 * A batch at a time: a large backlog never holds one long transaction.
 */
export async function deleteEvents(db: Db, before: string, limit: number): Promise<number> {
  const ids = (await db.selectFrom('events').select('id').where('created_at', '<', before).orderBy('id').limit(limit).execute()).map((r) => r.id);
  if (ids.length === 0) return 0;
  return Number((await db.deleteFrom('events').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
}
