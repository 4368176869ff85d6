// Every function of admin.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine } from '../../../test/harness.ts';
import * as store from './admin.store.ts';

describeEachEngine('admin store', (env) => {
  test('insertAdminToken, then findAdminToken by hash until the token is revoked', async () => {
    const { db } = env().deps;
    const id = await store.insertAdminToken(db, { name: 'ops', token_hash: 'admin-hash', last4: 'hash', created_at: '2026-01-01T00:00:00Z' });
    assert.deepEqual(await store.findAdminToken(db, 'admin-hash'), { id, name: 'ops' });
    assert.equal(await store.findAdminToken(db, 'other-hash'), undefined);
    await db.updateTable('admin_tokens').set({ revoked_at: '2026-01-02T00:00:00Z' }).where('id', '=', id).execute();
    assert.equal(await store.findAdminToken(db, 'admin-hash'), undefined);
  });
});
