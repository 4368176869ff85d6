export { recordOutcome, keyTakenOver } from './outcome.ts';
export { claimKey, unwrittenClaim, createKeyWrites, keyWriteStats, settleKey, type Claimed, type KeyWrites } from './idempotency.service.ts';
export { claimOutcomesStatements, recordClaimOutcomes, upsertAnswer, type ClaimOutcome, type IdempotencyClaim, type StoredAnswer } from './idempotency.store.ts';
