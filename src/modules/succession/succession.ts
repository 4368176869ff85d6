// Succession (docs/rules.md §20): a fund's successor plan (people who become its organizers,
// charities that receive its money by whole-percent shares) and the limits on what an operator
// records of a death. No I/O here.
import { allocate } from '../../shared/money.ts';

export const DOCUMENT_REFERENCE_MAX = 200;
export const SUCCESSORS_MAX = 20;

export type SuccessorLine = { email: string; ein?: undefined; share_percent?: undefined } | { ein: string; share_percent: number; email?: undefined };

/**
 * Why a successor plan cannot be kept, or undefined: people and charities, no one twice, and the
 * charities' shares whole percents summing to 100 when there are any.
 */
export function planProblem(lines: readonly SuccessorLine[]): string | undefined {
  if (lines.length > SUCCESSORS_MAX) return `a plan names at most ${SUCCESSORS_MAX} successors`;
  const emails = lines.flatMap((l) => (l.email === undefined ? [] : [l.email]));
  const eins = lines.flatMap((l) => (l.ein === undefined ? [] : [l.ein]));
  if (new Set(emails).size !== emails.length) return 'a person is named twice';
  if (new Set(eins).size !== eins.length) return 'a charity is named twice';
  const shares = lines.flatMap((l) => (l.ein === undefined ? [] : [l.share_percent]));
  if (shares.some((s) => !Number.isInteger(s) || s < 1 || s > 100)) return 'a share is a whole percent from 1 to 100';
  const total = shares.reduce((a, b) => a + b, 0);
  if (shares.length > 0 && total !== 100) return `the charities' shares sum to ${total}%, not 100%`;
  return undefined;
}

/**
 * `cents` split by whole-percent shares summing to 100, exactly: each share's floor, and the cents
 * left over one each to the largest remainders (earlier lines first on a tie).
 */
export function splitByShares(cents: number, shares: readonly number[]): number[] {
  return allocate(cents, shares);
}
