// The banking days a run may be paid on (docs/rules.md §17): the Federal Reserve's holidays as it
// publishes them, a Sunday holiday observed on the Monday, a Saturday one not moved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bankingDayFrom, federalReserveHolidays, isBankingDay } from './payments.ts';
import { payDateProblem } from './payments.service.ts';

test("the Federal Reserve's holidays, as published for 2026, 2027 and 2022", () => {
  assert.deepEqual(
    [...federalReserveHolidays(2026)],
    ['2026-01-01', '2026-01-19', '2026-02-16', '2026-05-25', '2026-06-19', '2026-07-04', '2026-09-07', '2026-10-12', '2026-11-11', '2026-11-26', '2026-12-25'],
  );
  assert.deepEqual(
    [...federalReserveHolidays(2027)],
    ['2027-01-01', '2027-01-18', '2027-02-15', '2027-05-31', '2027-06-19', '2027-07-05', '2027-09-06', '2027-10-11', '2027-11-11', '2027-11-25', '2027-12-25'],
  );
  // 2022: Juneteenth and Christmas fell on a Sunday (observed Monday); New Year's Day on a Saturday (not moved).
  assert.ok(federalReserveHolidays(2022).has('2022-06-20') && federalReserveHolidays(2022).has('2022-12-26') && federalReserveHolidays(2022).has('2022-01-01'));
  assert.ok(!federalReserveHolidays(2021).has('2021-06-18'), 'no Juneteenth before 2022');
});

test('banking days: no weekend, no holiday; the next one from any day', () => {
  assert.equal(isBankingDay('2026-11-27'), true, 'the Friday after Thanksgiving');
  for (const day of ['2026-11-26', '2026-11-28', '2026-11-29', '2026-12-25']) assert.equal(isBankingDay(day), false, day);
  assert.equal(bankingDayFrom('2026-12-25'), '2026-12-28');
  assert.equal(bankingDayFrom('2026-12-28'), '2026-12-28');
});

test('a pay date: a banking day, today or later, at most the days allowed ahead', () => {
  const today = '2026-11-20';
  assert.equal(payDateProblem('2026-12-01', today, 30), undefined);
  assert.equal(payDateProblem('2026-11-20', today, 30), undefined, 'today');
  assert.match(payDateProblem('2026-11-19', today, 30) ?? '', /today \(2026-11-20\) or later/);
  assert.match(payDateProblem('2026-12-21', today, 30) ?? '', /at most 30 days ahead \(2026-12-20/);
  assert.match(payDateProblem('2026-11-21', today, 30) ?? '', /banking day: 2026-11-21 .* \(the next is 2026-11-23\)/);
  assert.match(payDateProblem('2026-11-26', today, 30) ?? '', /Federal Reserve holiday/);
  assert.match(payDateProblem('2026-02-30', today, 30) ?? '', /a date/);
});

test("a NACHA file's File ID Modifier is the day's file's place; trace numbers are the entries' own", async () => {
  const { achFile, FILE_ID_MODIFIERS } = await import('./nacha.ts');
  const o = {
    destinationRouting: '091000019',
    destinationName: 'BANK',
    originId: '1234567890',
    originName: 'SPONSOR',
    companyId: '1234567890',
    companyName: 'SPONSOR',
    odfiRouting: '091000019',
  };
  const credit = {
    routing: '091000019',
    account: '1234',
    accountType: 'checking' as const,
    amountCents: 100,
    reference: 'PAYMENT 42',
    receiver: 'X',
    remittance: 'GRANTS 1',
    trace: 42,
  };
  const files = [0, 1, 35].map((n) => achFile(o, [credit], '2026-11-27T10:00:00Z', '2026-11-30', 1, n));
  assert.deepEqual(
    files.map((f) => f.slice(33, 34)),
    ['A', 'B', '9'],
  );
  assert.equal(files[0]?.split('\r\n')[2]?.slice(79, 94), '091000010000042', 'ODFI and the entry’s own sequence');
  assert.throws(() => achFile(o, [credit], '2026-11-27T10:00:00Z', '2026-11-30', 1, FILE_ID_MODIFIERS.length), /at most 36 files a day/);
});
