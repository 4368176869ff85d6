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
 * Up to `limit` events created before `before` and already relayed, oldest first, with their
 * settled webhook deliveries (and those deliveries' attempts) and sent or failed mail; returns how
 * many events. An event whose delivery or mail is still pending stays until it is settled.
 * A batch at a time: a large backlog never holds one long transaction.
 */
export async function deleteEvents(db: Db, before: string, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const pending = (table: 'webhook_deliveries' | 'mail_outbox') => trx.selectFrom(table).select('event_id').where('status', '=', 'pending').where('event_id', 'is not', null);
    const ids = (
      await trx
        .selectFrom('events')
        .select('id')
        .where('created_at', '<', before)
        .where('relayed_at', 'is not', null)
        .where('id', 'not in', pending('webhook_deliveries'))
        .where('id', 'not in', pending('mail_outbox'))
        .orderBy('id')
        .limit(limit)
        .execute()
    ).map((r) => r.id);
    if (ids.length === 0) return 0;
    const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', ids);
    await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    await trx.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).execute();
    await trx.deleteFrom('mail_outbox').where('event_id', 'in', ids).execute();
    return Number((await trx.deleteFrom('events').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
  });
}
