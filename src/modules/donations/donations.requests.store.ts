// The shared funds' requests (rules §20): a member's donation that waits for the holder's
// decision. Every SQL statement about them; the status is a literal, so that both engines read the
// partial indexes of requests (migration 068).
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';

/** A fund's requests made by one member. */
export async function requestsOf(db: Db | Trx, fundId: number, actorId: number): Promise<Array<{ id: number; user_id: number }>> {
  return db.selectFrom('donations').select(['id', 'user_id']).where('fund_id', '=', fundId).where('status', '=', sql.lit('requested')).where('actor_id', '=', actorId).execute();
}

/** The lapsed requests' query itself, the first to lapse first, so that a test can ask each engine how it reads it. */
export function lapsedRequestsQuery(db: Db | Trx, now: string, limit: number) {
  return db
    .selectFrom('donations')
    .select(['id', 'user_id', 'book'])
    .where('status', '=', sql.lit('requested'))
    .where('request_expires_at', '<=', now)
    .orderBy('request_expires_at')
    .orderBy('id')
    .limit(limit);
}

export async function lapsedRequests(db: Db | Trx, now: string, limit: number): Promise<Array<{ id: number; user_id: number; book: Book }>> {
  return lapsedRequestsQuery(db, now, limit).execute();
}

/** What a request's decision needs: its row as the fund's members see it. */
export async function requestRow(trx: Trx, id: number) {
  return trx
    .selectFrom('donations as d')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .select(['d.id', 'd.book', 'd.fund_id', 'd.user_id', 'd.actor_id', 'd.amount_cents', 'd.status', 'd.request_expires_at', 'n.name as non_profit_name'])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** A fund's requests waiting for a decision, oldest first, with who asked and for whom: the query itself, for a test of its plan. */
export function waitingRequestsOfFundQuery(db: Db, book: Book, fundId: number) {
  return db
    .selectFrom('donations as d')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .leftJoin('users as a', 'a.id', 'd.actor_id')
    .select(['d.id', 'd.amount_cents', 'd.note', 'd.created_at', 'd.request_expires_at', 'd.actor_id', 'n.name as non_profit', 'n.ein', 'a.name as requester'])
    .where('d.fund_id', '=', fundId)
    .where('d.status', '=', sql.lit('requested'))
    .where('d.book', '=', book)
    .orderBy('d.id')
    .limit(200);
}

export async function waitingRequestsOfFund(db: Db, book: Book, fundId: number) {
  return waitingRequestsOfFundQuery(db, book, fundId).execute();
}
