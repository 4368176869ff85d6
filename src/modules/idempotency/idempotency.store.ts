// Every SQL statement about Idempotency-Key records (DECISIONS 11).
import type { Db, Trx } from '../../db/database.ts';
import type { IdempotencyKeysTable } from '../../db/schema.ts';

export interface IdempotencyClaim {
  user_id: number;
  key: string;
  token: string;
}

/** An expired record no longer protects anything: cleared so the key can be claimed afresh. */
export async function clearExpired(db: Db, userId: number, key: string, expiredBefore: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('created_at', '<', expiredBefore).execute();
}

/** Claims a key for a request (true), unless a record of it exists (false). */
export async function insertClaim(db: Db, claim: IdempotencyClaim, requestHash: string, lockedUntil: string, at: string): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      user_id: claim.user_id,
      key: claim.key,
      request_hash: requestHash,
      state: 'in_progress',
      response_status: null,
      response_body: null,
      locked_until: lockedUntil,
      created_at: at,
      claim_token: claim.token,
      resource: null,
    })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findRecord(db: Db, userId: number, key: string): Promise<IdempotencyKeysTable | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
}

/** A claim whose lock ran out (its attempt died) passes to `claim`'s token; false when it is still held. */
export async function takeOver(db: Db, claim: IdempotencyClaim, lockedUntil: string, now: string): Promise<boolean> {
  const updated = await db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockedUntil, claim_token: claim.token })
    .where('user_id', '=', claim.user_id)
    .where('key', '=', claim.key)
    .where('state', '=', 'in_progress')
    .where('locked_until', '<', now)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Releases a claim whose work did not commit, for a retry. */
export async function release(db: Db, claim: IdempotencyClaim): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', claim.user_id)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .where('state', '=', 'in_progress')
    .execute();
}

/** Stores the answer a claimed request gave, to replay it. */
export async function storeResponse(db: Db, claim: IdempotencyClaim, status: number, response: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: status, response_body: response })
    .where('user_id', '=', claim.user_id)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .execute();
}

/** The compare-and-set that records a claim's outcome in the work's own transaction; false when the key was taken over. */
export async function recordClaimOutcome(trx: Trx, claim: IdempotencyClaim, resource: string): Promise<boolean> {
  const updated = await trx
    .updateTable('idempotency_keys')
    .set({ state: 'committed', resource })
    .where('user_id', '=', claim.user_id)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .where('state', '=', 'in_progress')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
