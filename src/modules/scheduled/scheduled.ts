// Recurring donations: dates of occurrences.
import { isCalendarDay } from '../../shared/days.ts';
export const SCHEDULE_FREQUENCIES = ['OneTime', 'Weekly', 'Monthly', 'Yearly'] as const;
export type ScheduleFrequency = (typeof SCHEDULE_FREQUENCIES)[number];

/** A calendar day that exists (the one rule: shared/days.ts). */
export const isDate = isCalendarDay;

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/**
 * The date of occurrence `n` (0 = the start): weekly adds 7n days; monthly
 * and yearly keep the start's day, clamped to shorter months, so a schedule
 * started on Jan 31 falls on Feb 28 (or 29), then Mar 31.
 */
export function occurrenceDate(start: string, frequency: ScheduleFrequency, n: number): string {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  if (frequency === 'OneTime' || n === 0) return start;
  if (frequency === 'Weekly') return new Date(Date.UTC(y, m - 1, d + 7 * n)).toISOString().slice(0, 10);
  const months = frequency === 'Monthly' ? n : 12 * n;
  const total = m - 1 + months;
  const year = y + Math.floor(total / 12);
  const month0 = total % 12;
  const day = Math.min(d, daysInMonth(year, month0));
  return new Date(Date.UTC(year, month0, day)).toISOString().slice(0, 10);
}
