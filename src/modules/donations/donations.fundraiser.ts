// Donations given to a fundraiser (docs/rules.md §22): a donation names a fundraiser of its own
// book that is open on the day it is made and raises for the organisation it is given to. What a
// fundraiser raised, and who its supporters are, is read from its donations here.
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import type { Db, Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { authorize } from '../../shared/policy.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import * as store from './donations.fundraiser.store.ts';
import { cardsFor, ownListForm } from './donations.view.ts';

export { fundraiserTotals } from './donations.fundraiser.store.ts';

export type FundraiserStatus = 'upcoming' | 'open' | 'ended';

/** Where a fundraiser stands on `today` (YYYY-MM-DD): open from its first day to its last, inclusive, unless ended. */
export function fundraiserStatusOn(f: { starts_on: string; ends_on: string | null; ended_at: string | null }, today: string): FundraiserStatus {
  if (f.ended_at !== null || (f.ends_on !== null && today > f.ends_on)) return 'ended';
  return today < f.starts_on ? 'upcoming' : 'open';
}

/**
 * The fundraiser a new donation to `ein` names, checked: of the caller's book (else 404
 * fundraiser_not_found), open today (409 fundraiser_not_open) and for that organisation (422
 * fundraiser_other_organisation).
 */
export async function checkFundraiserOfDonation(deps: Deps, caller: Caller, fundraiserId: number, ein: string): Promise<number> {
  const f = await store.fundraiserToGive(deps.db, caller.book, fundraiserId);
  if (f === undefined) throw notFound('fundraiser_not_found', `no fundraiser ${fundraiserId}`);
  if (fundraiserStatusOn(f, dayOf(deps.clock.now())) !== 'open')
    throw new AppError('conflict', 'fundraiser_not_open', `fundraiser ${fundraiserId} is not open to donations (it has not started, or it has ended)`);
  if (f.ein !== ein) throw new AppError('unprocessable', 'fundraiser_other_organisation', `fundraiser ${fundraiserId} raises for EIN ${f.ein}, not ${ein}`);
  return f.id;
}

/** The fundraiser a recurring donation names, when it is open on `day` (its payment's date) for the organisation `nonProfitId`: else undefined. */
export async function fundraiserOpenOn(db: Db | Trx, book: Book, fundraiserId: number, nonProfitId: number, day: string): Promise<number | undefined> {
  const f = await store.fundraiserToGive(db, book, fundraiserId);
  return f !== undefined && f.non_profit_id === nonProfitId && fundraiserStatusOn(f, day) === 'open' ? f.id : undefined;
}

/** A page of the caller's own donations to one fundraiser (GET /v1/donations?fundraiser_id=). */
export async function ownDonationsOfFundraiser(deps: Deps, caller: Caller, fundraiserId: number, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count } = await store.ownDonationsOfFundraiser(deps.db, caller.book, caller.user_id, fundraiserId, page);
  const cards = await cardsFor(deps, rows);
  return toPage(
    rows.map((r) => ownListForm(deps, cards, r)),
    count,
    page,
  );
}

/** Who gave to a fundraiser, newest first: a name only where the donation is public, its donor's profile visible and the charity may know it. */
export async function fundraiserSupporters(deps: Deps, fundraiserId: number, statuses: readonly string[], limit: number) {
  const rows = await store.fundraiserSupporters(deps.db, fundraiserId, statuses, limit);
  return rows.map((r) => ({ name: r.visibility === 'public' && r.visible === 1 && r.share !== 'anonymous' ? r.name : null, created_at: r.created_at }));
}
