// Every function of audit.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine } from '../../../test/harness.ts';
import * as store from './audit.store.ts';

describeEachEngine('audit store', (env) => {
  test("recordAudit returns the entry's id; listAudit pages one book, newest first, by object", async () => {
    const { db } = env().deps;
    const entry = (book: 'live' | 'test', object_id: number, action: string) => ({
      book,
      actor: 'cli:ops',
      action,
      object_type: 'user',
      object_id,
      before: { status: 'active' },
      after: undefined,
      at: '2026-01-01T00:00:00Z',
    });
    const ids = await db
      .transaction()
      .execute(async (trx) => [
        await store.recordAudit(trx, entry('live', 1, 'user.suspend')),
        await store.recordAudit(trx, entry('live', 2, 'user.suspend')),
        await store.recordAudit(trx, entry('live', 1, 'user.reactivate')),
        await store.recordAudit(trx, entry('test', 1, 'user.suspend')),
      ]);
    assert.ok(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0)));
    const live = await store.listAudit(db, 'live', {}, { page: 1, per_page: 50 });
    assert.deepEqual(
      live.map((r) => r.id),
      [ids[2], ids[1], ids[0]],
    );
    assert.equal(live[0]?.before, JSON.stringify({ status: 'active' }));
    assert.equal(live[0]?.after, null);
    const ofOne = await store.listAudit(db, 'live', { object_type: 'user', object_id: 1 }, { page: 1, per_page: 50 });
    assert.deepEqual(
      ofOne.map((r) => r.action),
      ['user.reactivate', 'user.suspend'],
    );
    assert.deepEqual(
      (await store.listAudit(db, 'live', {}, { page: 2, per_page: 2 })).map((r) => r.id),
      [ids[0]],
    );
    assert.deepEqual(
      (await store.listAudit(db, 'test', {}, { page: 1, per_page: 50 })).map((r) => r.id),
      [ids[3]],
    );
    assert.deepEqual(await store.listAudit(db, 'live', { object_type: 'gift' }, { page: 1, per_page: 50 }), []);
  });

  test('recordAudits writes many entries at once, each as recordAudit would', async () => {
    const { db } = env().deps;
    const entries = [1, 2, 3].map((n) => ({
      book: 'test' as const,
      actor: 'cli:bulk',
      action: 'donation.pay',
      object_type: 'donation',
      object_id: 7_000 + n,
      before: { status: 'approved' },
      after: n === 3 ? undefined : { status: 'completed' },
      at: '2026-02-01T00:00:00Z',
    }));
    await db.transaction().execute((trx) => store.recordAudits(trx, entries));
    const written = await store.listAudit(db, 'test', { object_type: 'donation' }, { page: 1, per_page: 50 });
    assert.deepEqual(
      written.map((r) => [r.actor, r.action, r.object_id, r.before, r.after, r.created_at]).sort(),
      entries.map((e) => ['cli:bulk', 'donation.pay', e.object_id, JSON.stringify(e.before), e.after === undefined ? null : JSON.stringify(e.after), e.at]).sort(),
    );
    await db.transaction().execute((trx) => store.recordAudits(trx, []));
    assert.equal((await store.listAudit(db, 'test', { object_type: 'donation' }, { page: 1, per_page: 50 })).length, 3, 'none is no statement');
  });
});
