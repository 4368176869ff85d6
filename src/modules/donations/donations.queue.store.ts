// SQL of the operator's queue (rules §7): the donations of a book in one status, oldest first,
// with what deciding them needs (the donor, the organisation and its screening).
import type { Db } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import type { DonationStatus } from './donations.ts';

export async function donationsInStatus(db: Db, book: Book, status: DonationStatus, limit: number, afterId = 0) {
  return await db
    .selectFrom('donations as d')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .select(['d.id', 'd.created_at', 'd.amount_cents', 'd.status', 'd.user_id', 'u.name as donor', 'n.ein', 'n.name as non_profit', 'n.diligence'])
    .where('d.book', '=', book)
    .where('d.status', '=', status)
    .where('d.id', '>', afterId)
    .orderBy('d.id')
    .limit(limit)
    .execute();
}
