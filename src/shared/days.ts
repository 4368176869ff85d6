// Calendar days, YYYY-MM-DD in UTC: one rule for every door (a form, a query, a CLI option, a
// file's column). V8's Date.parse rolls 2026-02-30 over to March 2, so a day is one only when it
// reads back as itself.

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `text` is a calendar day, YYYY-MM-DD, that exists: 2024-02-29 is, 2026-02-29, 2026-02-30 and 2026-13-01 are not. */
export function isCalendarDay(text: string): boolean {
  if (!DAY.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/** The calendar day (UTC) of an instant: what "today" is for a clock's now. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The day `days` after `day` (before, when negative). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The first instant of the day after `day` (ISO): what "up to and including `day`" stops before. */
export function startOfDayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
}
