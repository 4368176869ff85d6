// A run between opening and the bank (docs/rules.md §17): a second operator approves it (when
// PAYMENTS_TWO_OPERATORS is on), or an operator withdraws it (its donations wait for another
// run); at submission every organisation is screened again and its bank details looked at again,
// and a payment that no longer clears is left out of the files before anything is sent.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { AppError, conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { samePerson } from '../../shared/operators.ts';
import { recordAudit } from '../audit/index.ts';
import { claimantsOf } from '../charities/index.ts';
import { messages, queueMail, type Outgoing } from '../mail/index.ts';
import { applyEventIn, payOutMany } from '../donations/index.ts';
import { recordEvents } from '../events/index.ts';
import { donorEvents, getRun, paymentEvents, paymentRefusal, type RunView } from './payments.service.ts';
import * as store from './payments.store.ts';
import * as payees from './payees.store.ts';
import { centsToDollars } from '../../shared/money.ts';

/** A payment left out at submission: `rejected` (its organisation may no longer receive: its donations' money back) or `released` (its donations wait for another run). */
export interface LeftOut {
  payment_id: number;
  ein: string;
  outcome: 'rejected' | 'released';
  why: string;
}

/** An open run of the book, or the reason it is not. */
async function openRunOf(trx: Trx, book: Book, id: number): Promise<store.RunRow> {
  const run = await store.findRun(trx, book, id);
  if (run === undefined) throw notFound('payment_run_not_found', `no payment run ${id}`);
  if (run.status === 'withdrawn') throw conflict('payment_run_withdrawn', `payment run ${id} was withdrawn${run.withdraw_reason === null ? '' : ` (${run.withdraw_reason})`}`);
  if (run.status !== 'open') throw conflict('payment_run_submitted', `payment run ${id} was submitted already`);
  return run;
}

/**
 * A second operator approves an open run for submission: not the one who opened it (403
 * same_operator, whichever door either used). Throws payment_run_not_found, conflict
 * (payment_run_submitted, payment_run_withdrawn, payment_run_approved).
 */
export async function approveRun(deps: Deps, book: Book, id: number, actor: string): Promise<RunView> {
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const run = await openRunOf(trx, book, id);
    if (samePerson(run.opened_by, actor)) throw new AppError('forbidden', 'same_operator', `a second operator approves a run: ${run.opened_by} opened this one`);
    if (!(await store.approveRunRow(trx, id, at, actor)))
      throw conflict('payment_run_approved', `payment run ${id} was approved already by ${run.approved_by ?? 'another operator'}`);
    await recordAudit(trx, {
      book,
      actor,
      action: 'payment_run.approved',
      object_type: 'payment_run',
      object_id: id,
      before: { approved_by: null },
      after: { approved_by: actor },
      at,
    });
  });
  return await getRun(deps, book, id);
}

/**
 * Withdraws an open run (its date was wrong, a donation should not be in it): every payment is
 * withdrawn and gives up its grants, so its donations stay approved and wait for another run;
 * audited with the reason and the donations. Throws validation_failed (no reason),
 * payment_run_not_found, conflict (payment_run_submitted, payment_run_withdrawn).
 */
export async function withdrawRun(deps: Deps, book: Book, id: number, actor: string, reasonText: string): Promise<RunView> {
  const reason = reasonText.trim();
  if (reason === '' || reason.length > 500) throw fieldErrors([{ field: 'reason', code: 'validation_failed', message: 'says why the run is withdrawn (1 to 500 characters)' }]);
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await openRunOf(trx, book, id);
    assert(await store.withdrawRunRow(trx, id, at, actor, reason), 'an open run is withdrawn once');
    const released: number[] = [];
    for (const p of await store.paymentsOfRun(trx, id)) released.push(...(await release(trx, p, actor, at, `the run was withdrawn: ${reason}`)));
    await recordAudit(trx, {
      book,
      actor,
      action: 'payment_run.withdrawn',
      object_type: 'payment_run',
      object_id: id,
      before: { status: 'open' },
      after: { status: 'withdrawn', reason, donations: released },
      at,
    });
  });
  return await getRun(deps, book, id);
}

/** Withdraws an open payment: its donors told, its grants given up (the donations stay approved); their ids. */
async function release(trx: Trx, p: store.PaymentRow, actor: string, at: string, why: string): Promise<number[]> {
  assert(await store.settlePayment(trx, Number(p.id), 'open', { status: 'withdrawn', settled_at: at, settled_by: actor }), 'an open payment is withdrawn once');
  await paymentEvents(trx, Number(p.id), 'payment.updated', { status: 'withdrawn', reason: why }, at);
  return await store.releaseGrants(trx, Number(p.id));
}

/**
 * Screens the run's payments again as it is submitted (rules §16, §17): an organisation that may
 * no longer receive has its payment `withheld` and its donations rejected (their money back); one
 * whose name match now awaits review, or whose ACH bank details are no longer in force today
 * (suspended, replaced, or not past their cooling-off), has its payment withdrawn: its donations
 * wait for the next run (by check, or by ACH once the details are in force).
 */
async function screenAgain(deps: Deps, trx: Trx, book: Book, payments: readonly store.PaymentRow[], actor: string, at: string): Promise<LeftOut[]> {
  const orgs = new Map((await store.organisationsToScreen(trx, [...new Set(payments.map((p) => Number(p.non_profit_id)))])).map((o) => [Number(o.id), o] as const));
  const achOrgs = [...new Set(payments.filter((p) => p.method === 'ach').map((p) => Number(p.non_profit_id)))];
  const inForce = await payees.usablePayeeAccounts(trx, achOrgs, at.slice(0, 10));
  const left: LeftOut[] = [];
  for (const p of payments) {
    const org = orgs.get(Number(p.non_profit_id));
    assert(org !== undefined, 'a payment names its organisation');
    const refusal = paymentRefusal(org);
    if (refusal !== undefined) {
      const why = `${refusal.code}: ${refusal.why}`;
      assert(await store.settlePayment(trx, Number(p.id), 'open', { status: 'withheld', settled_at: at, settled_by: actor }), 'an open payment is withheld once');
      for (const g of await store.grantsOf(trx, [Number(p.id)])) await applyEventIn(deps, trx, book, g.donation_id, 'reject', { actor, reason: why, byPayment: true });
      await paymentEvents(trx, Number(p.id), 'payment.updated', { status: 'withheld', reason: why }, at);
      left.push({ payment_id: Number(p.id), ein: p.ein, outcome: 'rejected', why });
      continue;
    }
    let why: string | undefined;
    if (org.diligence === 'review') why = 'its name matches a sanctions list entry that awaits review';
    else if (p.method === 'ach' && Number(inForce.get(Number(p.non_profit_id))?.id) !== Number(p.payee_account_id))
      why = 'its bank details changed or were suspended after the run was opened';
    if (why === undefined) continue;
    await release(trx, p, actor, at, why);
    left.push({ payment_id: Number(p.id), ein: p.ein, outcome: 'released', why });
  }
  return left;
}

/**
 * Submits an open run: with PAYMENTS_TWO_OPERATORS, only once a second operator approved it
 * (409 payment_run_unapproved); every payment is screened again (screenAgain) and what still
 * clears is sent, its donations completed (ACH) or mailed (a check), each with its hold paid
 * out; all in one transaction. Throws payment_run_not_found, conflict (payment_run_submitted,
 * payment_run_withdrawn, payment_run_unapproved).
 */
export async function submitRun(deps: Deps, book: Book, id: number, actor: string): Promise<RunView & { left_out: LeftOut[] }> {
  const at = deps.clock.now().toISOString();
  const leftOut = await deps.db.transaction().execute(async (trx) => {
    const run = await openRunOf(trx, book, id);
    if (deps.config.payments.twoOperators === true && run.approved_by === null)
      throw conflict('payment_run_unapproved', `payment run ${id} needs a second operator's approval before it is submitted (PAYMENTS_TWO_OPERATORS)`);
    assert(await store.submitRunRow(trx, id, at, actor), 'an open run is submitted once');
    const opened = await store.paymentsOfRun(trx, id);
    const left = await screenAgain(deps, trx, book, opened, actor, at);
    const gone = new Set(left.map((l) => l.payment_id));
    await send(
      trx,
      book,
      opened.filter((p) => !gone.has(Number(p.id))),
      actor,
      at,
      deps.config.publicUrl,
    );
    await recordAudit(trx, {
      book,
      actor,
      action: 'payment_run.submitted',
      object_type: 'payment_run',
      object_id: id,
      before: { status: 'open' },
      after: { status: 'submitted', payments: opened.length - left.length, left_out: left },
      at,
    });
    return left;
  });
  return { ...(await getRun(deps, book, id)), left_out: leftOut };
}

/**
 * Sends each payment: its donations paid out together (donations' payOutMany: completed by ACH,
 * mailed in a check), one event per donor of each payment, the organisation's people told (live
 * book only). A run of 100,000 grants is a few hundred statements (docs/performance-history.md).
 */
async function send(trx: Trx, book: Book, payments: readonly store.PaymentRow[], actor: string, at: string, publicUrl: string): Promise<void> {
  const ids = payments.map((p) => Number(p.id));
  assert((await store.sendPayments(trx, ids, at)) === ids.length, 'an open run has open payments');
  const grants = Map.groupBy(await store.grantsOf(trx, ids), (g) => Number(g.payment_id));
  const byId = new Map(payments.map((p) => [Number(p.id), p] as const));
  await payOutMany(
    trx,
    book,
    [...grants].flatMap(([paymentId, ofPayment]) =>
      ofPayment.map((g) => ({ donation_id: g.donation_id, event: byId.get(paymentId)?.method === 'ach' ? ('pay' as const) : ('mail_check' as const) })),
    ),
    actor,
    at,
  );
  await recordEvents(
    trx,
    [...grants].flatMap(([paymentId, ofPayment]) => donorEvents(paymentId, 'payment.updated', { status: 'sent', method: byId.get(paymentId)?.method }, ofPayment, at)),
  );
  // The organisations' own people are told what is on its way (the live book's: a sandbox run pays no one).
  if (book !== 'live') return;
  const claimants = Map.groupBy(await claimantsOf(trx, [...new Set(payments.map((p) => Number(p.non_profit_id)))]), (c) => c.non_profit_id);
  const mail: Outgoing[] = payments.flatMap((p) => {
    const sent = messages.paymentSent({
      nonProfit: p.payee,
      amount: centsToDollars(Number(p.amount_cents)),
      grants: p.grants,
      method: p.method === 'ach' ? 'ach' : 'check',
      url: `${publicUrl}/charities/${p.ein}/manage`,
    });
    return (claimants.get(Number(p.non_profit_id)) ?? []).map((c) => ({ ...sent, kind: 'payment_sent' as const, recipient: c.email, event_id: null }));
  });
  await queueMail(trx, mail, at);
}
