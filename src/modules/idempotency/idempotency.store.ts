// Every SQL statement about Idempotency-Key records (DECISIONS 11).
import { CompiledQuery } from 'kysely';
import type { Db, Engine, Trx } from '../../db/database.ts';
import { prepareText } from '../../db/prepared.ts';
import { jsonRows, rowsStatement, type Statement } from '../../db/bulk.ts';
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

/** PostgreSQL: the claims' outcomes set from one JSON value (its placeholder `rows`), a row returned for each claim still held. */
function outcomesUpdate(rows: string): string {
  return `update idempotency_keys k set state = 'committed', resource = v.resource
      from json_to_recordset(${rows}) as v(uid bigint, ikey text, token text, resource text)
      where k.user_id = v.uid and k.key = v.ikey and k.claim_token = v.token and k.state = 'in_progress'
      returning k.user_id, k.key, k.claim_token`;
}

/** SQLite: the same, from the JSON value bound as its one parameter. */
const OUTCOMES_SQLITE = `update idempotency_keys set state = 'committed', resource = v.resource
      from (select json_extract(value, '$.uid') as uid, json_extract(value, '$.ikey') as ikey, json_extract(value, '$.token') as token,
              json_extract(value, '$.resource') as resource from json_each(?)) as v
      where idempotency_keys.user_id = v.uid and idempotency_keys.key = v.ikey and idempotency_keys.claim_token = v.token and idempotency_keys.state = 'in_progress'
      returning idempotency_keys.user_id, idempotency_keys.key, idempotency_keys.claim_token`;

type ClaimOutcome = { claim: IdempotencyClaim; resource: string };

/** The claims' outcomes as one JSON value appended to `params` (db/bulk.ts jsonRows: safe integers and strings only), and its PostgreSQL placeholder. */
function outcomeRows(params: unknown[], outcomes: readonly ClaimOutcome[]): string {
  return jsonRows(
    params,
    ['uid', 'ikey', 'token', 'resource'],
    outcomes.map(({ claim, resource }) => [claim.user_id, claim.key, claim.token, resource]),
  );
}

/**
 * PostgreSQL: recordClaimOutcomes as a clause of a round's guarded write (db/bulk.ts
 * runIfAllRows `counted`): a row for each claim still held, so that the write is made only
 * if every claim of the round still holds its key.
 */
export function claimOutcomesStatement(outcomes: readonly ClaimOutcome[]): Statement {
  return rowsStatement(
    () => {
      throw new Error('a guarded write runs on PostgreSQL only');
    },
    (params) => outcomesUpdate(outcomeRows(params, outcomes)),
  );
}

/**
 * recordClaimOutcome for the claims of a round of requests (donations.batches.ts), in one
 * statement instead of one round trip each while the round's funds are locked. Each claim is
 * its own compare-and-set: one taken over is `false` and the others are recorded.
 */
export async function recordClaimOutcomes(trx: Trx, engine: Engine, outcomes: readonly ClaimOutcome[]): Promise<boolean[]> {
  const [only] = outcomes;
  if (outcomes.length <= 1) return only === undefined ? [] : [await recordClaimOutcome(trx, only.claim, only.resource)];
  const params: unknown[] = [];
  const values = outcomeRows(params, outcomes);
  const text = engine === 'postgres' ? outcomesUpdate(values) : OUTCOMES_SQLITE;
  if (engine === 'postgres') prepareText(text);
  const { rows } = await trx.executeQuery<{ user_id: number; key: string; claim_token: string }>(CompiledQuery.raw(text, params));
  const held = new Set(rows.map((r) => JSON.stringify([Number(r.user_id), r.key, r.claim_token])));
  return outcomes.map(({ claim }) => held.has(JSON.stringify([claim.user_id, claim.key, claim.token])));
}
