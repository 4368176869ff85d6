// Donations a match makes (docs/rules.md §22). A matcher's cap is held from their fund when they
// pledge (fundraisers module); each donation to the fundraiser whose money is held at once is
// matched in its own transaction: every live match of another fund, oldest first, gives `ratio`
// times it (at most its per-donation cap and what is left of its cap) as the matcher's donation to
// the same organisation, releasing that much of its hold and holding it again for the donation.
// So a match never goes down while people give, and never past its cap.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import { AppError } from '../../shared/errors.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { centsToDollars } from '../../shared/money.ts';
import { lockFundsAccounts, postEntry, type FundAccounts } from '../ledger/index.ts';
import { findRecipients } from '../nonprofits/index.ts';
import { recordEvent } from '../events/index.ts';
import { recordOutcome } from '../idempotency/index.ts';
import { reserveIds } from '../../db/ids.ts';
import { insertHeld, insertHeldOfFunds, type HeldDonation } from './donations.held.ts';
import type { Made, Submitted } from './donations.writer.ts';
import * as store from './donations.matches.store.ts';

export type { LiveMatch } from './donations.matches.store.ts';
export { liveMatchesOf } from './donations.matches.store.ts';

/** What a match gives for a donation of `cents`: `ratio` times it, at most its per-donation cap and what is left of its cap. */
export function matchFor(m: store.LiveMatch, cents: number): number {
  const want = m.ratio * cents;
  const given = Math.max(0, Math.min(want, m.per_donation_cap_cents ?? want, m.cap_cents - m.matched_cents));
  assertSafeInteger(given, 'a match');
  return given;
}

/**
 * Writes a donation to a fundraiser that has live matches, and their donations, in one
 * transaction: the giver's fund and every matcher's locked in ascending order (as every writer
 * takes them), the matches read again under those locks.
 */
export async function submitToMatchedFundraiser(deps: Deps, { ein, donation, claim }: Submitted, fundraiserId: number): Promise<Made> {
  const made = await deps.db.transaction().execute(async (trx) => {
    const nonProfit = (await findRecipients(trx, [ein])).get(ein);
    assert(nonProfit !== undefined, 'findRecipients answers every EIN asked');
    if (nonProfit instanceof AppError) throw nonProfit;
    const { id, status, created_at } = await giveMatchedIn(deps, trx, { ...donation, non_profit_id: nonProfit.id }, fundraiserId);
    await recordOutcome(trx, claim, `donation:${id}`);
    return { id, status, created_at, nonProfit };
  });
  deps.metrics.counters.donationCreated(donation.book, donation.amount_cents);
  return made;
}

/**
 * Writes a donation to a fundraiser in `trx` and, when its money is held at once, every live
 * match's donation for it (the giver's fund and the matchers' locked in ascending order, the
 * matches read again under those locks). A recurring donation's first payment comes this way.
 */
export async function giveMatchedIn(deps: Deps, trx: Trx, donation: HeldDonation, fundraiserId: number) {
  const seen = await store.liveMatchesOf(trx, fundraiserId);
  const funds = await lockFundsAccounts(trx, [donation.fund_id, ...seen.map((m) => m.fund_id)]);
  // Matches made since the first read have funds not locked here: they match the next donation.
  const matches = (await store.liveMatchesOf(trx, fundraiserId)).filter((m) => funds.has(m.fund_id) && m.fund_id !== donation.fund_id);
  const accounts = funds.get(donation.fund_id);
  assert(accounts !== undefined, "the giver's fund is locked");
  const [id] = await reserveIds(trx, 'donations', 1);
  assert(id !== undefined, 'an id was reserved');
  const [row] = await insertHeld(deps, trx, accounts, [{ ...donation, fundraiser_id: fundraiserId, id }]);
  assert(row !== undefined, 'the donation was written');
  if (row.status === 'scheduled')
    await matchDonation(
      deps,
      trx,
      funds,
      matches,
      { id, book: donation.book, amount_cents: donation.amount_cents, non_profit_id: donation.non_profit_id, fundraiser_id: fundraiserId },
      row.created_at,
    );
  return { id, status: row.status, created_at: row.created_at };
}

/** Each match's donation for a donation just held (`funds`: the matches' funds, locked). */
async function matchDonation(
  deps: Deps,
  trx: Trx,
  funds: ReadonlyMap<number, FundAccounts>,
  matches: readonly store.LiveMatch[],
  matched: { id: number; book: FundAccounts['book']; amount_cents: number; non_profit_id: number; fundraiser_id: number },
  at: string,
): Promise<void> {
  for (const m of matches) {
    const cents = matchFor(m, matched.amount_cents);
    if (cents === 0) continue;
    const accounts = funds.get(m.fund_id);
    assert(accounts !== undefined, "a match's fund is locked");
    await postEntry(
      trx,
      { book: matched.book, memo: 'match: hold released for its donation', match_id: m.id },
      [{ from_account_id: accounts.ids.reserved, to_account_id: accounts.ids.available, amount_cents: cents }],
      at,
    );
    const [id] = await reserveIds(trx, 'donations', 1);
    assert(id !== undefined, 'an id was reserved');
    // The money just released covers it exactly: it is held at once.
    const known = new Map([[m.fund_id, { fund_id: m.fund_id, ids: accounts.ids, available_cents: cents }]]);
    const [row] = await insertHeldOfFunds(deps, trx, known, [{ ...matchRow(m, matched, cents), id }]);
    assert(row?.status === 'scheduled', "a match's donation is held from its released money");
    await store.addMatched(trx, m.id, cents, at);
    await recordEvent(trx, { user_id: m.user_id, type: 'match.updated', object_type: 'match', object_id: m.id, data: { matched: centsToDollars(cents), donation_id: id }, at });
  }
}

/** The matcher's donation for `matched`: public, named to the charity, made by the match. */
export function matchRow(m: store.LiveMatch, matched: { id: number | null; book: FundAccounts['book']; non_profit_id: number; fundraiser_id: number }, cents: number) {
  return {
    book: matched.book,
    user_id: m.user_id,
    fund_id: m.fund_id,
    non_profit_id: matched.non_profit_id,
    amount_cents: cents,
    note: null,
    private_memo: null,
    visibility: 'public',
    scheduled_donation_id: null,
    app_connection_id: null,
    actor_id: null,
    fundraiser_id: matched.fundraiser_id,
    match_id: m.id,
    matched_donation_id: matched.id,
  };
}

/** A donation matched, or made by a match, is no longer its owner's to withdraw: 409 donation_matched. */
export async function refuseIfMatchBound(trx: Trx, donationId: number): Promise<void> {
  if (await store.isMatchBound(trx, donationId))
    throw new AppError('conflict', 'donation_matched', 'this donation was matched (or made by a match) for a fundraiser: it is given, and can no longer be cancelled');
}

/**
 * Ends a live match (its fund's accounts locked in `trx`): what is left of its cap is given as
 * the matcher's donation when they chose so and the fundraiser's organisation still receives
 * (`nonProfitId`), else released to their available money (waiting donations move along).
 * Returns what was given and what was released.
 */
export async function endMatchIn(
  deps: Deps,
  trx: Trx,
  m: store.LiveMatch & { give_rest: number; fundraiser_id: number; book: FundAccounts['book'] },
  accounts: FundAccounts,
  nonProfitId: number | undefined,
  at: string,
): Promise<{ given: number; released: number }> {
  const left = m.cap_cents - m.matched_cents;
  assert(left >= 0, 'a match never passes its cap');
  if (!(await store.endMatch(trx, m.id, at))) return { given: 0, released: 0 };
  if (left > 0)
    await postEntry(
      trx,
      { book: m.book, memo: 'match ended: hold released', match_id: m.id },
      [{ from_account_id: accounts.ids.reserved, to_account_id: accounts.ids.available, amount_cents: left }],
      at,
    );
  const give = m.give_rest === 1 && nonProfitId !== undefined && left > 0;
  if (give) {
    const [id] = await reserveIds(trx, 'donations', 1);
    assert(id !== undefined, 'an id was reserved');
    const known = new Map([[m.fund_id, { fund_id: m.fund_id, ids: accounts.ids, available_cents: left }]]);
    const [row] = await insertHeldOfFunds(deps, trx, known, [{ ...matchRow(m, { id: null, book: m.book, non_profit_id: nonProfitId, fundraiser_id: m.fundraiser_id }, left), id }]);
    assert(row?.status === 'scheduled', 'the rest is held from its released money');
  }
  const outcome = { given: give ? left : 0, released: give ? 0 : left };
  await recordEvent(trx, {
    user_id: m.user_id,
    type: 'match.updated',
    object_type: 'match',
    object_id: m.id,
    data: { status: 'ended', given: centsToDollars(outcome.given), released: centsToDollars(outcome.released) },
    at,
  });
  return outcome;
}
