import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isDate, occurrenceDate } from './scheduled.ts';

test('occurrences keep the start day, clamped to short months', () => {
  assert.deepEqual(
    [0, 1, 2, 3].map((n) => occurrenceDate('2026-01-31', 'Monthly', n)),
    ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30'],
  );
  assert.equal(occurrenceDate('2028-01-31', 'Monthly', 1), '2028-02-29');
  assert.deepEqual(
    [0, 1, 2].map((n) => occurrenceDate('2026-12-29', 'Weekly', n)),
    ['2026-12-29', '2027-01-05', '2027-01-12'],
  );
  assert.deepEqual(
    [1, 2, 4].map((n) => occurrenceDate('2024-02-29', 'Yearly', n)),
    ['2025-02-28', '2026-02-28', '2028-02-29'],
  );
  assert.equal(occurrenceDate('2026-05-01', 'OneTime', 3), '2026-05-01');
});

test('occurrences only move forward, one period at a time', () => {
  fc.assert(
    fc.property(
      fc.date({ min: new Date('2000-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }),
      fc.constantFrom('Weekly', 'Monthly', 'Yearly' as const),
      fc.integer({ min: 0, max: 200 }),
      (date, freq, n) => {
        const start = date.toISOString().slice(0, 10);
        const a = occurrenceDate(start, freq, n);
        const b = occurrenceDate(start, freq, n + 1);
        assert.ok(isDate(a) && isDate(b));
        assert.ok(b > a);
      },
    ),
    { numRuns: 2000 },
  );
});

test('dates are real calendar dates', () => {
  assert.equal(isDate('2026-02-28'), true);
  for (const bad of ['2026-02-30', '2026-13-01', '26-01-01', '2026-1-1', 'tomorrow']) assert.equal(isDate(bad), false, bad);
});
