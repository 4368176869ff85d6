// The pure rules of donations.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { covered, initialStatus } from './donations.ts';

test('covered: oldest first, each that fits what the ones before it left; a large one does not stop smaller, younger ones', () => {
  assert.deepEqual(covered([500, 300, 200], 1_000), [true, true, true], 'exactly all');
  assert.deepEqual(covered([500, 300, 200], 999), [true, true, false]);
  assert.deepEqual(covered([800, 500, 100, 150], 1_000), [true, false, true, false], 'the 500 does not fit after the 800; the 100 does; then 100 left');
  assert.deepEqual(covered([2_000, 100], 1_000), [false, true], 'too large for it all: the younger, smaller one still goes');
  assert.deepEqual(covered([1], 0), [false]);
  assert.deepEqual(covered([], 5_000), []);
});

test('initialStatus: scheduled when the fund can hold it now, else waiting', () => {
  assert.equal(initialStatus(1_000, 1_000), 'scheduled');
  assert.equal(initialStatus(999, 1_000), 'waiting_for_funds');
});
