// Every SQL statement about gifts.
import { dialectOf } from '../../db/dialect.ts';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { GiftsTable } from '../../db/schema.ts';
import type { Book } from '../../shared/book.ts';
import { newestOfUser } from '../../db/pages.ts';
import type { PageRequest } from '../../shared/page.ts';

export type Gift = Selectable<GiftsTable>;

/** Inserts a gift; returns its id. */
export async function insertGift(trx: Trx, gift: Insertable<GiftsTable>): Promise<number> {
  const row = await trx.insertInto('gifts').values(gift).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The giver's gift with this external id (rules §21): its code, if there is one. */
export async function giftByExternalId(db: Db | Trx, userId: number, externalId: string): Promise<string | undefined> {
  const row = await db.selectFrom('gifts').select('code').where('user_id', '=', userId).where('external_id', '=', externalId).executeTakeFirst();
  return row?.code;
}

/** Replaces a gift's metadata (JSON text, or null for none). */
export async function setGiftMetadata(db: Db | Trx, id: number, metadata: string | null, at: string): Promise<void> {
  await db.updateTable('gifts').set({ metadata, updated_at: at }).where('id', '=', id).execute();
}

/** A gift by its code (any case) in a book, or undefined. */
export async function findGiftByCode(db: Db | Trx, book: Book, code: string): Promise<Gift | undefined> {
  return db.selectFrom('gifts').selectAll().where('code', '=', code.toLowerCase()).where('book', '=', book).executeTakeFirst();
}

/** A gift by its code in a book, with its giver's name, or undefined. */
export async function findGiftWithGiver(db: Db | Trx, book: Book, code: string): Promise<(Gift & { giver_name: string }) | undefined> {
  return db
    .selectFrom('gifts as g')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .selectAll('g')
    .select('u.name as giver_name')
    .where('g.code', '=', code.toLowerCase())
    .where('g.book', '=', book)
    .executeTakeFirst();
}

/** A gift by id in a book, with its giver's name, or undefined (what a notification about it says). */
export async function findGiftByIdWithGiver(db: Db | Trx, book: Book, id: number): Promise<(Gift & { giver_name: string }) | undefined> {
  return db
    .selectFrom('gifts as g')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .selectAll('g')
    .select('u.name as giver_name')
    .where('g.id', '=', id)
    .where('g.book', '=', book)
    .executeTakeFirst();
}

/** A page of a user's gifts, newest first, and how many they have. */
export function pageOfGifts(db: Db, userId: number, page: PageRequest): Promise<{ rows: Gift[]; count: number }> {
  return newestOfUser(db, 'gifts', userId, page);
}

/** Sets `seen` on a gift not seen yet; true if this call set it. */
export async function markGiftSeen(trx: Trx, giftId: number): Promise<boolean> {
  const updated = await trx.updateTable('gifts').set({ seen: 1 }).where('id', '=', giftId).where('seen', '=', 0).executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Reads a gift by id, locked for update on PostgreSQL (SQLite's write transaction already excludes others). */
export async function lockGift(trx: Trx, giftId: number): Promise<Gift> {
  return dialectOf(trx)
    .lockRows(trx.selectFrom('gifts').selectAll().where('id', '=', giftId))
    .executeTakeFirstOrThrow();
}

export interface GiftEnd {
  status: string;
  claimed: number;
  recipient_user_id: number | null;
  ein?: string;
  donation_id?: number;
}

/** Moves a gift that is still `new` to its end; true if it was still new. */
export async function endGift(trx: Trx, giftId: number, end: GiftEnd, at: string): Promise<boolean> {
  const updated = await trx
    .updateTable('gifts')
    .set({ ...end, seen: 1, updated_at: at })
    .where('id', '=', giftId)
    .where('status', '=', 'new')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A gift waiting at an address: what its recipient's dashboard shows of it. */
export interface WaitingGift {
  code: string;
  name: string;
  amount_cents: number;
  message: string | null;
  giver_name: string;
  created_at: string;
}

/**
 * The open (`new`) gifts of a book sent to the e-mail of account `personId` (in any case), once
 * that address is confirmed, but those its own fund sent; oldest first, at most `limit`.
 */
export async function giftsWaitingAt(db: Db, book: Book, personId: number, ownFundId: number, limit: number): Promise<WaitingGift[]> {
  return (
    db
      .selectFrom('accounts as a')
      .innerJoin('gifts as g', (join) => join.on(sql`lower(g.email)`, '=', sql.ref('a.email')))
      .innerJoin('users as u', 'u.id', 'g.user_id')
      .select(['g.code', 'g.name', 'g.amount_cents', 'g.message', 'u.name as giver_name', 'g.created_at'])
      .where('a.user_id', '=', personId)
      // Only once the address is proven (rules §15): an account opened with someone else's address sees nothing.
      .where('a.email_confirmed_at', 'is not', null)
      .where('g.status', '=', 'new')
      .where('g.book', '=', book)
      .where('g.fund_id', '!=', ownFundId)
      .orderBy('g.created_at')
      .orderBy('g.id')
      .limit(limit)
      .execute()
  );
}
