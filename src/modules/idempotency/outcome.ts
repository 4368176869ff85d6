// Exactly once under Idempotency-Key (rules §11), even across a crash.
// The HTTP layer claims a key with a token and puts the claim in this async
// context; a use case that creates something calls recordOutcome inside its
// own transaction. That write is a compare-and-set on the token: if another
// attempt took the key over (the first seemed dead), the slower one fails
// and its whole transaction rolls back. A retry that finds an outcome
// recorded answers with that resource instead of doing the work again.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Trx } from '../../db/database.ts';
import { AppError } from '../../shared/errors.ts';
import { recordClaimOutcome, type IdempotencyClaim } from './idempotency.store.ts';

export const idempotencyClaims = new AsyncLocalStorage<IdempotencyClaim>();

/** `resource` is `<kind>:<id>`, e.g. `donation:42`. Throws conflict (idempotency_key_in_use) when this attempt no longer holds the key. */
export async function recordOutcome(trx: Trx, resource: string): Promise<void> {
  const claim = idempotencyClaims.getStore();
  if (claim === undefined) return;
  if (!(await recordClaimOutcome(trx, claim, resource))) throw keyTakenOver();
}

export function keyTakenOver(): AppError {
  return new AppError('conflict', 'idempotency_key_in_use', 'another request with this Idempotency-Key took over; retry to get its result');
}
