// Every SQL statement about donations.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import type { Trx } from '../ledger/index.ts';

export interface DonationRecord {
  id: number;
  user_id: number;
  fund_id: number;
  amount_cents: number;
  status: string;
  note: string | null;
  visibility: string;
  scheduled_donation_id: number | null;
  created_at: string;
  mailed_at: string | null;
  fund_name: string;
  user_name: string;
  user_city: string;
  user_avatar_url: string | null;
  user_slug: string;
  np_ein: string;
  np_name: string;
  np_website: string | null;
  np_city: string;
  np_state: string;
  np_cause_id: number;
  np_slug: string;
}

function selectDonations(db: Db | Trx) {
  return db.selectFrom('donations as d')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .innerJoin('funds as f', 'f.id', 'd.fund_id')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .select([
      'd.id', 'd.user_id', 'd.fund_id', 'd.amount_cents', 'd.status', 'd.note', 'd.visibility', 'd.scheduled_donation_id',
      'd.created_at', 'd.mailed_at', 'f.name as fund_name', 'u.name as user_name', 'u.city as user_city',
      'u.avatar_url as user_avatar_url', 'u.slug as user_slug', 'n.ein as np_ein', 'n.name as np_name',
      'n.website as np_website', 'n.city as np_city', 'n.state as np_state', 'n.cause_id as np_cause_id', 'n.slug as np_slug',
    ]);
}

export async function findDonation(db: Db | Trx, id: number): Promise<DonationRecord | undefined> {
  return selectDonations(db).where('d.id', '=', id).executeTakeFirst();
}

/** A user's donations, newest first; `publicOnly` for other viewers. */
export async function listByUser(db: Db, userId: number, publicOnly: boolean, page: PageRequest): Promise<{ rows: DonationRecord[]; count: number }> {
  let rowsQuery = selectDonations(db).where('d.user_id', '=', userId);
  if (publicOnly) rowsQuery = rowsQuery.where('d.visibility', '=', 'public');
  const [counts, rows] = await Promise.all([
    db.selectFrom('donation_counts').select(['total', 'public_total']).where('user_id', '=', userId).executeTakeFirst(),
    rowsQuery.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  return { rows, count: counts === undefined ? 0 : publicOnly ? counts.public_total : counts.total };
}

export async function insertDonation(trx: Trx, donation: {
  user_id: number; fund_id: number; non_profit_id: number; amount_cents: number; status: string; note: string | null;
  private_memo: string | null; visibility: string; scheduled_donation_id: number | null; created_at: string;
}): Promise<number> {
  const row = await trx.insertInto('donations').values({ ...donation, updated_at: donation.created_at }).returning('id').executeTakeFirstOrThrow();
  const isPublic = donation.visibility === 'public' ? 1 : 0;
  // The list's meta.count; `almoner check` recounts it.
  await trx.insertInto('donation_counts').values({ user_id: donation.user_id, total: 1, public_total: isPublic })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ total: sql`donation_counts.total + 1`, public_total: sql`donation_counts.public_total + ${isPublic}` }))
    .execute();
  return row.id;
}

/** Reads a donation's status for a state change; locks the row on PostgreSQL. */
export async function lockDonation(trx: Trx, forUpdate: boolean, id: number) {
  let q = trx.selectFrom('donations').select(['id', 'user_id', 'fund_id', 'amount_cents', 'status']).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Moves a donation from `from` to `to`; false when it was no longer in `from`. */
export async function transition(trx: Trx, id: number, from: string, to: string, at: string, extra: { cancelled_at?: string; mailed_at?: string } = {}): Promise<boolean> {
  const result = await trx.updateTable('donations').set({ status: to, updated_at: at, ...extra })
    .where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function waitingForFund(trx: Trx, fundId: number) {
  return trx.selectFrom('donations').select(['id', 'user_id', 'amount_cents'])
    .where('fund_id', '=', fundId).where('status', '=', 'waiting_for_funds')
    .orderBy('id').execute();
}
