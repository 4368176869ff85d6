// Every SQL statement about Idempotency-Key records (rules §11).
import { DIALECTS, dialectOf, type Dialect } from '../../db/dialect.ts';
import { CompiledQuery } from 'kysely';
import { assert } from '../../shared/assert.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Db, Trx } from '../../db/database.ts';
import { columnNames, insertText, jsonRowsFrom, postgresRows, rowsStatement, type Statement } from '../../db/bulk.ts';
import type { IdempotencyKeysTable } from '../../db/schema.ts';

export interface IdempotencyClaim {
  user_id: number;
  key: string;
  token: string;
  /**
   * A key no record holds yet (a route whose use case writes it): its record is written by the
   * work's own transaction, with the work's outcome, so that the claim costs no commit of its own.
   */
  unwritten?: { requestHash: string; at: string; lockedUntil: string };
  /** The answer to store for what the work made (its view), when the work's transaction stores it too. */
  answer?: (view: unknown) => StoredAnswer;
  /** Set once the work's transaction committed the answer: nothing is left to store. */
  answered?: boolean;
}

/** An answer as stored to be replayed: its status and the HTTP layer's text of it. */
export interface StoredAnswer {
  status: number;
  response: string;
}

/** An expired record no longer protects anything: cleared so the key can be claimed afresh. */
export async function clearExpired(db: Db, userId: number, key: string, expiredBefore: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('created_at', '<', expiredBefore).execute();
}

/** A claim to insert: the key's record while its request runs. */
export interface NewClaim {
  claim: IdempotencyClaim;
  requestHash: string;
  lockedUntil: string;
  at: string;
}

const CLAIM_TYPES = 'user_id bigint, key text, request_hash text, state text, locked_until text, created_at text, claim_token text';
const CLAIM_COLUMNS = columnNames(CLAIM_TYPES);

/**
 * The claims from one JSON value, a key already recorded left as it is. On PostgreSQL committed
 * without waiting for the WAL to reach the disk (synchronous_commit off for this statement's
 * transaction only): nothing is answered from a claim alone. Whatever its request later commits
 * durably (the work with its outcome, or the stored answer) is written to the WAL after it, and a
 * flush of the WAL makes everything before it durable too; a crash that loses the claim loses
 * what followed it, and the request, never answered, is retried and claims its key afresh.
 */
function claimsInsert(dialect: Dialect, params: unknown[], rows: ReadonlyArray<readonly unknown[]>): string {
  const list = CLAIM_COLUMNS.join(',');
  const after = dialect.engine === 'postgres' ? `cross join (select set_config('synchronous_commit', 'off', true)) as not_waited` : 'where true';
  return `insert into idempotency_keys (${list}) select ${list} from ${jsonRowsFrom(dialect, params, CLAIM_TYPES, rows, 'c')} ${after}
      on conflict (user_id, key) do nothing returning claim_token`;
}

/**
 * Claims keys for requests, in one statement (idempotency.service.ts gathers the claims of
 * requests that arrive together): true for each claim inserted, false where a record of its key
 * exists, an earlier claim in the same statement's included (the first of them wins).
 */
export async function insertClaims(db: Db, claims: readonly NewClaim[]): Promise<boolean[]> {
  const dialect = dialectOf(db);
  // In a transaction, the setting would let the whole of it commit without waiting for the disk.
  assert(!db.isTransaction, 'claims are written in a transaction of their own');
  const params: unknown[] = [];
  const text = claimsInsert(
    dialect,
    params,
    claims.map((c) => [c.claim.user_id, c.claim.key, c.requestHash, 'in_progress', c.lockedUntil, c.at, c.claim.token]),
  );
  dialect.prepare(text);
  const { rows } = await db.executeQuery<{ claim_token: string }>(CompiledQuery.raw(text, params));
  const inserted = new Set(rows.map((r) => r.claim_token));
  return claims.map((c) => inserted.has(c.claim.token));
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

/** An answer to store for its claim. */
export interface Answered {
  claim: IdempotencyClaim;
  status: number;
  response: string;
}

/**
 * Stores the answers claimed requests gave, to replay them, in one statement (idempotency.service.ts
 * gathers the answers of requests that end together). Only a claim that still holds its key stores its answer.
 */
export async function storeResponses(db: Db, answers: readonly Answered[]): Promise<void> {
  const dialect = dialectOf(db);
  const params: unknown[] = [];
  const values = answers.map((a): [number, string, string, number, string] => [a.claim.user_id, a.claim.key, a.claim.token, a.status, a.response]);
  const text = `update idempotency_keys set state = 'done', response_status = v.status, response_body = v.body
      from ${jsonRowsFrom(dialect, params, 'uid bigint, ikey text, token text, status integer, body text', values, 'v')}
      where idempotency_keys.user_id = v.uid and idempotency_keys.key = v.ikey and idempotency_keys.claim_token = v.token`;
  dialectOf(db).prepare(text);
  await db.executeQuery(CompiledQuery.raw(text, params));
}

/** A claim, what its request's work made (`<kind>:<id>`) and, when the work's transaction stores it, its answer. */
export type ClaimOutcome = { claim: IdempotencyClaim; resource: string; answer?: StoredAnswer | undefined };

/** The claims' outcomes set from one JSON value, a row returned for each claim still held. */
function outcomesUpdate(dialect: Dialect, params: unknown[], outcomes: readonly ClaimOutcome[]): string {
  const values = outcomes.map(({ claim, resource, answer }) => [claim.user_id, claim.key, claim.token, resource, answer?.status ?? null, answer?.response ?? null]);
  return `update idempotency_keys set state = case when v.body is null then 'committed' else 'done' end, resource = v.resource,
        response_status = v.status, response_body = v.body
      from ${jsonRowsFrom(dialect, params, 'uid bigint, ikey text, token text, resource text, status integer, body text', values, 'v')}
      where idempotency_keys.user_id = v.uid and idempotency_keys.key = v.ikey and idempotency_keys.claim_token = v.token and idempotency_keys.state = 'in_progress'
      returning idempotency_keys.claim_token`;
}

const RECORD_TYPES = `${CLAIM_TYPES}, resource text, response_status integer, response_body text`;
const RECORD_COLUMNS = columnNames(RECORD_TYPES);

/**
 * The records of unwritten claims, inserted with their outcomes from one JSON value, each returned;
 * a key another request recorded first is left as it is (no row returned: that request holds the
 * key). `plain`: without ON CONFLICT, so that a key recorded first fails the statement as a whole
 * (a round's guarded write on PostgreSQL; SQLite's first try, without rows returned: `returned` false).
 */
function outcomesInsert(dialect: Dialect, params: unknown[], outcomes: readonly ClaimOutcome[], plain = false, returned = true): string {
  const rows = outcomes.map(({ claim, resource, answer }) => {
    const unwritten = claim.unwritten;
    assert(unwritten !== undefined, 'an unwritten claim');
    const state = answer === undefined ? 'committed' : 'done';
    return [claim.user_id, claim.key, unwritten.requestHash, state, unwritten.lockedUntil, unwritten.at, claim.token, resource, answer?.status ?? null, answer?.response ?? null];
  });
  const conflict = `${plain ? '' : 'on conflict (user_id, key) do nothing '}${returned ? 'returning claim_token' : ''}`;
  // SQLite: the values bound one by one. Each answer is JSON text already: inside one JSON value
  // it would be escaped again, and parsed again by json_extract for every column.
  if (dialect.engine === 'sqlite') return `${insertText('sqlite', 'idempotency_keys', RECORD_COLUMNS, rows, params)} ${conflict}`;
  return `insert into idempotency_keys (${RECORD_COLUMNS.join(',')})
      select ${RECORD_COLUMNS.join(',')} from ${postgresRows(params, RECORD_TYPES, rows, 'r')} ${conflict}`;
}

/** The outcomes written by update (claims whose record exists) and by insert (unwritten claims). */
function byRecord(outcomes: readonly ClaimOutcome[]): { held: ClaimOutcome[]; unwritten: ClaimOutcome[] } {
  return { held: outcomes.filter((o) => o.claim.unwritten === undefined), unwritten: outcomes.filter((o) => o.claim.unwritten !== undefined) };
}

/**
 * PostgreSQL: recordClaimOutcomes as clauses of a round's guarded write (db/bulk.ts
 * runIfAllRows `counted`): a row for each claim still held or newly recorded, so that the write
 * is made only if every claim of the round holds its key. The unwritten claims' records are a
 * plain insert: a key recorded first (a replay, a race) fails the whole write with a unique
 * violation, as a claim taken over fails its count, and the round goes to the locked transaction,
 * which refuses that request alone (donations.batches.ts). An insert that may conflict (ON
 * CONFLICT) is a speculative insertion, a probe of the key's index and a WAL record more for
 * every key: keyed rounds measured 0.78 of the unkeyed ones with it and 0.88-0.98 without
 * (docs/performance-history.md, 2026-12-03).
 */
export function claimOutcomesStatements(outcomes: readonly ClaimOutcome[]): Statement[] {
  const { held, unwritten } = byRecord(outcomes);
  const statement = (write: (dialect: Dialect, params: unknown[], o: readonly ClaimOutcome[]) => string, of: readonly ClaimOutcome[]) =>
    rowsStatement(
      () => {
        throw new Error('a guarded write runs on PostgreSQL only');
      },
      (params) => write(DIALECTS.postgres, params, of),
    );
  const insert = (dialect: Dialect, params: unknown[], of: readonly ClaimOutcome[]) => outcomesInsert(dialect, params, of, true);
  return [...(held.length > 0 ? [statement(outcomesUpdate, held)] : []), ...(unwritten.length > 0 ? [statement(insert, unwritten)] : [])];
}

/**
 * The unwritten claims' records inserted, and the tokens of those this statement wrote. On SQLite
 * first as a plain insert that returns nothing, which a key recorded first fails as a whole, and
 * only then, nothing of it written, as the insert that leaves such a key as it is and returns the
 * records it wrote: rows returned cost SQLite's insert a third more a record
 * (docs/performance-history.md, 2026-12-06), and nearly every key is new. On PostgreSQL a failed
 * statement would end the transaction: the second statement alone.
 */
async function insertOutcomes(trx: Trx, dialect: Dialect, unwritten: readonly ClaimOutcome[]): Promise<readonly string[]> {
  if (dialect.engine === 'sqlite') {
    const params: unknown[] = [];
    const text = outcomesInsert(dialect, params, unwritten, true, false);
    dialect.prepare(text);
    try {
      await trx.executeQuery(CompiledQuery.raw(text, params));
      return unwritten.map(({ claim }) => claim.token);
    } catch (error) {
      // SQLite undoes the failed statement alone; the transaction goes on.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  const params: unknown[] = [];
  const text = outcomesInsert(dialect, params, unwritten);
  dialect.prepare(text);
  const { rows } = await trx.executeQuery<{ claim_token: string }>(CompiledQuery.raw(text, params));
  return rows.map((r) => r.claim_token);
}

/**
 * Records claims' outcomes in the work's own transaction (one claim, or a round's: donations.batches.ts),
 * in a statement or two instead of one round trip each while the round's funds are locked. Each
 * claim is its own compare-and-set: one taken over (or, unwritten, recorded first by another
 * request) is `false` and the others are recorded.
 */
export async function recordClaimOutcomes(trx: Trx, outcomes: readonly ClaimOutcome[]): Promise<boolean[]> {
  const dialect = dialectOf(trx);
  const recorded = new Set<string>();
  const { held, unwritten } = byRecord(outcomes);
  if (held.length > 0) {
    const params: unknown[] = [];
    const text = outcomesUpdate(dialect, params, held);
    dialect.prepare(text);
    const { rows } = await trx.executeQuery<{ claim_token: string }>(CompiledQuery.raw(text, params));
    for (const r of rows) recorded.add(r.claim_token);
  }
  if (unwritten.length > 0) {
    for (const token of await insertOutcomes(trx, dialect, unwritten)) recorded.add(token);
  }
  // A claim's token is a random UUID of its own: a record that holds it was written for that claim.
  return outcomes.map(({ claim }) => recorded.has(claim.token));
}

/**
 * The answer of a claim that was unwritten when its request began: inserted with its record when
 * the work wrote none (it was refused), else set on the record the work wrote under its token; a
 * key another request recorded is left as it is.
 */
export async function upsertAnswer(db: Db, claim: IdempotencyClaim, answer: StoredAnswer): Promise<void> {
  const unwritten = claim.unwritten;
  assert(unwritten !== undefined, 'a claim that was unwritten');
  await db
    .insertInto('idempotency_keys')
    .values({
      user_id: claim.user_id,
      key: claim.key,
      request_hash: unwritten.requestHash,
      state: 'done',
      locked_until: unwritten.lockedUntil,
      created_at: unwritten.at,
      claim_token: claim.token,
      resource: null,
      response_status: answer.status,
      response_body: answer.response,
    })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'key'])
        .doUpdateSet({ state: 'done', response_status: answer.status, response_body: answer.response })
        .where('idempotency_keys.claim_token', '=', claim.token),
    )
    .execute();
}
