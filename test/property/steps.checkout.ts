// The property test's step of a checkout's grant (rules §24): a member of user 0's fund (or of its
// sandbox twin's), acting on their own fund, grants whole dollars from the shared one, as a
// checkout provider's call does. The advisor gives from it (held, or waiting for money); the
// family member, who only asks, is refused; someone of no membership is told there is no such
// fund. The model moves beside it, as in steps.ts.
import { createGrant } from '../../src/modules/dafpay/dafpay.service.ts';
import type { Caller } from '../../src/shared/caller.ts';
import type { TestUser } from '../harness.ts';
import { outcome, type Fund, type Model } from './model.ts';
import type { At, OpOf, Outcome } from './steps.ts';
import type { World } from './world.ts';

/** `member` acting on their own fund, not the shared one they are a member of. */
async function onOwnFund(w: World, member: Caller): Promise<Caller> {
  const own = await w.deps.db.selectFrom('funds').select('id').where('user_id', '=', member.actor_id).executeTakeFirstOrThrow();
  return { ...member, user_id: member.actor_id, fund_id: own.id, role: 'organizer' };
}

export async function stepGrant(m: Model, w: World, op: OpOf<'grant'>, at: At): Promise<Outcome | undefined> {
  const team = w.members.get(op.user);
  if (team === undefined) throw new Error(`${at.label}: user ${op.user} has no members`);
  const fundId = (w.users[op.user] as TestUser).fund_id;
  // Someone of no membership: another actor of the same book.
  const stranger = (w.users[op.user + 1] as TestUser).caller;
  const caller = op.who === 'stranger' ? stranger : await onOwnFund(w, team[op.who]);
  const cents = op.dollars * 100;
  let made = { id: 0, status: '' };
  const actual = await outcome(async () => {
    made = await createGrant(w.deps, caller, { fund_id: fundId, ein: '261544963', amount: op.dollars, tracking_id: `prop-${at.step}` });
  });
  if (op.who !== 'advisor') return { expected: op.who === 'family' ? 'role_forbidden' : 'fund_not_found', actual };
  const f = m.funds[op.user] as Fund;
  const status = f.available >= cents ? 'scheduled' : 'waiting_for_funds';
  if (status === 'scheduled') {
    f.available -= cents;
    f.reserved += cents;
  }
  m.donations.push({ id: made.id, user: op.user, cents, status });
  if (actual === 'ok' && made.status !== status) throw new Error(`${at.label}: the grant is ${made.status}, the model says ${status}`);
  if (actual === 'ok') w.madeAfter(made.id, at.label);
  return { expected: 'ok', actual };
}
