// Donation records -> the JSON forms of the spec (2.1, 2.2, 2.3 and the
// owner's 2.3 + amount + visibility of DECISIONS 8).
import type { Deps } from '../../deps.ts';
import { centsToDollars } from '../../shared/money.ts';
import { avatarUrl } from '../users/index.ts';
import { causeById, causeLogoUrl } from '../nonprofits/causes.ts';
import { assert } from '../../shared/assert.ts';
import type { DonationRecord } from './donations.store.ts';

/** Form 2.2: the non-profit inside a donation. */
export function donationNonProfit(deps: Deps, r: DonationRecord) {
  const cause = causeById(r.np_cause_id);
  assert(cause !== undefined, 'a non-profit has a known cause');
  return {
    ein: r.np_ein,
    name: r.np_name,
    website: r.np_website ?? '',
    city: r.np_city,
    state: r.np_state,
    logo: causeLogoUrl(deps.config.publicUrl, cause),
    public_path: r.np_slug,
    public_url: `${deps.config.publicUrl}${r.np_slug}`,
    cause_id: r.np_cause_id,
  };
}

function noteOf(r: DonationRecord) {
  return r.note === null ? {} : { note: r.note };
}

/** Form 2.1: the own list and GET /v1/donations/:id. */
export function ownListForm(deps: Deps, r: DonationRecord) {
  return {
    id: r.id,
    amount: centsToDollars(r.amount_cents),
    status: r.status,
    ...noteOf(r),
    scheduled_donation_id: r.scheduled_donation_id,
    visibility: r.visibility,
    created_at: r.created_at,
    mailed_at: r.mailed_at,
    non_profit: donationNonProfit(deps, r),
    fund: { id: r.fund_id, name: r.fund_name },
    user: { id: r.user_id, name: r.user_name, city: r.user_city, avatar: avatarUrl(deps, { avatar_url: r.user_avatar_url }), slug: r.user_slug },
  };
}

/** Form 2.3, reduced: what anyone else sees of a public donation. */
export function userScopedForm(deps: Deps, r: DonationRecord) {
  return {
    id: r.id,
    user_id: r.user_id,
    status: r.status,
    ...noteOf(r),
    created_at: r.created_at,
    mailed_at: r.mailed_at,
    non_profit: donationNonProfit(deps, r),
  };
}

/** Form 2.3 for its owner: plus amount and visibility (DECISIONS 8, compat). */
export function ownUserScopedForm(deps: Deps, r: DonationRecord) {
  return { ...userScopedForm(deps, r), amount: centsToDollars(r.amount_cents), visibility: r.visibility };
}
