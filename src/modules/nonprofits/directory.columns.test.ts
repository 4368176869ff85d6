// The held directory's columns (directory.columns.ts): the lowest of a word's users found without
// sorting them all is the first `limit` of the sorted list, whatever the limit and the spread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { lowest } from './directory.columns.ts';

test('lowest(): the first `limit` of the values in ascending order, as a set; all of them when they fit', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(1, 100, 4_096, 5_000, 2_000_000, 2 ** 31 - 1),
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: 0, max: 400 }),
      fc.nat(),
      (bound, count, limit, seed) => {
        // Distinct values below `bound`, spread or bunched in one bucket.
        const values = new Set<number>();
        for (let i = 0; values.size < Math.min(count, bound) && i < 10 * count; i++) values.add((seed + i * (i % 3 === 0 ? 1 : 7_919)) % bound);
        const given = Int32Array.from(values);
        const got = [...lowest(given, limit, bound)].sort((a, b) => a - b);
        assert.deepEqual(got, [...values].sort((a, b) => a - b).slice(0, limit));
        // The reused counts are left at zero: a second call answers alike.
        assert.deepEqual(
          [...lowest(given, limit, bound)].sort((a, b) => a - b),
          got,
        );
      },
    ),
    { numRuns: 500 },
  );
});
