// The donations a payment run pays out, read and moved a thousand at a time (donations.payout.ts):
// a run of 100,000 grants is a hundred statements each way, not 100,000.
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';

/** Most ids one statement carries: within every engine's limit on bound values. */
const IDS_PER_STATEMENT = 1000;

/** The donations of `book` among `ids`, with what paying them out needs; an id of no such donation is absent. */
export async function donationsToPayOut(trx: Trx, book: Book, ids: readonly number[]) {
  const rows = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    rows.push(
      ...(await trx
        .selectFrom('donations')
        .select(['id', 'user_id', 'fund_id', 'amount_cents', 'status'])
        .where('book', '=', book)
        .where('id', 'in', ids.slice(i, i + IDS_PER_STATEMENT))
        .execute()),
    );
  }
  return rows;
}

/**
 * Moves those of `ids` still approved to `to` (completed by ACH, check_mailed by check), stamped
 * with `at` (completed_at or mailed_at as `to` says); how many moved. Neither state is hidden
 * from others, so no public count changes (donations.store.ts transition).
 */
export async function markPaidOut(trx: Trx, ids: readonly number[], to: 'completed' | 'check_mailed', at: string): Promise<number> {
  let moved = 0;
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    const stamped = to === 'completed' ? { status: to, updated_at: at, completed_at: at } : { status: to, updated_at: at, mailed_at: at };
    const result = await trx
      .updateTable('donations')
      .set(stamped)
      .where('id', 'in', ids.slice(i, i + IDS_PER_STATEMENT))
      .where('status', '=', 'approved')
      .executeTakeFirst();
    moved += Number(result.numUpdatedRows);
  }
  return moved;
}
