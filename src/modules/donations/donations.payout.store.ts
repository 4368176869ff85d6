// The donations a payment run pays out, read and moved in one statement each way
// (donations.payout.ts): the ids go as one JSON array, so a run of 100,000 grants is not a
// hundred statements of a thousand bound values, nor 100,000 of one.
import { sql, type RawBuilder } from 'kysely';
import type { Trx } from '../../db/database.ts';
import { idsIn } from '../../db/bulk.ts';
import type { Book } from '../../shared/book.ts';

const idsOf = (trx: Trx, ids: readonly number[]): RawBuilder<unknown> => idsIn(trx, ids, 'donation id');

/** The donations of `book` among `ids`, with what paying them out needs; an id of no such donation is absent. */
export async function donationsToPayOut(trx: Trx, book: Book, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return await trx
    .selectFrom('donations')
    .select(['id', 'user_id', 'fund_id', 'amount_cents', 'status'])
    .where('book', '=', book)
    .where(sql<boolean>`id in ${idsOf(trx, ids)}`)
    .execute();
}

/**
 * Moves those of `ids` still approved to `to` (completed by ACH, check_mailed by check), stamped
 * with `at` (completed_at or mailed_at as `to` says); how many moved. Neither state is hidden
 * from others, so no public count changes (donations.store.ts transition).
 */
export async function markPaidOut(trx: Trx, ids: readonly number[], to: 'completed' | 'check_mailed', at: string): Promise<number> {
  if (ids.length === 0) return 0;
  const stamped = to === 'completed' ? { status: to, updated_at: at, completed_at: at } : { status: to, updated_at: at, mailed_at: at };
  const result = await trx
    .updateTable('donations')
    .set(stamped)
    .where(sql<boolean>`id in ${idsOf(trx, ids)}`)
    .where('status', '=', 'approved')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
