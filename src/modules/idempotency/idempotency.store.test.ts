// Every function of idempotency.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import { isExpectationFailed, rowsStatement, runIfAllRows } from '../../db/bulk.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Db } from '../../db/database.ts';
import { sql } from 'kysely';
import * as store from './idempotency.store.ts';

/** A claim as the HTTP layer makes it, its lock running out a minute after it was made. */
function newClaim(claim: store.IdempotencyClaim): store.NewClaim {
  return { claim, requestHash: 'hash', lockedUntil: '2026-01-01T00:01:00Z', at: '2026-01-01T00:00:00Z' };
}

/** A guard that always holds (the auth epoch, unchanged): the claims alone decide. */
const holds = rowsStatement(
  () => '',
  () => 'update auth_epoch set epoch = epoch where id = 1 returning id, epoch as value',
);

/** PostgreSQL: a guarded write of the claims' outcomes alone (claimOutcomesStatements), as a round of the writer makes it. */
function writeOutcomes(db: Db, outcomes: readonly store.ClaimOutcome[]) {
  return runIfAllRows(db, holds, 1, [], 'the claims are held', undefined, { statements: store.claimOutcomesStatements(outcomes), rows: outcomes.length });
}

describeEachEngine('idempotency store', (env) => {
  test('claimOutcomesStatements, in a guarded write, lets it write only while every claim still holds its key', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    const user = await makeUser(env().deps);
    const claims = ['g1', 'g2'].map((key) => ({ user_id: user.user_id, key, token: `token-${key}` }));
    assert.deepEqual(await store.insertClaims(db, claims.map(newClaim)), [true, true]);
    const outcomes = claims.map((claim, i) => ({ claim, resource: `donation:${i + 1}` }));
    if (engine !== 'postgres') {
      assert.throws(() => store.claimOutcomesStatements(outcomes)[0]?.text('sqlite', []), /PostgreSQL only/);
      return;
    }
    const write = (of: typeof outcomes) => writeOutcomes(db, of);
    const states = async () => Promise.all(claims.map(async (c) => (await store.findRecord(db, c.user_id, c.key))?.state));
    // The second claim was taken over: nothing is recorded, the first claim's neither.
    await assert.rejects(write([outcomes[0]!, { ...outcomes[1]!, claim: { ...claims[1]!, token: 'an-older-attempt' } }]), (error) => isExpectationFailed(error));
    assert.deepEqual(await states(), ['in_progress', 'in_progress']);
    await write(outcomes);
    assert.deepEqual(await states(), ['committed', 'committed']);
    assert.equal((await store.findRecord(db, user.user_id, 'g2'))?.resource, 'donation:2');
  });

  test('a key another request recorded first: the guarded write fails as a whole, the locked transaction refuses that key alone', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    const user = await makeUser(env().deps);
    const unwritten = (key: string, token: string) => ({
      claim: { user_id: user.user_id, key, token, unwritten: { requestHash: 'hash', at: '2026-01-01T00:00:00Z', lockedUntil: '2026-01-01T00:01:00Z' } },
      resource: `donation:${token}`,
    });
    assert.deepEqual(await store.insertClaims(db, [newClaim({ user_id: user.user_id, key: 'taken', token: 'first' })]), [true]);
    // The locked transaction (every round on SQLite, a failed guarded write's on PostgreSQL): the
    // key recorded first is refused alone, the other recorded.
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [unwritten('locked', 'l'), unwritten('taken', 'b')])), [true, false]);
    assert.equal((await store.findRecord(db, user.user_id, 'locked'))?.resource, 'donation:l');
    assert.equal((await store.findRecord(db, user.user_id, 'taken'))?.claim_token, 'first', 'the first record is left as it was');
    if (engine !== 'postgres') return;
    const write = (of: ReturnType<typeof unwritten>[]) => writeOutcomes(db, of);
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('idempotency_keys')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('user_id', '=', user.user_id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    // A replay or a race: the key is recorded already. The write fails as a whole (the writer then
    // decides the round in its locked transaction, which refuses that request alone).
    await assert.rejects(write([unwritten('fresh', 'a'), unwritten('taken', 'b')]), isUniqueViolation);
    assert.equal(await count(), 2, 'nothing of the round was recorded');
    assert.equal((await store.findRecord(db, user.user_id, 'taken'))?.claim_token, 'first', 'the first record is left as it was');
    // The same key twice in one round fails it too.
    await assert.rejects(write([unwritten('twice', 'c'), unwritten('twice', 'd')]), isUniqueViolation);
    assert.equal(await count(), 2);
    await write([unwritten('fresh', 'a'), unwritten('other', 'e')]);
    assert.deepEqual(
      (await Promise.all(['fresh', 'other'].map((k) => store.findRecord(db, user.user_id, k)))).map((r) => [r?.state, r?.resource]),
      [
        ['committed', 'donation:a'],
        ['committed', 'donation:e'],
      ],
    );
  });

  test('recordClaimOutcomes records each held claim in one statement, and refuses only the claims taken over', async () => {
    const { db } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    const claims = [
      { user_id: a.user_id, key: 'same "key"', token: 'ta' },
      { user_id: b.user_id, key: 'same "key"', token: 'tb' },
      { user_id: a.user_id, key: 'other', token: 'old' },
      { user_id: b.user_id, key: 'k\u2028é', token: 'tc' },
    ];
    assert.deepEqual(await store.insertClaims(db, claims.map(newClaim)), [true, true, true, true]);
    // The third claim's attempt died and another took the key over.
    assert.equal(await store.takeOver(db, { ...claims[2]!, token: 'new' }, '2026-01-01T00:05:00Z', '2026-01-01T00:02:00Z'), true);
    const recorded = await db.transaction().execute((trx) =>
      store.recordClaimOutcomes(
        trx,
        claims.map((claim, i) => ({ claim, resource: `donation:${i + 1}` })),
      ),
    );
    assert.deepEqual(recorded, [true, true, false, true]);
    const rows = await Promise.all(claims.map((c) => store.findRecord(db, c.user_id, c.key)));
    assert.deepEqual(
      rows.map((r) => [r?.state, r?.resource, r?.claim_token]),
      [
        ['committed', 'donation:1', 'ta'],
        ['committed', 'donation:2', 'tb'],
        ['in_progress', null, 'new'],
        ['committed', 'donation:4', 'tc'],
      ],
    );
    // Recorded once: a second try finds none of them in progress.
    assert.deepEqual(
      await db.transaction().execute((trx) =>
        store.recordClaimOutcomes(trx, [
          { claim: claims[0]!, resource: 'donation:9' },
          { claim: claims[1]!, resource: 'donation:9' },
        ]),
      ),
      [false, false],
    );
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [])), []);
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [{ claim: { ...claims[2]!, token: 'new' }, resource: 'donation:3' }])), [true]);
  });

  test('insertClaims once per key; findRecord; takeOver only after the lock ran out; recordClaimOutcomes only for the holder', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const first = { user_id: user.user_id, key: 'k1', token: 't1' };
    assert.deepEqual(await store.insertClaims(db, [newClaim(first)]), [true]);
    assert.deepEqual(await store.insertClaims(db, [newClaim({ ...first, token: 't2' })]), [false]);
    assert.deepEqual(
      { state: (await store.findRecord(db, user.user_id, 'k1'))?.state, token: (await store.findRecord(db, user.user_id, 'k1'))?.claim_token },
      { state: 'in_progress', token: 't1' },
    );
    assert.equal(await store.findRecord(db, user.user_id, 'nope'), undefined);
    const second = { ...first, token: 't2' };
    assert.equal(await store.takeOver(db, second, '2026-01-01T00:03:00Z', '2026-01-01T00:00:30Z'), false, 'still held');
    assert.equal(await store.takeOver(db, second, '2026-01-01T00:03:00Z', '2026-01-01T00:02:00Z'), true);
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [{ claim: first, resource: 'donation:1' }])), [false], 'the old holder lost it');
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [{ claim: second, resource: 'donation:1' }])), [true]);
    const committed = await store.findRecord(db, user.user_id, 'k1');
    assert.deepEqual([committed?.state, committed?.resource], ['committed', 'donation:1']);
    await store.storeResponses(db, [{ claim: second, status: 201, response: '{"id":1}' }]);
    const done = await store.findRecord(db, user.user_id, 'k1');
    assert.deepEqual([done?.state, done?.response_status, done?.response_body], ['done', 201, '{"id":1}']);
  });

  test('release frees only an in-progress claim of its token; clearExpired forgets records older than the window', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const claim = { user_id: user.user_id, key: 'k2', token: 'a' };
    await store.insertClaims(db, [newClaim(claim)]);
    await store.release(db, { ...claim, token: 'other' });
    assert.notEqual(await store.findRecord(db, user.user_id, 'k2'), undefined);
    await store.release(db, claim);
    assert.equal(await store.findRecord(db, user.user_id, 'k2'), undefined);
    await store.insertClaims(db, [newClaim(claim)]);
    await store.clearExpired(db, user.user_id, 'k2', '2026-01-01T00:00:00Z');
    assert.notEqual(await store.findRecord(db, user.user_id, 'k2'), undefined, 'not older than the window');
    await store.clearExpired(db, user.user_id, 'k2', '2026-01-02T00:00:00Z');
    assert.equal(await store.findRecord(db, user.user_id, 'k2'), undefined);
  });

  test('insertClaims claims many keys in one statement: each new key is claimed, a recorded one is not, and of two claims of one key in the statement only the first', async () => {
    const { db } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    assert.deepEqual(await store.insertClaims(db, [newClaim({ user_id: a.user_id, key: 'taken', token: 'first' })]), [true]);
    const claims = [
      { user_id: a.user_id, key: 'taken', token: 'late' },
      { user_id: a.user_id, key: 'new "one"\n', token: 'n1' },
      { user_id: b.user_id, key: 'taken', token: 'b1' },
      { user_id: a.user_id, key: 'twice', token: 'w1' },
      { user_id: a.user_id, key: 'twice', token: 'w2' },
    ];
    const before = await db
      .selectFrom('idempotency_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.deepEqual(await store.insertClaims(db, claims.map(newClaim)), [false, true, true, true, false]);
    const after = await db
      .selectFrom('idempotency_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n) - Number(before.n), 3);
    const record = await store.findRecord(db, a.user_id, 'new "one"\n');
    assert.deepEqual(
      [record?.state, record?.claim_token, record?.request_hash, record?.locked_until, record?.created_at],
      ['in_progress', 'n1', 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z'],
    );
    assert.equal((await store.findRecord(db, a.user_id, 'taken'))?.claim_token, 'first', 'a recorded key is left as it was');
    assert.equal((await store.findRecord(db, a.user_id, 'twice'))?.claim_token, 'w1');
  });

  test('storeResponses stores many answers in one statement, each only where its claim still holds the key', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const claims = ['s1', 's2', 's3'].map((key) => ({ user_id: user.user_id, key, token: `t-${key}` }));
    await store.insertClaims(db, claims.map(newClaim));
    await store.storeResponses(db, [
      { claim: claims[0]!, status: 201, response: '{"id":1,"note":"\u2028 \\"quoted\\""}' },
      { claim: { ...claims[1]!, token: 'taken-over' }, status: 201, response: '{"id":2}' },
      { claim: claims[2]!, status: 404, response: '{"code":"non_profit_not_found"}' },
    ]);
    const rows = await Promise.all(claims.map((c) => store.findRecord(db, c.user_id, c.key)));
    assert.deepEqual(
      rows.map((r) => [r?.state, r?.response_status, r?.response_body]),
      [
        ['done', 201, '{"id":1,"note":"\u2028 \\"quoted\\""}'],
        ['in_progress', null, null],
        ['done', 404, '{"code":"non_profit_not_found"}'],
      ],
    );
  });

  test('insertClaims commits without waiting for the disk on PostgreSQL, for its own transaction only, and is refused inside another', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    const user = await makeUser(env().deps);
    const claim = { user_id: user.user_id, key: 'not-waited', token: 'nw' };
    await assert.rejects(
      db.transaction().execute((trx) => store.insertClaims(trx, [newClaim(claim)])),
      /a transaction of their own/,
    );
    if (engine !== 'postgres') return;
    // The same connection afterwards: a later statement there (a round of donations) still waits for its commit to be durable.
    const after = await db.connection().execute(async (conn) => {
      assert.deepEqual(await store.insertClaims(conn, [newClaim(claim)]), [true]);
      return (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(conn)).rows[0]?.synchronous_commit;
    });
    assert.equal(after, 'on');
  });
  test('unwritten claims are recorded by the work: inserted with outcome and answer, the first of a key winning, beside held ones', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const unwritten = { requestHash: 'h', at: '2026-01-01T00:00:00Z', lockedUntil: '2026-01-01T00:01:00Z' };
    const held = { user_id: user.user_id, key: 'held', token: 'th' };
    assert.deepEqual(await store.insertClaims(db, [newClaim(held)]), [true]);
    const fresh = { user_id: user.user_id, key: 'fresh', token: 'tf', unwritten };
    const twin = { user_id: user.user_id, key: 'fresh', token: 'tw', unwritten };
    const plain = { user_id: user.user_id, key: 'plain', token: 'tp', unwritten };
    const answer = { status: 201, response: '{"value":{"id":1}}' };
    const recorded = await db.transaction().execute((trx) =>
      store.recordClaimOutcomes(trx, [
        { claim: held, resource: 'donation:1', answer },
        { claim: fresh, resource: 'donation:2', answer },
        { claim: twin, resource: 'donation:3', answer },
        { claim: plain, resource: 'donation:4' },
      ]),
    );
    assert.deepEqual(recorded, [true, true, false, true]);
    const rows = await Promise.all(['held', 'fresh', 'plain'].map((key) => store.findRecord(db, user.user_id, key)));
    assert.deepEqual(
      rows.map((r) => [r?.state, r?.resource, r?.claim_token, r?.response_status, r?.request_hash]),
      [
        ['done', 'donation:1', 'th', 201, 'hash'],
        ['done', 'donation:2', 'tf', 201, 'h'],
        ['committed', 'donation:4', 'tp', null, 'h'],
      ],
    );
    // Recorded once: the same unwritten claim a second time finds the key recorded.
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [{ claim: fresh, resource: 'donation:5' }])), [false]);
  });

  test('upsertAnswer: a refused unwritten claim is recorded with its answer, a recorded one answered, another holder left alone', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const unwritten = { requestHash: 'h', at: '2026-01-01T00:00:00Z', lockedUntil: '2026-01-01T00:01:00Z' };
    const refused = { user_id: user.user_id, key: 'refused', token: 'tr', unwritten };
    await store.upsertAnswer(db, refused, { status: 422, response: 'no' });
    const made = { user_id: user.user_id, key: 'made', token: 'tm', unwritten };
    await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, [{ claim: made, resource: 'donation:1' }]));
    await store.upsertAnswer(db, made, { status: 201, response: 'yes' });
    await store.upsertAnswer(db, { ...made, token: 'another attempt' }, { status: 409, response: 'in use' });
    const rows = await Promise.all(['refused', 'made'].map((key) => store.findRecord(db, user.user_id, key)));
    assert.deepEqual(
      rows.map((r) => [r?.state, r?.resource, r?.response_status, r?.response_body]),
      [
        ['done', null, 422, 'no'],
        ['done', 'donation:1', 201, 'yes'],
      ],
    );
  });
});
