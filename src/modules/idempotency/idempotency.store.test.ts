// Every function of idempotency.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './idempotency.store.ts';

describeEachEngine('idempotency store', (env) => {
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
