// Use cases of matching (docs/rules.md §22): a donor pledges to match a fundraiser's donations at a
// ratio up to a cap, held from their fund at once; they end it, or it ends with its fundraiser,
// when what is left is given or goes back. The donations a match makes are the donations module's.
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Caller } from '../../shared/caller.ts';
import { conflict, fieldErrors, notFound, unprocessable } from '../../shared/errors.ts';
import { authorize } from '../../shared/policy.ts';
import { centsToDollars } from '../../shared/money.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import { AppError } from '../../shared/errors.ts';
import { lockFundAccounts, lockFundsAccounts, postEntry } from '../ledger/index.ts';
import { recordEvent } from '../events/index.ts';
import { recordAudit } from '../audit/index.ts';
import { spendingAsApp } from '../apps/index.ts';
import { findRecipients } from '../nonprofits/index.ts';
import { endMatchIn, promoteWaiting } from '../donations/index.ts';
import { statusOn } from './fundraisers.ts';
import * as fundraisers from './fundraisers.store.ts';
import * as store from './matches.store.ts';

export interface NewMatch {
  ratio: number;
  cap_cents: number;
  per_donation_cap_cents?: number;
  give_rest?: boolean;
}

function today(deps: Deps): string {
  return dayOf(deps.clock.now());
}

/** A match as its matcher sees it. */
export function matchForm(m: store.Match) {
  return {
    id: m.id,
    fundraiser_id: m.fundraiser_id,
    ratio: m.ratio,
    cap: centsToDollars(m.cap_cents),
    per_donation_cap: m.per_donation_cap_cents === null ? null : centsToDollars(m.per_donation_cap_cents),
    give_rest: m.give_rest === 1,
    matched: centsToDollars(m.matched_cents),
    remaining: m.ended_at === null ? centsToDollars(m.cap_cents - m.matched_cents) : 0,
    status: m.ended_at === null ? ('live' as const) : ('ended' as const),
    created_at: m.created_at,
    ended_at: m.ended_at,
  };
}

/**
 * Pledges to match a fundraiser of the caller's book that has not ended, from the fund the caller
 * acts on: its cap moves from available to held at once. Throws fundraiser_not_found,
 * fundraiser_not_open, insufficient_funds, validation_failed (a per-donation cap above the cap).
 */
export async function createMatch(deps: Deps, caller: Caller, fundraiserId: number, input: NewMatch) {
  authorize(caller, 'match');
  if (input.per_donation_cap_cents !== undefined && input.per_donation_cap_cents > input.cap_cents)
    throw fieldErrors([{ field: 'per_donation_cap', code: 'validation_failed', message: 'must not be more than cap' }]);
  const at = deps.clock.now().toISOString();
  const id = await spendingAsApp(deps, caller, input.cap_cents, () =>
    deps.db.transaction().execute(async (trx) => {
      const f = await fundraisers.findFundraiser(trx, caller.book, fundraiserId);
      if (f === undefined) throw notFound('fundraiser_not_found', `no fundraiser ${fundraiserId}`);
      if (statusOn(f, today(deps)) === 'ended') throw conflict('fundraiser_not_open', `fundraiser ${fundraiserId} has ended`);
      const accounts = await lockFundAccounts(trx, caller.fund_id);
      if (accounts.balances.available_cents < input.cap_cents)
        throw unprocessable('insufficient_funds', 'the fund does not have enough available money to hold this cap', [
          { field: 'cap', code: 'insufficient_funds', message: 'is more than the available balance' },
        ]);
      const made = await store.insertMatch(trx, {
        book: caller.book,
        fundraiser_id: f.id,
        user_id: caller.user_id,
        fund_id: caller.fund_id,
        ratio: input.ratio,
        cap_cents: input.cap_cents,
        per_donation_cap_cents: input.per_donation_cap_cents ?? null,
        give_rest: input.give_rest === true ? 1 : 0,
        matched_cents: 0,
        ended_at: null,
        created_at: at,
        updated_at: at,
      });
      await postEntry(
        trx,
        { book: caller.book, memo: 'match: cap held', match_id: made },
        [{ from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: input.cap_cents }],
        at,
      );
      await recordEvent(trx, {
        user_id: caller.user_id,
        type: 'match.created',
        object_type: 'match',
        object_id: made,
        data: { fundraiser_id: f.id, cap: centsToDollars(input.cap_cents) },
        at,
      });
      await recordAudit(trx, {
        book: caller.book,
        actor: `user:${caller.actor_id}`,
        action: 'match.create',
        object_type: 'match',
        object_id: made,
        before: null,
        after: { fundraiser_id: f.id, ...input },
        at,
      });
      return made;
    }),
  );
  return getMatch(deps, caller, id);
}

/** One of the caller's matches. Throws match_not_found (others' too). */
export async function getMatch(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'read');
  const m = await store.findMatch(deps.db, caller.book, id);
  if (m === undefined || m.user_id !== caller.user_id) throw notFound('match_not_found', `no match ${id}`);
  return matchForm(m);
}

/** A page of the caller's matches, newest first. */
export async function listMatches(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count } = await store.ownMatches(deps.db, caller.user_id, page);
  return toPage(rows.map(matchForm), count, page);
}

/** Ends one of the caller's matches now: what is left is given (if they chose so) or goes back. Throws match_not_found, match_ended. */
export async function endMatchOf(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'match');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const m = await store.findMatch(trx, caller.book, id);
    if (m === undefined || m.user_id !== caller.user_id) throw notFound('match_not_found', `no match ${id}`);
    const ended = await endMatches(deps, trx, [m], at);
    if (ended === 0) throw conflict('match_ended', `match ${id} has ended already`);
    await recordAudit(trx, {
      book: caller.book,
      actor: `user:${caller.actor_id}`,
      action: 'match.end',
      object_type: 'match',
      object_id: id,
      before: null,
      after: { ended_at: at },
      at,
    });
  });
  return getMatch(deps, caller, id);
}

/**
 * Ends `matches` (of one fundraiser) that are live, their funds locked here in ascending order: what
 * each has left is given to the fundraiser's organisation when its matcher chose so and the
 * organisation still receives, else released. Returns how many ended.
 */
export async function endMatches(deps: Deps, trx: Trx, matches: readonly store.Match[], at: string): Promise<number> {
  const first = matches[0];
  if (first === undefined) return 0;
  const funds = await lockFundsAccounts(
    trx,
    matches.map((m) => m.fund_id),
  );
  const f = await fundraisers.findFundraiser(trx, first.book, first.fundraiser_id);
  const ein = f === undefined ? undefined : await fundraisers.einOf(trx, f.non_profit_id);
  const recipient = ein === undefined ? undefined : (await findRecipients(trx, [ein])).get(ein);
  const nonProfitId = recipient === undefined || recipient instanceof AppError ? undefined : recipient.id;
  let ended = 0;
  for (const m of matches) {
    const current = await store.findMatch(trx, m.book, m.id);
    const accounts = funds.get(m.fund_id);
    if (current === undefined || current.ended_at !== null || accounts === undefined) continue;
    const { released } = await endMatchIn(deps, trx, current, accounts, nonProfitId, at);
    if (released > 0) await promoteWaiting(trx, m.fund_id, at);
    ended += 1;
  }
  return ended;
}
