// What the two outboxes (webhook deliveries, mail) share: claiming due rows
// under a lease, and counting them by status.
import { dialectOf } from './dialect.ts';
import type { Db } from './database.ts';

export type OutboxTable = 'webhook_deliveries' | 'mail_outbox';

/**
 * Claims up to `limit` due rows of `table` until `leaseUntil`, in one transaction: marked claimed,
 * so that no other worker (another node, or this one) takes them while they are being sent; a
 * worker that dies leaves them to be claimed again when the lease ends (at least once).
 * PostgreSQL skips rows another worker has locked; SQLite's single writer serialises the claim.
 * Returns the claimed rows' ids.
 */
export async function claimDue(db: Db, table: OutboxTable, now: string, leaseUntil: string, limit: number): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    // Every condition sits on the locked table itself, so PostgreSQL asks it again of a row
    // another worker claimed after this statement began (a claim in a subquery would not be).
    const due = trx
      .selectFrom(table as 'mail_outbox')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('next_at')
      .limit(limit);
    const ids = (await dialectOf(trx).claimRows(due).execute()).map((r) => r.id);
    if (ids.length > 0)
      await trx
        .updateTable(table as 'mail_outbox')
        .set({ claimed_until: leaseUntil })
        .where('id', 'in', ids)
        .execute();
    return ids;
  });
}

/** Rows of `table` by status, and how many pending ones are due at `now`. */
export async function countByStatus(db: Db, table: OutboxTable, now: string): Promise<{ byStatus: Map<string, number>; due: number }> {
  const rows = await db
    .selectFrom(table as 'mail_outbox')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const due = await db
    .selectFrom(table as 'mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .where('next_at', '<=', now)
    .executeTakeFirstOrThrow();
  return { byStatus: new Map(rows.map((r) => [r.status, Number(r.n)])), due: Number(due.n) };
}
