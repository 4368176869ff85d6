// Shared funds (docs/rules.md §20): the roles a fund's members hold (what each
// may do is the one table of shared/policy.ts), and the rules of invitations and requests.
// No I/O here. (What happens to a fund when its holder dies is the succession module's.)
import { POLICY, roleAllows } from '../../shared/policy.ts';

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
