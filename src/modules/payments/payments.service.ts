// Paying charities (docs/rules.md §17): an operator opens a run for a date,
// every approved donation whose organisation is still eligible joins it (one
// payment per organisation: ACH to bank details in force, else a check), the
// run's files are exported, the run is submitted (its donations completed or
// mailed), and each payment's outcome is recorded (an ACH return, a check
// cashed or voided, a stale check voided). A run or payment is never edited:
// a donation is in one payment at most, and a correction is a new payment.
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { dollarsText } from '../../shared/money.ts';
import { recordAudit } from '../audit/index.ts';
import { recordEvents } from '../events/index.ts';
import { applyEventIn } from '../donations/index.ts';
import { postalLines, refusalOf } from '../nonprofits/index.ts';
import { ACH_RETURN_CODES, ACH_RETURNS, addDays, bankingDayFrom, isBankingDay, isDay, maskedAccount, PAYMENT_OUTCOMES, type PaymentOutcome } from './payments.ts';
import * as store from './payments.store.ts';
import * as payees from './payees.store.ts';
import { suspendBankDetails } from './payments.payees.ts';

/** What opening a run did: its payments, and the organisations it could not pay and why. */
export interface Opened {
  run: RunView;
  /** Donations rejected (their money back to their donors) because their organisation may no longer receive: by organisation. */
  rejected: Array<{ ein: string; name: string; code: string; donations: number; amount: string }>;
  /** Organisations whose close name match awaits an operator: their donations wait for a later run. */
  held: Array<{ ein: string; name: string; donations: number; amount: string }>;
}

export interface RunView {
  id: number;
  book: Book;
  pay_date: string;
  status: string;
  opened_at: string;
  opened_by: string;
  approved_by: string | null;
  submitted_at: string | null;
  withdrawn_at: string | null;
  withdraw_reason: string | null;
  payments: PaymentView[];
  totals: { payments: number; grants: number; amount: string; ach: string; checks: string };
}

export interface PaymentView {
  id: number;
  ein: string;
  payee: string;
  method: string;
  amount: string;
  grants: number;
  status: string;
  check_number: number | null;
  account: string | null;
  return_code: string | null;
}

function paymentView(p: store.PaymentRow, last4: ReadonlyMap<number, string>): PaymentView {
  const account = p.payee_account_id === null ? undefined : last4.get(p.payee_account_id);
  return {
    id: Number(p.id),
    ein: p.ein,
    payee: p.payee,
    method: p.method,
    amount: dollarsText(Number(p.amount_cents)),
    grants: p.grants,
    status: p.status,
    check_number: p.check_number === null ? null : Number(p.check_number),
    account: account === undefined ? null : maskedAccount(account),
    return_code: p.return_code,
  };
}

/** Payment statuses that pay nothing: left out at submission (`withheld`) or taken back with their run (`withdrawn`). */
export const LEFT_OUT: ReadonlySet<string> = new Set(['withheld', 'withdrawn']);

async function viewOf(deps: Deps, run: store.RunRow): Promise<RunView> {
  const payments = await store.paymentsOfRun(deps.db, Number(run.id));
  const accountIds = [...new Set(payments.flatMap((p) => (p.payee_account_id === null ? [] : [Number(p.payee_account_id)])))];
  const last4 = new Map((await payees.payeeAccountsByIds(deps.db, accountIds)).map((a) => [Number(a.id), a.account_last4] as const));
  // The totals are what the run pays: a payment withheld or withdrawn (rules §17) pays nothing.
  const paying = payments.filter((p) => !LEFT_OUT.has(p.status));
  const sum = (method?: string) => paying.filter((p) => method === undefined || p.method === method).reduce((n, p) => n + Number(p.amount_cents), 0);
  return {
    id: Number(run.id),
    book: run.book,
    pay_date: run.pay_date,
    status: run.status,
    opened_at: run.opened_at,
    opened_by: run.opened_by,
    approved_by: run.approved_by,
    submitted_at: run.submitted_at,
    withdrawn_at: run.withdrawn_at,
    withdraw_reason: run.withdraw_reason,
    payments: payments.map((p) => paymentView(p, last4)),
    totals: {
      payments: paying.length,
      grants: paying.reduce((n, p) => n + p.grants, 0),
      amount: dollarsText(sum()),
      ach: dollarsText(sum('ach')),
      checks: dollarsText(sum('check')),
    },
  };
}

async function runOf(deps: Deps, book: Book, id: number): Promise<store.RunRow> {
  const run = await store.findRun(deps.db, book, id);
  if (run === undefined) throw notFound('payment_run_not_found', `no payment run ${id}`);
  return run;
}

export async function getRun(deps: Deps, book: Book, id: number): Promise<RunView> {
  return await viewOf(deps, await runOf(deps, book, id));
}

export async function listRuns(deps: Deps, book: Book) {
  return (await store.listRuns(deps.db, book, 100)).map((r) => ({
    id: Number(r.id),
    pay_date: r.pay_date,
    status: r.status,
    opened_at: r.opened_at,
    submitted_at: r.submitted_at,
  }));
}

/**
 * Opens the book's run for `payDate`. In one transaction: every approved donation in no payment
 * is taken; an organisation that may no longer receive has its donations rejected (their money
 * back, the reason's code on each); one whose close name match awaits review is held (its
 * donations wait); every other becomes one payment, ACH when its bank details are in force on the
 * date, else a check with the next number. Payments, grants and events are written in bulk
 * statements, so a run of 100,000 donations is a few hundred statements. Throws validation_failed
 * (a date that is not one), conflict (payment_run_exists for the date; payment_run_empty;
 * donation_in_run when another run took a donation first).
 */
export async function openRun(deps: Deps, book: Book, payDate: string, actor: string): Promise<Opened> {
  const at = deps.clock.now().toISOString();
  const problem = payDateProblem(payDate, at.slice(0, 10), deps.config.payments.payDateMaxDays ?? 30);
  if (problem !== undefined) throw fieldErrors([{ field: 'pay_date', code: 'validation_failed', message: problem }]);
  const { runId, rejected, held } = await deps.db.transaction().execute(async (trx) => {
    const id = await store.insertRun(trx, { book, pay_date: payDate, opened_at: at, opened_by: actor });
    if (id === undefined) throw conflict('payment_run_exists', `the ${book} book has a payment run for ${payDate} already`);
    const rows = await store.payableDonations(trx, book);
    // A run with nothing to pay would give the bank a batch with no entry, which it rejects.
    if (rows.length === 0) throw conflict('payment_run_empty', `no approved donation of the ${book} book waits for a payment: nothing to pay`);
    const sorted = await sortOrganisations(deps, trx, book, rows, actor);
    await writePayments(deps, trx, book, id, payDate, sorted.paying, at);
    await recordAudit(trx, {
      book,
      actor,
      action: 'payment_run.opened',
      object_type: 'payment_run',
      object_id: id,
      before: null,
      after: { pay_date: payDate, rejected: sorted.rejected, held: sorted.held },
      at,
    });
    return { runId: id, rejected: sorted.rejected, held: sorted.held };
  });
  return { run: await getRun(deps, book, runId), rejected, held };
}

/** Why an organisation may no longer be paid (rules §16, §17): gone from the IRS's active, deductible list, or a due-diligence refusal; undefined when it may. */
export function paymentRefusal(org: { eligible: number; removed_at: string | null; foundation: string; diligence: string }): { code: string; why: string } | undefined {
  return org.eligible !== 1 || org.removed_at !== null ? { code: 'non_profit_ineligible', why: 'the IRS no longer lists it as an active, deductible charity' } : refusalOf(org);
}

type Payable = Awaited<ReturnType<typeof store.payableDonations>>[number];

/**
 * The run's organisations, each decided: one that may no longer receive has its donations
 * rejected here (their money back), one whose close name match awaits review is held, every
 * other is to be paid.
 */
async function sortOrganisations(deps: Deps, trx: Trx, book: Book, rows: readonly Payable[], actor: string) {
  const rejected: Opened['rejected'] = [];
  const held: Opened['held'] = [];
  const paying: Payable[][] = [];
  for (const donations of Map.groupBy(rows, (r) => r.non_profit_id).values()) {
    const org = donations[0] as Payable;
    const total = donations.reduce((n, d) => n + Number(d.amount_cents), 0);
    const refusal = paymentRefusal(org);
    if (refusal !== undefined) {
      for (const d of donations) await applyEventIn(deps, trx, book, d.id, 'reject', { actor, reason: `${refusal.code}: ${refusal.why}`, byPayment: true });
      rejected.push({ ein: org.ein, name: org.name, code: refusal.code, donations: donations.length, amount: dollarsText(total) });
    } else if (org.diligence === 'review') held.push({ ein: org.ein, name: org.name, donations: donations.length, amount: dollarsText(total) });
    else paying.push(donations);
  }
  return { rejected, held, paying };
}

/** One payment per organisation (ACH to details in force today, else a check with the next number), its grants, and an event to each donor: in bulk. */
async function writePayments(deps: Deps, trx: Trx, book: Book, runId: number, payDate: string, paying: readonly Payable[][], at: string): Promise<void> {
  // The cooling-off is counted to today, not to the pay date typed: details set minutes ago wait.
  const accounts = await payees.usablePayeeAccounts(
    trx,
    paying.map((ds) => (ds[0] as Payable).non_profit_id),
    at.slice(0, 10),
  );
  let checkNumber = await store.nextCheckNumber(trx, book, deps.config.payments.checkFirstNumber);
  const payments = paying.map((donations) => {
    const org = donations[0] as Payable;
    const account = accounts.get(org.non_profit_id);
    return {
      run_id: runId,
      book,
      non_profit_id: org.non_profit_id,
      ein: org.ein,
      payee: org.name,
      address: postalLines(org).join('\n'),
      method: account === undefined ? 'check' : 'ach',
      amount_cents: donations.reduce((n, d) => n + Number(d.amount_cents), 0),
      grants: donations.length,
      screened: org.diligence,
      status: 'open',
      payee_account_id: account === undefined ? null : Number(account.id),
      check_number: account === undefined ? checkNumber++ : null,
      return_code: null,
      created_at: at,
      sent_at: null,
      settled_at: null,
      settled_by: null,
    };
  });
  const ids = await store.insertPayments(
    trx,
    payments,
    paying.map((ds) => ds.map((d) => ({ donation_id: d.id, amount_cents: Number(d.amount_cents) }))),
  );
  if (ids === undefined)
    throw conflict('donation_in_run', 'another payment run opened at the same moment took some of these donations or check numbers first: open this run again');
  const events = paying.flatMap((donations, i) =>
    donorEvents(
      ids.get((donations[0] as Payable).non_profit_id) as number,
      'payment.created',
      { status: 'open', method: payments[i]?.method, pay_date: payDate },
      donations.map((d) => ({ user_id: Number(d.user_id), donation_id: d.id })),
      at,
    ),
  );
  await recordEvents(trx, events);
}

/** One event per donor whose grants a payment carries (`data` and the donor's donations): the rows to record. */
export function donorEvents(
  paymentId: number,
  type: 'payment.created' | 'payment.updated',
  data: Record<string, unknown>,
  grants: ReadonlyArray<{ user_id: number; donation_id: number }>,
  at: string,
) {
  return [...Map.groupBy(grants, (g) => g.user_id)].map(([userId, ofDonor]) => ({
    user_id: userId,
    type,
    object_type: 'payment',
    object_id: paymentId,
    data: { ...data, donation_ids: ofDonor.map((g) => g.donation_id) },
    at,
  }));
}

/** One event per donor whose grants a payment carries, in the transaction that moved it. */
export async function paymentEvents(trx: Trx, paymentId: number, type: 'payment.created' | 'payment.updated', data: Record<string, unknown>, at: string): Promise<void> {
  await recordEvents(trx, donorEvents(paymentId, type, data, await store.grantsOf(trx, [paymentId]), at));
}

/**
 * Records a payment's outcome: `return` (an ACH credit came back, with its return code), `cash`
 * (a check was cashed) or `void` (a check will not be: lost, stale, refused). A return or a void
 * gives every grant's money back to its donor's fund (`not_completed`, the donor told why). Once
 * only. Throws payment_not_found, validation_failed (a return code not known), conflict
 * (invalid_transition: not sent, another method, or recorded already).
 */
export async function settle(deps: Deps, book: Book, id: number, outcome: PaymentOutcome, options: { actor: string; returnCode?: string; reason?: string }): Promise<PaymentView> {
  const rule = PAYMENT_OUTCOMES[outcome];
  const code = options.returnCode?.toUpperCase();
  if (outcome === 'return' && (code === undefined || ACH_RETURN_CODES[code] === undefined)) {
    throw fieldErrors([{ field: 'return_code', code: 'validation_failed', message: `must be an ACH return code: ${Object.keys(ACH_RETURN_CODES).join(', ')}` }]);
  }
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const payment = await store.findPayment(trx, book, id);
    if (payment === undefined) throw notFound('payment_not_found', `no payment ${id}`);
    if (
      payment.method !== rule.method ||
      !(await store.settlePayment(trx, id, rule.from, { status: rule.to, settled_at: at, settled_by: options.actor, ...(code === undefined ? {} : { return_code: code }) }))
    ) {
      throw conflict('invalid_transition', `cannot ${outcome} a${payment.method === 'ach' ? 'n ACH payment' : ' check'} that is ${payment.status}`);
    }
    const why =
      outcome === 'return'
        ? `the bank returned the payment (${code}: ${ACH_RETURN_CODES[code as string]})`
        : outcome === 'void'
          ? `the check was voided (${options.reason ?? 'no reason given'})`
          : undefined;
    for (const g of await store.grantsOf(trx, [id]))
      await applyEventIn(deps, trx, book, g.donation_id, rule.grant, { actor: options.actor, byPayment: true, ...(why === undefined ? {} : { reason: why }) });
    // A return that says the account cannot take credits stops its bank details: the next run pays by check.
    if (outcome === 'return' && ACH_RETURNS[code as string]?.stops === true && payment.payee_account_id !== null) {
      await suspendBankDetails(deps, trx, book, payment, code as string, options.actor, at);
    }
    await paymentEvents(trx, id, 'payment.updated', { status: rule.to, ...(code === undefined ? {} : { return_code: code }) }, at);
    await recordAudit(trx, {
      book,
      actor: options.actor,
      action: `payment.${outcome}`,
      object_type: 'payment',
      object_id: id,
      before: { status: payment.status },
      after: { status: rule.to, return_code: code, reason: options.reason },
      at,
    });
  });
  const payment = await store.findPayment(deps.db, book, id);
  assert(payment !== undefined, 'the payment just settled');
  return paymentView(payment, new Map());
}

/** What the metrics show of money out: runs open and overdue, unresolved exceptions, returns in the last week (every book). */
export const moneyOutHealth = (deps: Deps) => store.moneyOutHealth(deps.lookups, dayOf(deps.clock.now()));

/** Why `payDate` cannot be a run's pay date, or undefined: a banking day, today or later, at most `maxDays` ahead. */
export function payDateProblem(payDate: string, today: string, maxDays: number): string | undefined {
  if (!isDay(payDate)) return 'must be a date (YYYY-MM-DD)';
  if (payDate < today) return `must be today (${today}) or later`;
  if (payDate > addDays(today, maxDays)) return `must be at most ${maxDays} days ahead (${addDays(today, maxDays)}; PAY_DATE_MAX_DAYS)`;
  if (!isBankingDay(payDate)) return `must be a banking day: ${payDate} is a weekend or a Federal Reserve holiday (the next is ${bankingDayFrom(payDate)})`;
  return undefined;
}

/**
 * Voids every check of the book dated (its run's pay date) more than CHECK_STALE_DAYS before
 * `asOf` (a day, today by default: the job passes none; an operator catching up names the day
 * the bank's statement was made) and never cashed; returns their ids. Throws validation_failed
 * (`as_of` not a day, or one to come).
 */
export async function voidStaleChecks(deps: Deps, book: Book, actor: string, asOf?: string): Promise<number[]> {
  const today = dayOf(deps.clock.now());
  const day = asOf ?? today;
  if (!isDay(day) || day > today) throw fieldErrors([{ field: 'as_of', code: 'validation_failed', message: `must be a day (YYYY-MM-DD), today (${today}) or before` }]);
  const days = deps.config.payments.checkStaleDays;
  const ids = await store.staleChecks(deps.db, book, addDays(day, -days));
  for (const id of ids) await settle(deps, book, id, 'void', { actor, reason: `not cashed within ${days} days of its date (as of ${day})` });
  return ids;
}
