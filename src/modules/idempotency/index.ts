export { idempotencyClaims, recordOutcome, keyTakenOver } from './outcome.ts';
export { claimKey, keyWriteStats, settleKey, type Claimed } from './idempotency.service.ts';
export { claimOutcomesStatement, recordClaimOutcome, recordClaimOutcomes, type IdempotencyClaim } from './idempotency.store.ts';
