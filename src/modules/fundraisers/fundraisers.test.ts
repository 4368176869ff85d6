// The rules of fundraisers (fundraisers.ts): when one is open, its dates, its progress.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkedDates, progress, statusOn } from './fundraisers.ts';
import { AppError } from '../../shared/errors.ts';

test('open from its first day to its last, inclusive, unless ended', () => {
  const f = { starts_on: '2026-12-01', ends_on: '2026-12-31', ended_at: null };
  assert.equal(statusOn(f, '2026-11-30'), 'upcoming');
  assert.equal(statusOn(f, '2026-12-01'), 'open');
  assert.equal(statusOn(f, '2026-12-31'), 'open');
  assert.equal(statusOn(f, '2027-01-01'), 'ended');
  assert.equal(statusOn({ ...f, ends_on: null }, '2030-01-01'), 'open', 'no last day: open until ended');
  assert.equal(statusOn({ ...f, ended_at: '2026-12-02T00:00:00Z' }, '2026-12-02'), 'ended');
});

test('dates: the first defaults to today; calendar days only; the last not before the first nor today', () => {
  assert.deepEqual(checkedDates(undefined, undefined, '2026-11-29'), { starts_on: '2026-11-29', ends_on: null });
  assert.deepEqual(checkedDates('2026-12-01', '2026-12-01', '2026-11-29'), { starts_on: '2026-12-01', ends_on: '2026-12-01' });
  const field = (f: () => unknown) => {
    try {
      f();
    } catch (error) {
      assert.ok(error instanceof AppError);
      return [error.code, error.errors?.[0]?.field];
    }
    return 'accepted';
  };
  assert.deepEqual(
    field(() => checkedDates('2026-02-30', undefined, '2026-01-01')),
    ['validation_failed', 'starts_on'],
  );
  assert.deepEqual(
    field(() => checkedDates(undefined, '2026-13-01', '2026-01-01')),
    ['validation_failed', 'ends_on'],
  );
  assert.deepEqual(
    field(() => checkedDates('2026-12-05', '2026-12-04', '2026-11-29')),
    ['validation_failed', 'ends_on'],
  );
  assert.deepEqual(
    field(() => checkedDates(undefined, '2026-11-28', '2026-11-29')),
    ['validation_failed', 'ends_on'],
  );
  assert.deepEqual(
    field(() => checkedDates('2024-02-29', undefined, '2024-01-01')),
    'accepted',
    'a leap day is a day',
  );
});

test('progress: donations and offline, whole percent of the goal, at most 100', () => {
  assert.deepEqual(progress(150_00, 100_00, 1_000_00), { raised_cents: 250_00, percent: 25 });
  assert.deepEqual(progress(999_99, 0, 1_000_00), { raised_cents: 999_99, percent: 99 }, 'rounded down: not 100 before it is');
  assert.deepEqual(progress(2_000_00, 0, 1_000_00), { raised_cents: 2_000_00, percent: 100 });
});
