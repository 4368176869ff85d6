// The SQL that reads a donor's donations out whole: the CSV export and the
// grants paid in a period (donations.exports.ts).
import type { Db } from '../../db/database.ts';
import { dayAfter, type RowFilters } from '../../shared/page.ts';
import type { Book } from '../../shared/book.ts';

/** A user's donations matching `f` with their organisation, newest first, up to `limit` older than id `beforeId` (exports). */
export async function donationsForExport(db: Db, userId: number, f: RowFilters, beforeId: number | undefined, limit: number) {
  let q = db
    .selectFrom('donations as d')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .leftJoin('users as a', 'a.id', 'd.actor_id')
    .select([
      'd.id',
      'd.created_at',
      'd.status',
      'd.amount_cents',
      'n.ein',
      'n.name as non_profit',
      'd.note',
      'd.private_memo',
      'd.visibility',
      'd.scheduled_donation_id',
      'a.name as made_by',
      'd.external_id',
      'd.metadata',
    ])
    .where('d.user_id', '=', userId);
  if (beforeId !== undefined) q = q.where('d.id', '<', beforeId);
  if (f.from !== undefined) q = q.where('d.created_at', '>=', `${f.from}T00:00:00.000Z`);
  if (f.to !== undefined) q = q.where('d.created_at', '<', dayAfter(f.to));
  if (f.status !== undefined) q = q.where('d.status', '=', f.status);
  return q.orderBy('d.id', 'desc').limit(limit).execute();
}

/** A user's grants paid in [from, to) (completed, or check mailed), oldest first, with their organisation. */
export async function grantsPaidBetween(db: Db, book: Book, userId: number, from: string, to: string) {
  return db
    .selectFrom('donations as d')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .select(['d.id', 'd.status', 'd.amount_cents', 'd.mailed_at', 'd.completed_at', 'n.ein', 'n.name as non_profit'])
    .where('d.user_id', '=', userId)
    .where('d.book', '=', book)
    .where('d.status', 'in', ['completed', 'check_mailed'])
    .where((eb) =>
      eb.or([
        eb.and([eb('d.mailed_at', '>=', from), eb('d.mailed_at', '<', to)]),
        eb.and([eb('d.mailed_at', 'is', null), eb('d.completed_at', '>=', from), eb('d.completed_at', '<', to)]),
      ]),
    )
    .orderBy('d.id')
    .execute();
}
