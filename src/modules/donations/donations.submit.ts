// How a new donation reaches its writer: its row, from what the use case checked once, and the
// writer it goes through (the node's, or for a fundraiser with live matches the matched path).
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import type { PartnerColumns } from '../../shared/partner.ts';
import type { IdempotencyClaim } from '../idempotency/index.ts';
import type { Visibility } from './donations.ts';
import type { Share } from './donations.ts';
import { liveMatchesOf, submitToMatchedFundraiser } from './donations.matches.ts';
import type { Made } from './donations.writer.ts';

export interface NewDonation {
  amount_cents: number;
  ein: string;
  note?: string;
  private_memo?: string;
  visibility?: Visibility;
  /** What the charity learns of the donor (rules §17): `name` when not given. */
  share?: Share;
  designation?: string;
  dedication?: string;
  /** Partner fields (rules §21): the owner's own id for it, and its metadata. */
  external_id?: string;
  metadata?: unknown;
  fundraiser_id?: number; // rules §22
  /** A checkout provider's id for the grant (rules §24), carried to the charity. */
  tracking_id?: string;
  /** The app whose donate link the donor followed (rules §23, §25): its webhook endpoints hear of it. */
  via_app_id?: number;
}

/** A donation's row; `partner`: its partner fields (partnerColumns) and its fundraiser, each checked once. */
export type DonorColumns = PartnerColumns & { fundraiser_id: number | null };
export function donationRow(caller: Caller, input: NewDonation, note: string | null, visibility: Visibility, partner: DonorColumns) {
  return {
    book: caller.book,
    user_id: caller.user_id,
    fund_id: caller.fund_id,
    actor_id: caller.actor_id,
    amount_cents: input.amount_cents,
    note,
    private_memo: input.private_memo ?? null,
    visibility,
    scheduled_donation_id: null,
    app_connection_id: caller.app?.connection_id ?? null,
    share: input.share ?? 'name',
    designation: input.designation ?? null,
    dedication: input.dedication ?? null,
    tracking_id: input.tracking_id ?? null,
    // The app whose token made it, or whose donate link the donor followed (rules §25).
    app_id: caller.app?.app_id ?? input.via_app_id ?? null,
    ...partner,
  };
}

/** Through the node's writer; a donation to a fundraiser with live matches, with theirs, in a transaction of its own (rules §22). */
export async function submitDonation(
  deps: Deps,
  caller: Caller,
  input: NewDonation,
  note: string | null,
  visibility: Visibility,
  partner: DonorColumns,
  claim: IdempotencyClaim | undefined,
  view?: (made: Made) => unknown,
) {
  const request = { ein: input.ein, donation: donationRow(caller, input, note, visibility, partner), claim, view };
  const fundraiser = partner.fundraiser_id;
  if (fundraiser !== null && (await liveMatchesOf(deps.db, fundraiser)).length > 0) return submitToMatchedFundraiser(deps, request, fundraiser);
  return deps.runtime.donations.submit(request);
}
