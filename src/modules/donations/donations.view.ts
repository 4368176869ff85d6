// Donation records -> the JSON forms of the spec (2.1, 2.2, 2.3 and the
// owner's 2.3 + amount + visibility of rules §8).
import type { Deps } from '../../deps.ts';
import { ownerPartnerFields } from '../../shared/partner.ts';
import { centsToDollars } from '../../shared/money.ts';
import { assert } from '../../shared/assert.ts';
import { avatarUrl } from '../users/index.ts';
import { nonProfitCards, type NonProfitCard } from '../nonprofits/index.ts';
import type { DonationRecord } from './donations.store.ts';
import type { Stamp } from '../../db/fresh-reads.ts';

/** The non-profits (form 2.2) of these records, by id. */
export type Cards = ReadonlyMap<number, NonProfitCard>;

/** The cards of the records' non-profits, under the records epoch `epochRead` if its read was begun earlier (cardsEpoch). */
export function cardsFor(deps: Deps, records: readonly DonationRecord[], epochRead?: Promise<Stamp>): Promise<Cards> {
  return nonProfitCards(
    deps,
    records.map((r) => r.non_profit_id),
    epochRead,
  );
}

/** What forms 2.3 show of a donation. */
type Shown = Pick<
  DonationRecord,
  | 'id'
  | 'user_id'
  | 'status'
  | 'note'
  | 'created_at'
  | 'mailed_at'
  | 'non_profit_id'
  | 'amount_cents'
  | 'visibility'
  | 'share'
  | 'designation'
  | 'dedication'
  | 'external_id'
  | 'metadata'
  | 'fundraiser_id'
>;

function cardOf(cards: Cards, r: Shown): NonProfitCard {
  const card = cards.get(r.non_profit_id);
  assert(card !== undefined, 'cardsFor read every non-profit of the records');
  return card;
}

/** Form 2.1: the own list and GET /v1/donations/:id. */
export function ownListForm(deps: Deps, cards: Cards, r: DonationRecord) {
  return {
    id: r.id,
    amount: centsToDollars(r.amount_cents),
    status: r.status,
    note: r.note ?? undefined,
    scheduled_donation_id: r.scheduled_donation_id,
    visibility: r.visibility,
    created_at: r.created_at,
    mailed_at: r.mailed_at,
    non_profit: cardOf(cards, r),
    fund: { id: r.fund_id, name: r.fund_name },
    user: { id: r.user_id, name: r.owner.name, city: r.owner.city, avatar: avatarUrl(deps, r.owner), slug: r.owner.slug },
    ...donorChoices(r),
  };
}

/** Form 2.3, reduced: what anyone else sees of a public donation. */
export function userScopedForm(cards: Cards, r: Shown) {
  return {
    id: r.id,
    user_id: r.user_id,
    status: r.status,
    note: r.note ?? undefined,
    created_at: r.created_at,
    mailed_at: r.mailed_at,
    non_profit: cardOf(cards, r),
  };
}

/** Form 2.3 for its owner: plus amount and visibility (rules §8, compat), and what the charity learns (rules §17). */
export function ownUserScopedForm(cards: Cards, r: Shown) {
  return { ...userScopedForm(cards, r), amount: centsToDollars(r.amount_cents), visibility: r.visibility, ...donorChoices(r) };
}

/**
 * The owner's choices of what the charity learns (rules §17), never in a form others see; each only
 * when made (the default share, `name`, and no designation or dedication leave the spec's form as it is).
 */
function donorChoices(r: Pick<Shown, 'share' | 'designation' | 'dedication' | 'external_id' | 'metadata' | 'fundraiser_id'>) {
  return {
    share: r.share === 'name' ? undefined : r.share,
    designation: r.designation ?? undefined,
    dedication: r.dedication ?? undefined,
    // Partner fields (rules §21): the owner's, never in a form others see.
    ...ownerPartnerFields(r),
    fundraiser_id: r.fundraiser_id ?? undefined,
  };
}
