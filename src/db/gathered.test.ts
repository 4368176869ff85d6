// Gathered: writes asked for together go as one, each caller gets its own result, one failing item fails alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gathered } from './gathered.ts';

test('items asked for in one turn are written as one batch, each resolved with its own result', async () => {
  const writes: number[][] = [];
  const g = new Gathered<number, number>(async (items) => {
    writes.push([...items]);
    return items.map((i) => i * 10);
  });
  assert.deepEqual(await Promise.all([1, 2, 3].map((i) => g.add(i))), [10, 20, 30]);
  assert.deepEqual(writes, [[1, 2, 3]]);
  assert.deepEqual(g.stats, { writes: 1, items: 3 });
});

test('one write at a time: items asked for while one runs go together in the next', async () => {
  const writes: number[][] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const g = new Gathered<number, string>(async (items) => {
    writes.push([...items]);
    if (writes.length === 1) await held;
    return items.map(String);
  });
  const first = g.add(1);
  await new Promise((resolve) => setImmediate(resolve));
  const later = [2, 3, 4].map((i) => g.add(i));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(writes, [[1]], 'nothing more is written while the first write runs');
  release();
  assert.deepEqual(await Promise.all([first, ...later]), ['1', '2', '3', '4']);
  assert.deepEqual(writes, [[1], [2, 3, 4]]);
});

test('a batch the write refuses is written again item by item: only the bad item fails', async () => {
  const writes: number[][] = [];
  const g = new Gathered<number, number>(async (items) => {
    writes.push([...items]);
    if (items.includes(13)) throw new Error('13 refused');
    return items.map((i) => i + 1);
  });
  const results = await Promise.allSettled([12, 13, 14].map((i) => g.add(i)));
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    [13, '13 refused', 15],
  );
  assert.deepEqual(writes, [[12, 13, 14], [12], [13], [14]]);
});

test('a write that returns a result per item or not at all: a wrong count fails the batch item by item', async () => {
  const g = new Gathered<number, number>(async (items) => (items.length > 1 ? [1] : [...items]));
  assert.deepEqual(await Promise.all([5, 6].map((i) => g.add(i))), [5, 6]);
});
