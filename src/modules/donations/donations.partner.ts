// Partner fields of donations (docs/rules.md §21): the owner's own id for a donation, unique per
// owner (a second create answers 409 naming the first, even one made at the same moment), and its
// string metadata, set on create and changed later. Shown to the owner only (donations.view.ts).
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { conflict, notFound } from '../../shared/errors.ts';
import { changedMetadata, externalIdOf, metadataToStore } from '../../shared/partner.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { authorize } from '../../shared/policy.ts';
import { recordEvent } from '../events/index.ts';
import * as store from './donations.store.ts';
import * as partner from './donations.partner.store.ts';
import { cardsFor, ownListForm } from './donations.view.ts';

/** A donation's partner fields as given on create, checked, as stored. Throws validation_failed. */
export function partnerColumns(input: { external_id?: string; metadata?: unknown }): { external_id: string | null; metadata: string | null } {
  return { external_id: externalIdOf(input.external_id), metadata: metadataToStore(input.metadata) };
}

function taken(externalId: string, id: number) {
  return conflict('external_id_exists', `donation ${id} has the external_id ${JSON.stringify(externalId)} already`);
}

/**
 * Runs `make` (which creates the owner's donation with `externalId`) unless the owner has one with
 * it: then, or when one made at the same moment took it first (the unique index), 409
 * external_id_exists naming that donation.
 */
export async function withExternalId<T>(deps: Deps, userId: number, externalId: string | null, make: () => Promise<T>): Promise<T> {
  if (externalId === null) return make();
  const existing = await partner.donationByExternalId(deps.db, userId, externalId);
  if (existing !== undefined) throw taken(externalId, existing);
  try {
    return await make();
  } catch (error) {
    const first = isUniqueViolation(error) ? await partner.donationByExternalId(deps.db, userId, externalId) : undefined;
    if (first !== undefined) throw taken(externalId, first);
    throw error;
  }
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
