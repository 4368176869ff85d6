// Every SQL statement about the mail outbox.
import type { Insertable, Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { MailOutboxTable } from '../../db/schema.ts';
import { claimDue, countByStatus } from '../../db/outbox.ts';

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
export async function claimDueMail(db: Db, now: string, leaseUntil: string, limit: number): Promise<Mail[]> {
  const ids = await claimDue(db, 'mail_outbox', now, leaseUntil, limit);
  if (ids.length === 0) return [];
  return db.selectFrom('mail_outbox').selectAll().where('id', 'in', ids).orderBy('next_at').execute();
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
  const { byStatus, due } = await countByStatus(db, 'mail_outbox', now);
  return { pending: byStatus.get('pending') ?? 0, due, failed: byStatus.get('failed') ?? 0, sent: byStatus.get('sent') ?? 0 };
}

/** The address a server recorded as it started listening (platform_settings), if any has. */
export async function recordedPublicUrl(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('platform_settings').select('value').where('name', '=', 'public_url').executeTakeFirst();
  return row?.value;
}

/** Records the address this server is reached at, for the CLI's mail to link to. */
export async function recordPublicUrl(db: Db, url: string, at: string): Promise<void> {
  await db
    .insertInto('platform_settings')
    .values({ name: 'public_url', value: url, updated_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: url, updated_at: at }))
    .execute();
}
