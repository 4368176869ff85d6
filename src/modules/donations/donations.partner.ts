// Partner fields of donations (docs/rules.md §21): the owner's own id for a donation, unique per
// owner (a second create answers 409 naming the first, even one made at the same moment), and its
// string metadata, set on create and changed later. Shown to the owner only (donations.view.ts).
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { notFound } from '../../shared/errors.ts';
import { changedMetadata, type ExternalIds } from '../../shared/partner.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { authorize } from '../../shared/policy.ts';
import { recordEvent } from '../events/index.ts';
import * as store from './donations.store.ts';
import * as partner from './donations.partner.store.ts';
import { cardsFor, ownListForm } from './donations.view.ts';

/** How donations keep their owners' external ids (rules §21). */
export function donationIds(deps: Deps, userId: number): ExternalIds {
  return { kind: 'donation', holder: (externalId) => partner.donationByExternalId(deps.db, userId, externalId), isTaken: isUniqueViolation };
}

/**
 * Changes a donation's metadata (a key set to "" is removed) and records donation.updated. Throws
 * donation_not_found (not the caller's, or of the other book), validation_failed.
 */
export async function updateDonationMetadata(deps: Deps, caller: Caller, donationId: number, change: unknown) {
  authorize(caller, 'donate');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const record = await store.findDonation(trx, caller.book, donationId);
    if (record === undefined || record.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
    await partner.setMetadata(trx, donationId, changedMetadata(record.metadata, change), at);
    await recordEvent(trx, { user_id: record.user_id, type: 'donation.updated', object_type: 'donation', object_id: donationId, data: { changed: 'metadata' }, at });
  });
  const record = await store.findDonation(deps.db, caller.book, donationId);
  if (record === undefined) throw notFound('donation_not_found', `no donation ${donationId}`);
  return ownListForm(deps, await cardsFor(deps, [record]), record);
}
