export { recordOutcome, keyTakenOver } from './outcome.ts';
export { claimKey, createKeyWrites, keyWriteStats, settleKey, type Claimed, type KeyWrites } from './idempotency.service.ts';
export { claimOutcomesStatement, recordClaimOutcome, recordClaimOutcomes, type IdempotencyClaim } from './idempotency.store.ts';
