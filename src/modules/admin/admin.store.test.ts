// Every function of admin.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine } from '../../../test/harness.ts';
import * as store from './admin.store.ts';

describeEachEngine('admin store', (env) => {
  const token = (name: string, hash: string, expires_at: string | null = null) => ({
    name,
    operator: `person of ${name}`,
    token_hash: hash,
    last4: hash.slice(-4),
    created_at: '2026-01-01T00:00:00Z',
    expires_at,
  });

  test('insertAdminToken, then findAdminToken by hash while it is neither revoked nor expired; listAdminTokens; revokeAdminToken once', async () => {
    const { db } = env().deps;
    const id = await store.insertAdminToken(db, token('ops', 'admin-hash'));
    const soon = await store.insertAdminToken(db, token('temp', 'temp-hash', '2026-02-01T00:00:00Z'));
    assert.deepEqual(await store.findAdminToken(db, 'admin-hash', '2026-01-15T00:00:00Z'), { id, name: 'ops', operator: 'person of ops', last_used_at: null });
    assert.equal(await store.findAdminToken(db, 'other-hash', '2026-01-15T00:00:00Z'), undefined);
    assert.equal((await store.findAdminToken(db, 'temp-hash', '2026-01-31T23:59:59Z'))?.id, soon);
    assert.equal(await store.findAdminToken(db, 'temp-hash', '2026-02-01T00:00:00Z'), undefined, 'expired at its expiry');
    const listed = await store.listAdminTokens(db);
    assert.deepEqual(
      listed.slice(0, 2).map((t) => [t.id, t.name, t.expires_at]),
      [
        [soon, 'temp', '2026-02-01T00:00:00Z'],
        [id, 'ops', null],
      ],
    );
    assert.ok(!('token_hash' in (listed[0] ?? {})), 'never the hash');
    const revoked = await db.transaction().execute((trx) => store.revokeAdminToken(trx, id, '2026-01-16T00:00:00Z'));
    assert.equal(revoked?.name, 'ops');
    assert.equal(await db.transaction().execute((trx) => store.revokeAdminToken(trx, id, '2026-01-17T00:00:00Z')), undefined, 'once');
    assert.equal(await store.findAdminToken(db, 'admin-hash', '2026-01-16T00:00:01Z'), undefined);
  });

  test('touchAdminToken writes last_used_at only when older than notBefore', async () => {
    const { db } = env().deps;
    const id = await store.insertAdminToken(db, token('touch', 'touch-hash'));
    const lastUsed = async () => (await store.listAdminTokens(db)).find((t) => t.id === id)?.last_used_at;
    await store.touchAdminToken(db, id, '2026-01-01T10:00:00Z', '2026-01-01T09:59:00Z');
    assert.equal(await lastUsed(), '2026-01-01T10:00:00Z');
    await store.touchAdminToken(db, id, '2026-01-01T10:00:30Z', '2026-01-01T09:59:30Z');
    assert.equal(await lastUsed(), '2026-01-01T10:00:00Z');
    await store.touchAdminToken(db, id, '2026-01-01T10:02:00Z', '2026-01-01T10:01:00Z');
    assert.equal(await lastUsed(), '2026-01-01T10:02:00Z');
  });
});
