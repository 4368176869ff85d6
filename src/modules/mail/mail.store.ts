// Every SQL statement about the mail outbox.
import type { Insertable, Selectable } from 'kysely';
import type { Db, Engine, Trx } from '../../db/database.ts';
import type { MailOutboxTable } from '../../db/schema.ts';

export type Mail = Selectable<MailOutboxTable>;

/** Queues messages; one per event, kind and recipient (a unique index), so a relay run twice queues none twice. */
export async function insertMail(trx: Trx, messages: ReadonlyArray<Insertable<MailOutboxTable>>): Promise<void> {
  for (const m of messages) {
    await trx
      .insertInto('mail_outbox')
      .values(m)
      .onConflict((oc) => oc.columns(['event_id', 'kind', 'recipient']).where('event_id', 'is not', null).doNothing())
      .execute();
  }
}

/** Claims up to `limit` due messages until `leaseUntil` (as the webhook worker claims deliveries). */
export async function claimDueMail(db: Db, engine: Engine, now: string, leaseUntil: string, limit: number): Promise<Mail[]> {
  return db.transaction().execute(async (trx) => {
    let due = trx
      .selectFrom('mail_outbox')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('next_at')
      .limit(limit);
    if (engine === 'postgres') due = due.forUpdate().skipLocked();
    const ids = (await due.execute()).map((r) => r.id);
    if (ids.length === 0) return [];
    return trx.updateTable('mail_outbox').set({ claimed_until: leaseUntil }).where('id', 'in', ids).returningAll().execute();
  });
}

/** After a try: sent, due again at `next_at` with its error, or failed for good. */
export async function settleMail(db: Db, id: number, fields: { status: string; attempts: number; next_at?: string; sent_at?: string; last_error?: string | null }): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ ...fields, claimed_until: null })
    .where('id', '=', id)
    .execute();
}

/** The newest messages, newest first (operators: `almoner mail list`). */
export async function recentMail(db: Db, limit: number): Promise<Mail[]> {
  return db.selectFrom('mail_outbox').selectAll().orderBy('id', 'desc').limit(limit).execute();
}

export async function mailCounts(db: Db, now: string): Promise<{ pending: number; due: number; failed: number; sent: number }> {
  const rows = await db
    .selectFrom('mail_outbox')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const due = await db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .where('next_at', '<=', now)
    .executeTakeFirstOrThrow();
  const of = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { pending: of('pending'), due: Number(due.n), failed: of('failed'), sent: of('sent') };
}
