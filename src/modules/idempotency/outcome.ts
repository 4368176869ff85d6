// Exactly once under Idempotency-Key (rules §11), even across a crash.
// The HTTP layer claims a key with a token and hands the claim to the use case
// in its input; a use case that creates something calls recordOutcome with it
// inside its own transaction. That write is a compare-and-set on the token: if
// another attempt took the key over (the first seemed dead), the slower one
// fails and its whole transaction rolls back. A retry that finds an outcome
// recorded answers with that resource instead of doing the work again.
import type { Trx } from '../../db/database.ts';
import { AppError } from '../../shared/errors.ts';
import { recordClaimOutcomes, type IdempotencyClaim, type StoredAnswer } from './idempotency.store.ts';

/**
 * `resource` is `<kind>:<id>`, e.g. `donation:42`; without a claim (no Idempotency-Key: the web,
 * the scheduler, the demo) nothing is recorded. With `answer`, the answer is stored with it (the
 * request's answer is then durable with its work). Throws conflict (idempotency_key_in_use) when this
 * attempt no longer holds the key.
 */
export async function recordOutcome(trx: Trx, claim: IdempotencyClaim | undefined, resource: string, answer?: StoredAnswer): Promise<void> {
  if (claim === undefined) return;
  const [recorded] = await recordClaimOutcomes(trx, [{ claim, resource, answer }]);
  if (recorded !== true) throw keyTakenOver();
}
export function keyTakenOver(): AppError {
  return new AppError('conflict', 'idempotency_key_in_use', 'another request with this Idempotency-Key took over; retry to get its result');
}
