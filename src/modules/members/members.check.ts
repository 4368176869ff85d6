// What `almoner check` proves of shared funds (docs/rules.md §20): everyone
// acts on a fund they are a member of; every fund keeps an organizer (unless
// its holder died or was forgotten); and every movement of money a member
// made names a member who, at that moment, held a role allowing it.
import type { Db } from '../../db/database.ts';
import { isRole, movesMoney } from './members.ts';
import * as store from './members.store.ts';

const PAGE = 5_000;

type Period = { role: string; since: string; until: string | null };

/** The role held at `at`: a period holds its end instant too (a membership ended in the transaction that moved money, after it). */
function roleAt(periods: readonly Period[] | undefined, at: string): string | undefined {
  return periods?.find((p) => p.since <= at && (p.until === null || at <= p.until))?.role;
}

export async function memberProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  for (const id of await store.actingOutsideMembership(db)) problems.push(`user ${id} acts on a fund they are not a member of`);
  for (const id of await store.fundsWithoutOrganizer(db)) problems.push(`fund ${id} has no organizer`);
  const periods = new Map<string, Period[]>();
  for (const p of await store.rolePeriods(db)) {
    const key = `${p.fund_id}:${p.user_id}`;
    const list = periods.get(key) ?? [];
    list.push(p);
    periods.set(key, list);
  }
  const judge = (what: string, m: store.Movement) => {
    if (m.actor_id === null) {
      problems.push(`${what} ${m.id} moved money of fund ${m.fund_id} and names no member`);
      return;
    }
    const role = roleAt(periods.get(`${m.fund_id}:${m.actor_id}`), m.at);
    if (role === undefined || !isRole(role) || !movesMoney(role)) {
      problems.push(`${what} ${m.id}: user ${m.actor_id} moved money of fund ${m.fund_id} at ${m.at} as ${role ?? 'no member'}`);
    }
  };
  for (let after = 0; ;) {
    const page = await store.donationMovements(db, after, PAGE);
    for (const m of page) judge('donation', m);
    if (page.length < PAGE) break;
    after = (page.at(-1) as store.Movement).id;
  }
  for (const [kind, what] of [
    ['gifts', 'gift'],
    ['scheduled_donations', 'recurring donation'],
    ['exchanges', 'exchange'],
    ['contributions', 'contribution'],
  ] as const) {
    for (let after = 0; ;) {
      const page = await store.otherMovements(db, kind, after, PAGE);
      for (const m of page) judge(what, m);
      if (page.length < PAGE) break;
      after = (page.at(-1) as store.Movement).id;
    }
  }
  return problems;
}
