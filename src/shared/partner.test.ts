import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedMetadata, externalIdOf, metadataOf, metadataProblem, metadataToStore } from './partner.ts';

test('metadata: at most 50 keys of 1 to 40 characters, string values of at most 500', () => {
  const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
  assert.equal(metadataProblem(fifty), undefined);
  assert.match(metadataProblem({ ...fifty, k50: 'v' }) ?? '', /at most 50 keys/);
  assert.equal(metadataProblem({ ['k'.repeat(40)]: 'v' }), undefined);
  assert.match(metadataProblem({ ['k'.repeat(41)]: 'v' }) ?? '', /1 to 40 characters/);
  assert.match(metadataProblem({ '': 'v' }) ?? '', /1 to 40 characters/);
  assert.equal(metadataProblem({ k: 'v'.repeat(500) }), undefined);
  assert.match(metadataProblem({ k: 'v'.repeat(501) }) ?? '', /at most 500/);
  for (const bad of [{ k: 1 }, { k: null }, { k: { a: 'b' } }, { k: true }]) assert.match(metadataProblem(bad) ?? '', /must be a string/);
  for (const bad of [[], 'text', null, 5]) assert.match(metadataProblem(bad) ?? '', /object of strings/);
});

test('metadata is stored as JSON text; a change sets keys and "" removes one; none is null', () => {
  assert.equal(metadataToStore(undefined), null);
  assert.equal(metadataToStore({}), null);
  const stored = metadataToStore({ campaign: 'spring', ref: 'A1' });
  assert.deepEqual(metadataOf(stored), { campaign: 'spring', ref: 'A1' });
  const changed = changedMetadata(stored, { ref: '', source: 'wheel' });
  assert.deepEqual(metadataOf(changed), { campaign: 'spring', source: 'wheel' });
  assert.equal(changedMetadata(changed, { campaign: '', source: '' }), null);
  assert.throws(
    () => changedMetadata(stored, { bad: 3 }),
    (e: Error & { code?: string }) => e.code === 'validation_failed',
  );
  // Fifty already: a fifty-first is refused, replacing one is not.
  const full = metadataToStore(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])));
  assert.throws(() => changedMetadata(full, { extra: 'x' }), /at most 50 keys/);
  assert.equal(Object.keys(metadataOf(changedMetadata(full, { k0: 'w' }))).length, 50);
});

test('an external id is 1 to 255 characters', () => {
  assert.equal(externalIdOf(undefined), null);
  assert.equal(externalIdOf('x'.repeat(255)), 'x'.repeat(255));
  assert.throws(
    () => externalIdOf('x'.repeat(256)),
    (e: Error & { code?: string }) => e.code === 'validation_failed',
  );
  assert.throws(
    () => externalIdOf(''),
    (e: Error & { code?: string }) => e.code === 'validation_failed',
  );
});
