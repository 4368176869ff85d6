// Shared funds (docs/rules.md §20): the roles a fund's members hold (what each
// may do is the one table of shared/policy.ts), and the rules of invitations, requests and
// successor plans. No I/O here.
import { POLICY, roleAllows } from '../../shared/policy.ts';
import { allocate } from '../../shared/money.ts';

export const ROLES = ['organizer', 'advisor', 'family'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(text: string): text is Role {
  return (ROLES as readonly string[]).includes(text);
}

/** What a role may do, in words: the members page and the errors say it. */
export const ROLE_WORDS: Readonly<Record<Role, string>> = {
  organizer: 'does everything, including the members, the successor plan and the portfolio',
  advisor: 'gives, sends gifts, adds money and changes the portfolio; sees everything',
  family: 'sees the fund; their donations are requests an organizer or advisor approves',
};

/**
 * Whether a member of this role may move the fund's money themselves (the check holds every
 * movement to it): what sending a gift needs, as a donation that is not a request does.
 */
export function movesMoney(role: Role): boolean {
  return roleAllows(role, POLICY.give_gift.role);
}

/** How long an invitation's link works, and a request waits for a decision. */
export const INVITATION_TTL_DAYS = 14;
export const REQUEST_TTL_DAYS = 30;

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
