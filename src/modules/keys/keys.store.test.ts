// Every function of keys.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import { sandboxUserFor } from '../users/index.ts';
import * as store from './keys.store.ts';

describeEachEngine('keys store', (env) => {
  const key = (userId: number, hash: string, mode = 'live') => ({
    user_id: userId,
    name: `key ${hash}`,
    key_hash: hash,
    last4: hash.slice(-4),
    mode,
    created_at: '2026-01-01T00:00:00Z',
  });

  test('insertKey and listKeys (newest first, never revoked ones); revokeKey raises the auth epoch', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const a = await store.insertKey(db, key(user.user_id, 'hash-aaaa'));
    const b = await store.insertKey(db, key(user.user_id, 'hash-bbbb'));
    assert.deepEqual(a, { id: a.id, name: 'key hash-aaaa', last4: 'aaaa', mode: 'live', created_at: '2026-01-01T00:00:00Z', last_used_at: null });
    const listed = await store.listKeys(db, user.user_id);
    assert.deepEqual(
      listed.filter((k) => k.id === a.id || k.id === b.id).map((k) => k.id),
      [b.id, a.id],
    );
    const before = await store.authEpoch(db);
    assert.equal(await store.revokeKey(db, user.user_id, a.id, '2026-01-02T00:00:00Z'), true);
    assert.equal(await store.revokeKey(db, user.user_id, a.id, '2026-01-02T00:00:00Z'), false, 'revoked once');
    assert.equal(await store.revokeKey(db, user.user_id + 1, b.id, '2026-01-02T00:00:00Z'), false, "never another user's key");
    assert.equal(await store.authEpoch(db), before + 1);
    assert.ok(!(await store.listKeys(db, user.user_id)).some((k) => k.id === a.id));
    await db.transaction().execute((trx) => store.bumpAuthEpoch(trx));
    assert.equal(await store.authEpoch(db), before + 2);
  });

  test("findKeyHolder: a key of its user's book acts for them; a twin stops with its suspended owner", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    await store.insertKey(db, key(user.user_id, 'caller-live'));
    const caller = await store.findKeyHolder(db, 'caller-live');
    assert.deepEqual({ ...caller, key_id: 0 }, { key_id: 0, user_id: user.user_id, mode: 'live', book: 'live', own_status: 'active', owner_status: null, last_used_at: null });
    await store.insertKey(db, key(user.user_id, 'caller-mismatch', 'test'));
    assert.equal(await store.findKeyHolder(db, 'caller-mismatch'), undefined, 'a test key on a live user is no key');
    const twin = await db.transaction().execute((trx) => sandboxUserFor(env().deps, user.user_id, trx));
    assert.equal(await store.bookOfUser(db, twin), 'test');
    assert.equal(await store.bookOfUser(db, user.user_id), 'live');
    assert.equal(await store.bookOfUser(db, 999_999), undefined);
    await store.insertKey(db, key(twin, 'caller-twin', 'test'));
    assert.equal((await store.findKeyHolder(db, 'caller-twin'))?.owner_status, 'active');
    await db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.user_id).execute();
    assert.equal((await store.findKeyHolder(db, 'caller-twin'))?.owner_status, 'suspended');
    assert.equal(await store.findKeyHolder(db, 'no-such-hash'), undefined);
  });

  test('touchKey writes last_used_at only when it is older than notBefore', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const k = await store.insertKey(db, key(user.user_id, 'touch'));
    const lastUsed = async () => (await db.selectFrom('api_keys').select('last_used_at').where('id', '=', k.id).executeTakeFirstOrThrow()).last_used_at;
    await store.touchKey(db, k.id, '2026-01-01T10:00:00Z', '2026-01-01T09:00:00Z');
    assert.equal(await lastUsed(), '2026-01-01T10:00:00Z');
    await store.touchKey(db, k.id, '2026-01-01T10:30:00Z', '2026-01-01T09:30:00Z');
    assert.equal(await lastUsed(), '2026-01-01T10:00:00Z', 'written within the interval: kept');
    await store.touchKey(db, k.id, '2026-01-01T12:00:00Z', '2026-01-01T11:00:00Z');
    assert.equal(await lastUsed(), '2026-01-01T12:00:00Z');
  });
});
