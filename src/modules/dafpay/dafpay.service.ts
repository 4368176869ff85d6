// Giving at a charity's checkout (rules §24, docs/api.md "Giving at a checkout"): a checkout
// provider, with a donor's token of the `dafpay` scope alone, asks who is giving, the funds they
// may grant from and how much each may grant now, makes a grant (a donation of the fund it
// names, with the provider's tracking id), and reads it back.
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { authorize } from '../../shared/policy.ts';
import { notFound } from '../../shared/errors.ts';
import { centsOfDollars, wholeDollarsIn } from '../../shared/money.ts';
import { actingOnFund, membersStore } from '../members/index.ts';
import { createDonation, type Share } from '../donations/index.ts';
import { leftThisMonth } from '../apps/index.ts';
import { readFundAccounts } from '../ledger/index.ts';
import type { IdempotencyClaim } from '../idempotency/index.ts';
import * as store from './dafpay.store.ts';

/** The person signed in at the checkout: their name with the profile scope, their address with the email scope. */
export async function checkoutDonor(deps: Deps, caller: Caller) {
  authorize(caller, 'checkout');
  const donor = await store.donorById(deps.db, caller.actor_id);
  if (donor === undefined) throw notFound('user_not_found', 'the donor is gone');
  const sees = (scope: string) => caller.app === undefined || caller.app.scopes.includes(scope);
  return {
    id: donor.id,
    ...(sees('profile') ? { name: donor.name } : {}),
    ...(sees('email') && donor.email !== null ? { email: donor.email } : {}),
  };
}

/**
 * The funds the donor may grant from: those they advise or organise in their book, whose holder is
 * not suspended (a family member's gift is only a request, rules §20: not offered), each with the
 * whole dollars it may grant now: its available money, within what the app may still move this month.
 */
export async function grantableFunds(deps: Deps, caller: Caller) {
  authorize(caller, 'checkout');
  const memberships = await membersStore.fundsOfPerson(deps.db, caller.actor_id);
  const left = await leftThisMonth(deps, caller);
  const funds = [];
  for (const m of memberships) {
    const acting = await actingOnFund(deps.db, caller, m.fund_id);
    if (acting === undefined || acting.user_status !== 'active' || (m.role !== 'advisor' && m.role !== 'organizer')) continue;
    const available = (await readFundAccounts(deps.db, m.fund_id)).balances.available_cents;
    funds.push({
      id: m.fund_id,
      name: m.fund_name,
      holder: { id: m.holder_id, name: m.holder_name },
      role: m.role,
      available_to_grant: wholeDollarsIn(left === null ? available : Math.min(available, left)),
    });
  }
  return { data: funds };
}

export interface NewGrant {
  fund_id: number;
  ein: string;
  /** Whole dollars. */
  amount: number;
  tracking_id?: string;
  share?: Share;
  designation?: string;
}

/**
 * A grant from the fund it names: the donor must advise or organise it (asked of that fund, not
 * the one they act on). It is a donation of that fund, held at once or waiting for money like any,
 * counted against the app's monthly limit, private (a checkout is no public gift). Throws
 * fund_not_found, role_forbidden, forbidden (a suspended holder), and what a donation throws.
 */
export async function createGrant(deps: Deps, caller: Caller, grant: NewGrant, claim?: IdempotencyClaim) {
  authorize(caller, 'checkout');
  const acting = await actingOnFund(deps.db, caller, grant.fund_id);
  if (acting === undefined) throw notFound('fund_not_found', `you are not a member of fund ${grant.fund_id}`);
  authorize(acting, 'grant');
  // Asked `grant` of its fund above, the grant gives as a donation does: that rule asks `donate`
  // of the token, which a grant's token holds for this one request only.
  const giving: Caller = acting.app === undefined ? acting : { ...acting, app: { ...acting.app, scopes: ['donate'] } };
  const made = await createDonation(
    deps,
    giving,
    {
      ein: grant.ein,
      amount_cents: centsOfDollars(grant.amount),
      visibility: 'private',
      ...(grant.share === undefined ? {} : { share: grant.share }),
      ...(grant.designation === undefined ? {} : { designation: grant.designation }),
      ...(grant.tracking_id === undefined ? {} : { tracking_id: grant.tracking_id }),
    },
    claim,
  );
  return getGrant(deps, caller, made.id);
}

/**
 * A grant as its provider reads it: a donation of a fund the donor is a member of, in their book;
 * an app reads only the grants its own tokens made. Throws grant_not_found.
 */
export async function getGrant(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'checkout');
  const row = await store.grantOfMember(deps.db, caller.book, caller.actor_id, id);
  if (row === undefined || (caller.app !== undefined && row.client_id !== caller.app.client_id)) throw notFound('grant_not_found', `no grant ${id} of yours`);
  return {
    id: row.id,
    fund_id: row.fund_id,
    amount: wholeDollarsIn(row.amount_cents),
    status: row.status,
    ein: row.ein,
    non_profit: { name: row.non_profit_name },
    tracking_id: row.tracking_id,
    share: row.share,
    designation: row.designation,
    created_at: row.created_at,
    paid_at: row.completed_at,
    voided_at: row.voided_at,
  };
}
