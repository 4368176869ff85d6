// Every SQL statement of matching that donations make (rules §22): a fundraiser's matches that
// are still on, what one has matched, and whether a donation was matched or made by a match.
import type { Db, Trx } from '../../db/database.ts';

export interface LiveMatch {
  id: number;
  user_id: number;
  fund_id: number;
  ratio: number;
  cap_cents: number;
  per_donation_cap_cents: number | null;
  matched_cents: number;
}

/** A fundraiser's matches not ended, oldest first (the order they match in). */
export async function liveMatchesOf(db: Db | Trx, fundraiserId: number): Promise<LiveMatch[]> {
  const rows = await db
    .selectFrom('matches')
    .select(['id', 'user_id', 'fund_id', 'ratio', 'cap_cents', 'per_donation_cap_cents', 'matched_cents'])
    .where('fundraiser_id', '=', fundraiserId)
    .where('ended_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    user_id: Number(r.user_id),
    fund_id: Number(r.fund_id),
    cap_cents: Number(r.cap_cents),
    matched_cents: Number(r.matched_cents),
    per_donation_cap_cents: r.per_donation_cap_cents === null ? null : Number(r.per_donation_cap_cents),
  }));
}

/** Adds `cents` to what a match has matched (its matcher's fund locked by the caller). */
export async function addMatched(trx: Trx, matchId: number, cents: number, at: string): Promise<void> {
  await trx
    .updateTable('matches')
    .set((eb) => ({ matched_cents: eb('matched_cents', '+', cents), updated_at: at }))
    .where('id', '=', matchId)
    .execute();
}

/** Whether a donation was matched, or was made by a match: either way it is no longer its owner's to withdraw. */
export async function isMatchBound(db: Db | Trx, donationId: number): Promise<boolean> {
  const row = await db
    .selectFrom('donations')
    .select('id')
    .where((eb) => eb.or([eb('matched_donation_id', '=', donationId), eb.and([eb('id', '=', donationId), eb('match_id', 'is not', null)])]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends a match not ended; whether it was (false: it had ended). */
export async function endMatch(trx: Trx, matchId: number, at: string): Promise<boolean> {
  const done = await trx.updateTable('matches').set({ ended_at: at, updated_at: at }).where('id', '=', matchId).where('ended_at', 'is', null).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}
