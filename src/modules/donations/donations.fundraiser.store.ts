// Every SQL statement about donations given to fundraisers (rules §22).
import type { Db, Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import { findDonations, type DonationRecord } from './donations.store.ts';

/** A fundraiser of `book` as a donation to it needs it: its recipient's EIN and its days, or undefined. */
export async function fundraiserToGive(db: Db | Trx, book: Book, id: number) {
  return db
    .selectFrom('fundraisers as f')
    .innerJoin('non_profits as n', 'n.id', 'f.non_profit_id')
    .select(['f.id', 'f.user_id', 'f.non_profit_id', 'n.ein', 'f.starts_on', 'f.ends_on', 'f.ended_at'])
    .where('f.id', '=', id)
    .where('f.book', '=', book)
    .executeTakeFirst();
}

/** Each fundraiser's donations in `statuses`: their sum and number (fundraisers without any are absent). */
export async function fundraiserTotals(db: Db | Trx, ids: readonly number[], statuses: readonly string[]): Promise<Map<number, { cents: number; donations: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('donations')
    .select((eb) => ['fundraiser_id', eb.fn.sum<string | number>('amount_cents').as('cents'), eb.fn.countAll<string | number>().as('donations')])
    .where('fundraiser_id', 'in', [...ids])
    .where('status', 'in', [...statuses])
    .groupBy('fundraiser_id')
    .execute();
  return new Map(rows.map((r) => [Number(r.fundraiser_id), { cents: Number(r.cents), donations: Number(r.donations) }]));
}

/** A fundraiser's newest donations in `statuses`, with what its donor lets others see: their name, or nothing. */
export async function fundraiserSupporters(db: Db, fundraiserId: number, statuses: readonly string[], limit: number) {
  return db
    .selectFrom('donations as d')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .select(['d.id', 'd.created_at', 'd.visibility', 'd.share', 'u.name', 'u.visible'])
    .where('d.fundraiser_id', '=', fundraiserId)
    .where('d.status', 'in', [...statuses])
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** A page of a user's donations to one fundraiser, newest first, with their count. */
export async function ownDonationsOfFundraiser(db: Db, book: Book, userId: number, fundraiserId: number, page: PageRequest): Promise<{ rows: DonationRecord[]; count: number }> {
  const mine = db.selectFrom('donations').where('user_id', '=', userId).where('fundraiser_id', '=', fundraiserId);
  const [counted, ids] = await Promise.all([
    mine.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
    mine.select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  const byId = new Map(
    (
      await findDonations(
        db,
        book,
        ids.map((r) => r.id),
      )
    ).map((r) => [r.id, r]),
  );
  return { rows: ids.flatMap((r) => byId.get(r.id) ?? []), count: Number(counted.n) };
}
