// Every function of idempotency.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import { isExpectationFailed, rowsStatement, runIfAllRows } from '../../db/bulk.ts';
import * as store from './idempotency.store.ts';

describeEachEngine('idempotency store', (env) => {
  test('claimOutcomesStatement, in a guarded write, lets it write only while every claim still holds its key', async () => {
    const { db, engine } = env().deps;
    const user = await makeUser(env().deps);
    const claims = ['g1', 'g2'].map((key) => ({ user_id: user.user_id, key, token: `token-${key}` }));
    for (const claim of claims) assert.equal(await store.insertClaim(db, claim, 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z'), true);
    const outcomes = claims.map((claim, i) => ({ claim, resource: `donation:${i + 1}` }));
    if (engine !== 'postgres') {
      assert.throws(() => store.claimOutcomesStatement(outcomes).text('sqlite', []), /PostgreSQL only/);
      return;
    }
    // A guard that always holds (the auth epoch, unchanged): the claims alone decide.
    const guard = rowsStatement(
      () => '',
      () => 'update auth_epoch set epoch = epoch where id = 1 returning id, epoch as value',
    );
    const write = (of: typeof outcomes) => runIfAllRows(db, guard, 1, [], 'the claims are held', undefined, { statement: store.claimOutcomesStatement(of), rows: of.length });
    const states = async () => Promise.all(claims.map(async (c) => (await store.findRecord(db, c.user_id, c.key))?.state));
    // The second claim was taken over: nothing is recorded, the first claim's neither.
    await assert.rejects(write([outcomes[0]!, { ...outcomes[1]!, claim: { ...claims[1]!, token: 'an-older-attempt' } }]), (error) => isExpectationFailed(error));
    assert.deepEqual(await states(), ['in_progress', 'in_progress']);
    await write(outcomes);
    assert.deepEqual(await states(), ['committed', 'committed']);
    assert.equal((await store.findRecord(db, user.user_id, 'g2'))?.resource, 'donation:2');
  });

  test('recordClaimOutcomes records each held claim in one statement, and refuses only the claims taken over', async () => {
    const { db, engine } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    const claims = [
      { user_id: a.user_id, key: 'same "key"', token: 'ta' },
      { user_id: b.user_id, key: 'same "key"', token: 'tb' },
      { user_id: a.user_id, key: 'other', token: 'old' },
      { user_id: b.user_id, key: 'k\u2028é', token: 'tc' },
    ];
    for (const claim of claims) assert.equal(await store.insertClaim(db, claim, 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z'), true);
    // The third claim's attempt died and another took the key over.
    assert.equal(await store.takeOver(db, { ...claims[2]!, token: 'new' }, '2026-01-01T00:05:00Z', '2026-01-01T00:02:00Z'), true);
    const recorded = await db.transaction().execute((trx) =>
      store.recordClaimOutcomes(
        trx,
        engine,
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
        store.recordClaimOutcomes(trx, engine, [
          { claim: claims[0]!, resource: 'donation:9' },
          { claim: claims[1]!, resource: 'donation:9' },
        ]),
      ),
      [false, false],
    );
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, engine, [])), []);
    assert.deepEqual(await db.transaction().execute((trx) => store.recordClaimOutcomes(trx, engine, [{ claim: { ...claims[2]!, token: 'new' }, resource: 'donation:3' }])), [true]);
  });

  test('insertClaim once per key; findRecord; takeOver only after the lock ran out; recordClaimOutcome only for the holder', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const first = { user_id: user.user_id, key: 'k1', token: 't1' };
    assert.equal(await store.insertClaim(db, first, 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z'), true);
    assert.equal(await store.insertClaim(db, { ...first, token: 't2' }, 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z'), false);
    assert.deepEqual(
      { state: (await store.findRecord(db, user.user_id, 'k1'))?.state, token: (await store.findRecord(db, user.user_id, 'k1'))?.claim_token },
      { state: 'in_progress', token: 't1' },
    );
    assert.equal(await store.findRecord(db, user.user_id, 'nope'), undefined);
    const second = { ...first, token: 't2' };
    assert.equal(await store.takeOver(db, second, '2026-01-01T00:03:00Z', '2026-01-01T00:00:30Z'), false, 'still held');
    assert.equal(await store.takeOver(db, second, '2026-01-01T00:03:00Z', '2026-01-01T00:02:00Z'), true);
    assert.equal(await db.transaction().execute((trx) => store.recordClaimOutcome(trx, first, 'donation:1')), false, 'the old holder lost it');
    assert.equal(await db.transaction().execute((trx) => store.recordClaimOutcome(trx, second, 'donation:1')), true);
    const committed = await store.findRecord(db, user.user_id, 'k1');
    assert.deepEqual([committed?.state, committed?.resource], ['committed', 'donation:1']);
    await store.storeResponse(db, second, 201, '{"id":1}');
    const done = await store.findRecord(db, user.user_id, 'k1');
    assert.deepEqual([done?.state, done?.response_status, done?.response_body], ['done', 201, '{"id":1}']);
  });

  test('release frees only an in-progress claim of its token; clearExpired forgets records older than the window', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const claim = { user_id: user.user_id, key: 'k2', token: 'a' };
    await store.insertClaim(db, claim, 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z');
    await store.release(db, { ...claim, token: 'other' });
    assert.notEqual(await store.findRecord(db, user.user_id, 'k2'), undefined);
    await store.release(db, claim);
    assert.equal(await store.findRecord(db, user.user_id, 'k2'), undefined);
    await store.insertClaim(db, claim, 'hash', '2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z');
    await store.clearExpired(db, user.user_id, 'k2', '2026-01-01T00:00:00Z');
    assert.notEqual(await store.findRecord(db, user.user_id, 'k2'), undefined, 'not older than the window');
    await store.clearExpired(db, user.user_id, 'k2', '2026-01-02T00:00:00Z');
    assert.equal(await store.findRecord(db, user.user_id, 'k2'), undefined);
  });
});
