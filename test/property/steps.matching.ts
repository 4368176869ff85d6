// The property test's steps of fundraisers and matching (rules §22): a donor pledges a match to
// their book's fundraiser (its cap held), a donor gives to the fundraiser and is matched by every
// live match of another fund, oldest first, never past a cap; a matcher ends a match (what is left
// goes back). The model moves beside each, as in steps.ts.
import { createDonation } from '../../src/modules/donations/index.ts';
import { createMatch, endMatchOf } from '../../src/modules/fundraisers/index.ts';
import type { TestUser } from '../harness.ts';
import { bookOf, outcome, promote, type Fund, type Model } from './model.ts';
import type { At, OpOf, Outcome } from './steps.ts';
import type { World } from './world.ts';

export async function stepMatch(m: Model, w: World, op: OpOf<'match'>, _at: At): Promise<Outcome | undefined> {
  const f = m.funds[op.user] as Fund;
  const expected = f.available >= op.cents ? 'ok' : 'insufficient_funds';
  let id = 0;
  const actual = await outcome(async () => {
    id = (await createMatch(w.deps, (w.users[op.user] as TestUser).caller, w.fundraisers[bookOf(op.user)], { ratio: op.ratio, cap_cents: op.cents })).id;
  });
  if (expected === 'ok') {
    f.available -= op.cents;
    f.reserved += op.cents;
    m.matches.push({ id, user: op.user, ratio: op.ratio, cap: op.cents, matched: 0, live: true });
  }
  return { expected, actual };
}

export async function stepFundraise(m: Model, w: World, op: OpOf<'fundraise'>, at: At): Promise<Outcome | undefined> {
  const f = m.funds[op.user] as Fund;
  let created = { id: 0, status: '' };
  const actual = await outcome(async () => {
    created = await createDonation(w.deps, (w.users[op.user] as TestUser).caller, { amount_cents: op.cents, ein: '261544963', fundraiser_id: w.fundraisers[bookOf(op.user)] });
  });
  const status = f.available >= op.cents ? 'scheduled' : 'waiting_for_funds';
  const donation: Model['donations'][number] = { id: created.id, user: op.user, cents: op.cents, status };
  m.donations.push(donation);
  if (status === 'scheduled') {
    f.available -= op.cents;
    f.reserved += op.cents;
    for (const match of m.matches) {
      if (!match.live || match.user === op.user || bookOf(match.user) !== bookOf(op.user)) continue;
      const cents = Math.min(match.ratio * op.cents, match.cap - match.matched);
      if (cents === 0) continue;
      match.matched += cents;
      donation.bound = true;
      // The match's hold becomes its donation's: the matcher's held money does not move.
      const made = await w.deps.db
        .selectFrom('donations')
        .select(['id', 'amount_cents', 'status'])
        .where('match_id', '=', match.id)
        .where('matched_donation_id', '=', created.id)
        .executeTakeFirst();
      if (made === undefined || made.amount_cents !== cents || made.status !== 'scheduled')
        throw new Error(`${at.label}: match ${match.id} gave ${JSON.stringify(made)}, the model ${cents} cents, scheduled`);
      m.donations.push({ id: Number(made.id), user: match.user, cents, status: 'scheduled', bound: true });
    }
  }
  if (created.status !== status) throw new Error(`${at.label}: the donation is ${created.status}, the model says ${status}`);
  return { expected: 'ok', actual };
}

export async function stepEndMatch(m: Model, w: World, op: OpOf<'end_match'>, _at: At): Promise<Outcome | undefined> {
  const match = m.matches[op.pick % Math.max(1, m.matches.length)];
  if (match === undefined) return undefined;
  const expected = match.live ? 'ok' : 'match_ended';
  const actual = await outcome(() => endMatchOf(w.deps, (w.users[match.user] as TestUser).caller, match.id));
  if (match.live) {
    match.live = false;
    const f = m.funds[match.user] as Fund;
    f.reserved -= match.cap - match.matched;
    f.available += match.cap - match.matched;
    promote(m, match.user);
  }
  return { expected, actual };
}
