// The sandbox (test keys): contributions clear and donations approve and
// complete by themselves after configurable delays, and the caller may move
// any of their own objects along its state machine, so integrators can test
// every branch without an operator.
import { dollarsText } from '../../shared/money.ts';
import { idleTestDonations, ownerOfTestObject, pendingTestContributions } from './sandbox.store.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import type { Caller } from '../../shared/caller.ts';
import { advanceContribution, recordContribution } from '../contributions/index.ts';
import { applyDonationEvent, type DonationEvent } from '../donations/index.ts';
import { claimGift, denyGift, SIMULATED_RECIPIENT } from '../gifts/index.ts';
import { authorize } from '../../shared/policy.ts';

const ACTOR = 'sandbox';

function requireSandbox(caller: Caller): void {
  if (caller.mode !== 'test') throw new AppError('forbidden', 'forbidden', 'this endpoint is for sandbox keys (alm_test_...) only');
}

/** A sandbox deposit: a pending contribution that clears by itself after the configured delay. */
export async function sandboxDeposit(deps: Deps, caller: Caller, amountCents: number): Promise<number> {
  authorize(caller, 'sandbox');
  requireSandbox(caller);
  const units = dollarsText(amountCents);
  return recordContribution(
    deps,
    { user_id: caller.user_id, fund_id: caller.fund_id, type: 'bank_account_scheduled_deposit', units, valuation: '1', currency: 'USD', frequency: 'OneTime', status: 'pending' },
    ACTOR,
  );
}

export type SandboxMove =
  | { object: 'donation'; id: number; event: DonationEvent }
  | { object: 'contribution'; id: number; to: 'pending' | 'success' | 'failed' }
  | { object: 'gift'; code: string; action: 'deny' | 'claim'; ein?: string };

/** Moves one of the caller's sandbox objects. Throws forbidden, the object's not_found code, invalid_transition. */
export async function sandboxAdvance(deps: Deps, caller: Caller, move: SandboxMove): Promise<{ status: string }> {
  authorize(caller, 'sandbox');
  requireSandbox(caller);
  if (move.object === 'donation') {
    if ((await ownerOfTestObject(deps.db, move)) !== caller.user_id) throw notFound('donation_not_found', `no donation ${move.id}`);
    return { status: await applyDonationEvent(deps, 'test', move.id, move.event, { actor: ACTOR, reason: 'sandbox' }) };
  }
  if (move.object === 'contribution') {
    if ((await ownerOfTestObject(deps.db, move)) !== caller.user_id) throw notFound('contribution_not_found', `no contribution ${move.id}`);
    await advanceContribution(deps, 'test', move.id, move.to, ACTOR);
    return { status: move.to };
  }
  if ((await ownerOfTestObject(deps.db, move)) !== caller.user_id) throw notFound('gift_not_found', `no gift ${move.code}`);
  if (move.action === 'claim') {
    if (move.ein === undefined)
      throw new AppError('unprocessable', 'validation_failed', 'ein is required to claim', { errors: [{ field: 'ein', code: 'validation_failed', message: 'is required' }] });
    return { status: (await claimGift(deps, SIMULATED_RECIPIENT, move.code, move.ein)).status };
  }
  return { status: (await denyGift(deps, SIMULATED_RECIPIENT, move.code)).status };
}

/**
 * One tick of the sandbox clock: sandbox contributions pending for the clear
 * delay succeed; sandbox donations scheduled for the approve delay are
 * approved; approved for the complete delay are paid. Each move is guarded
 * by its state machine, so clocks on several nodes never move a thing twice.
 */
export async function runSandboxClock(deps: Deps): Promise<{ moved: number }> {
  const now = deps.clock.now().getTime();
  const before = (ms: number) => new Date(now - ms).toISOString();
  let moved = 0;
  const attempt = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      moved += 1;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'invalid_transition')) throw error;
    }
  };
  for (const id of await pendingTestContributions(deps.db, before(deps.config.sandboxClearDelayMs), 500)) {
    await attempt(() => advanceContribution(deps, 'test', id, 'success', ACTOR));
  }
  for (const [status, event, delay] of [
    ['scheduled', 'approve', deps.config.sandboxApproveDelayMs],
    ['approved', 'pay', deps.config.sandboxCompleteDelayMs],
  ] as const) {
    for (const id of await idleTestDonations(deps.db, status, before(delay), 500)) {
      await attempt(() => applyDonationEvent(deps, 'test', id, event, { actor: ACTOR }));
    }
  }
  return { moved };
}
