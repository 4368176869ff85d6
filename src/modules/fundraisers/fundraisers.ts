// Fundraisers (docs/rules.md §22): the rules, no I/O. A fundraiser is open to donations from its
// first day to its last (inclusive, UTC calendar days) unless its organiser ended it; what it has
// raised is what its donations hold or have paid (scheduled, approved, check_mailed, completed),
// never a number kept apart, plus what its organiser says was raised outside.
import { fieldErrors, type FieldError } from '../../shared/errors.ts';
import { isCalendarDay } from '../../shared/days.ts';
import { wholePercent } from '../../shared/money.ts';

export const TITLE_MAX = 120;
export const STORY_MAX = 5_000;

/** The donations' statuses whose money counts as raised: held for the charity, or paid to it. */
export const RAISED_STATUSES = ['scheduled', 'approved', 'check_mailed', 'completed'] as const;

// When a fundraiser is open is the donations' rule (a donation may name it only then).
export { fundraiserStatusOn as statusOn, type FundraiserStatus } from '../donations/index.ts';

/** A new fundraiser's dates: the first day defaults to `today`; a last day is on or after the first and not in the past. Throws validation_failed. */
export function checkedDates(starts: string | undefined, ends: string | undefined, today: string): { starts_on: string; ends_on: string | null } {
  const errors: FieldError[] = [];
  for (const [field, day] of [
    ['starts_on', starts],
    ['ends_on', ends],
  ] as const)
    if (day !== undefined && !isCalendarDay(day)) errors.push({ field, code: 'validation_failed', message: 'must be a calendar day, YYYY-MM-DD' });
  if (errors.length > 0) throw fieldErrors(errors);
  const starts_on = starts ?? today;
  if (ends !== undefined && ends < starts_on) throw fieldErrors([{ field: 'ends_on', code: 'validation_failed', message: 'must be on or after starts_on' }]);
  if (ends !== undefined && ends < today) throw fieldErrors([{ field: 'ends_on', code: 'validation_failed', message: 'must not be in the past' }]);
  return { starts_on, ends_on: ends ?? null };
}

/** What a fundraiser's page says of progress: raised (donations held or paid, and offline), of the goal, in whole percent (at most 100). */
export function progress(donatedCents: number, offlineCents: number, goalCents: number): { raised_cents: number; percent: number } {
  const raised = donatedCents + offlineCents;
  return { raised_cents: raised, percent: wholePercent(raised, goalCents) };
}
