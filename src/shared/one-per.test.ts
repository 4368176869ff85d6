import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onePer } from './one-per.ts';

test('onePer makes one value per owner, on first use, and keeps each owner its own', () => {
  const cache = new WeakMap<object, { n: number }>();
  const a = {};
  const b = {};
  let made = 0;
  const make = () => ({ n: ++made });
  const first = onePer(cache, a, make);
  assert.equal(onePer(cache, a, make), first, 'the same owner gets the same value');
  assert.equal(made, 1, 'made once');
  const other = onePer(cache, b, make);
  assert.notEqual(other, first, 'another owner gets its own');
  assert.deepEqual([first.n, other.n, made], [1, 2, 2]);
});
