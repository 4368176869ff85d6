// Every function of ledger.checkpoint.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine } from '../../../test/harness.ts';
import * as checkpoints from './ledger.checkpoint.store.ts';

describeEachEngine('ledger checkpoint store', (env) => {
  test('checkpoints: insert, the latest (or the latest of at most a size), one by size, a page newest first, all smallest first; cosignatures kept, a newer one replacing', async () => {
    const { db } = env().deps;
    const at = '2026-01-01T00:00:00Z';
    for (const size of [3, 7, 12])
      await db.transaction().execute((trx) => checkpoints.insertCheckpoint(trx, { book: 'test', size, root_hash: 'ab', note: `n${size}`, key: 'k', created_at: at }));
    assert.equal((await checkpoints.latestCheckpoint(db, 'test'))?.size, 12);
    assert.equal((await checkpoints.latestCheckpoint(db, 'test', 10))?.size, 7);
    assert.equal(await checkpoints.latestCheckpoint(db, 'live', 0), undefined);
    assert.equal((await checkpoints.checkpointOf(db, 'test', 7))?.note, 'n7');
    assert.equal(await checkpoints.checkpointOf(db, 'test', 8), undefined);
    const page = await checkpoints.checkpointPage(db, 'test', 2, 0);
    assert.deepEqual([page.count, page.rows.map((r) => r.size)], [3, [12, 7]]);
    assert.deepEqual(
      (await checkpoints.allCheckpoints(db, 'test')).map((r) => r.size),
      [3, 7, 12],
    );
    await checkpoints.saveCosignature(db, { book: 'test', size: 7, witness: 'w', line: 'old\n', created_at: at });
    await checkpoints.saveCosignature(db, { book: 'test', size: 7, witness: 'w', line: 'new\n', created_at: at });
    assert.deepEqual([...(await checkpoints.cosignaturesOf(db, 'test', [7, 12])).entries()], [[7, [{ witness: 'w', line: 'new\n' }]]]);
    assert.equal((await checkpoints.cosignaturesOf(db, 'test', [])).size, 0);
  });

  test('made keys: the one the platform made at its start, then the newest current one; madeKeys lists them all', async () => {
    const { db } = env().deps;
    const first = await checkpoints.currentMadeKey(db);
    assert.ok(first !== undefined, 'a platform with no configured key made one when it opened');
    await checkpoints.insertMadeKey(db, { name: 'a/ledger', private_key: 'pem-1', created_at: '2026-01-01T00:00:00Z' });
    await checkpoints.insertMadeKey(db, { name: 'a/ledger', private_key: 'pem-2', created_at: '2026-01-02T00:00:00Z' });
    assert.equal((await checkpoints.currentMadeKey(db))?.private_key, 'pem-2');
    assert.deepEqual(
      (await checkpoints.madeKeys(db)).map((k) => k.private_key),
      [first.private_key, 'pem-1', 'pem-2'],
    );
  });
});
