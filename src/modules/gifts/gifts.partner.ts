// Partner fields of gifts (docs/rules.md §21), as donations have them: the giver's own id for a
// gift (unique per giver) and its string metadata, the giver's only (never in what its recipient sees).
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { notFound } from '../../shared/errors.ts';
import { changedMetadata, type ExternalIds } from '../../shared/partner.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { authorize } from '../../shared/policy.ts';
import { recordEvent } from '../events/index.ts';
import { findGiftByCode, giftByExternalId, setGiftMetadata } from './gifts.store.ts';

/** How gifts keep their givers' external ids: a gift is named by its code. */
export function giftIds(deps: Deps, userId: number): ExternalIds {
  return { kind: 'gift', holder: (externalId) => giftByExternalId(deps.db, userId, externalId), isTaken: isUniqueViolation };
}

/**
 * Changes a gift's metadata (a key set to "" is removed) and records gift.updated. Throws
 * gift_not_found (not the caller's, or of the other book), validation_failed. Returns the code.
 */
export async function updateGiftMetadata(deps: Deps, caller: Caller, code: string, change: unknown): Promise<string> {
  authorize(caller, 'give_gift');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const gift = await findGiftByCode(trx, caller.book, code);
    if (gift === undefined || gift.user_id !== caller.user_id) throw notFound('gift_not_found', `no gift ${code}`);
    await setGiftMetadata(trx, gift.id, changedMetadata(gift.metadata, change), at);
    await recordEvent(trx, { user_id: gift.user_id, type: 'gift.updated', object_type: 'gift', object_id: gift.id, data: { changed: 'metadata' }, at });
  });
  return code;
}
