import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addDays, dayOf, isCalendarDay, startOfDayAfter } from './days.ts';

test('a calendar day exists: leap years, the 30th of February, the 13th month, and the form', () => {
  for (const day of ['2024-02-29', '2000-02-29', '2026-02-28', '2026-12-31', '1999-01-01']) assert.equal(isCalendarDay(day), true, day);
  for (const day of [
    '2026-02-29',
    '1900-02-29',
    '2026-02-30',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-05',
    '2026-01-5',
    '20260105',
    ' 2026-01-05',
    '2026-01-05T00:00:00Z',
    '',
  ])
    assert.equal(isCalendarDay(day), false, JSON.stringify(day));
});

test('days after and before, across months, leap days and years', () => {
  assert.equal(addDays('2024-02-28', 1), '2024-02-29');
  assert.equal(addDays('2026-02-28', 1), '2026-03-01');
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
  assert.equal(addDays('2026-06-15', 0), '2026-06-15');
  assert.equal(startOfDayAfter('2026-12-31'), '2027-01-01T00:00:00.000Z');
});

test("an instant's day is its UTC calendar day, whatever the hour", () => {
  assert.equal(dayOf(new Date('2026-02-28T23:59:59.999Z')), '2026-02-28');
  assert.equal(dayOf(new Date('2024-02-29T00:00:00Z')), '2024-02-29');
  assert.equal(dayOf(new Date('2026-03-01T05:00:00+06:00')), '2026-02-28', 'an offset is read as UTC');
});
