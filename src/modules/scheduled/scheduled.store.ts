// Every SQL statement about recurring donations.
import type { Insertable, Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { ScheduledDonationsTable } from '../../db/schema.ts';
import { newestOfUser } from '../../db/pages.ts';
import type { Book } from '../../shared/book.ts';
import type { PageRequest } from '../../shared/page.ts';

export type Schedule = Selectable<ScheduledDonationsTable>;

export async function insertSchedule(trx: Trx, schedule: Insertable<ScheduledDonationsTable>): Promise<Schedule> {
  return trx.insertInto('scheduled_donations').values(schedule).returningAll().executeTakeFirstOrThrow();
}

/** A page of a user's recurring donations, newest first, and how many they have. */
export function pageOfSchedules(db: Db, userId: number, page: PageRequest): Promise<{ rows: Schedule[]; count: number }> {
  return newestOfUser(db, 'scheduled_donations', userId, page);
}

/** A recurring donation by id in a book, or undefined. */
export async function findSchedule(db: Db, book: Book, id: number): Promise<Schedule | undefined> {
  return db.selectFrom('scheduled_donations').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

/** Stops an active recurring donation. */
export async function stopSchedule(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('scheduled_donations').set({ status: 'cancelled', updated_at: at }).where('id', '=', id).where('status', '=', 'active').execute();
}

/** Up to `limit` active recurring donations due on or before `asOf`, the earliest first (both books). */
export async function dueSchedules(db: Db, asOf: string, limit: number): Promise<Schedule[]> {
  return db.selectFrom('scheduled_donations').selectAll().where('status', '=', 'active').where('next_date', '<=', asOf).orderBy('next_date').orderBy('id').limit(limit).execute();
}

/**
 * Claims a recurring donation's next occurrence: a compare-and-set on its
 * occurrence count. False when another scheduler took it first.
 */
export async function claimOccurrence(trx: Trx, s: Pick<Schedule, 'id' | 'occurrences'>, next: { next_date: string; status: string }, at: string): Promise<boolean> {
  const claimed = await trx
    .updateTable('scheduled_donations')
    .set({ occurrences: s.occurrences + 1, ...next, updated_at: at })
    .where('id', '=', s.id)
    .where('occurrences', '=', s.occurrences)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** The owner's recurring donation with this external id (rules §21), if there is one. */
export async function scheduleByExternalId(db: Db | Trx, userId: number, externalId: string): Promise<number | undefined> {
  const row = await db.selectFrom('scheduled_donations').select('id').where('user_id', '=', userId).where('external_id', '=', externalId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/** Replaces a recurring donation's metadata (JSON text, or null for none). */
export async function setScheduleMetadata(db: Db | Trx, id: number, metadata: string | null, at: string): Promise<void> {
  await db.updateTable('scheduled_donations').set({ metadata, updated_at: at }).where('id', '=', id).execute();
}
