// Outcomes from the bank's files (docs/rules.md §17): the NACHA return file
// (ACH credits that did not post) and the paid-checks file (checks the bank
// honoured). A file is read and checked whole before anything is recorded;
// an entry recorded before is reported, not applied twice.
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { conflict, fieldErrors, fileRefused, notFound, type ProblemCode } from '../../shared/errors.ts';
import { readNamedCsv, type LineProblem } from '../../shared/csv-read.ts';
import { dollarsText, parseDollarText } from '../../shared/money.ts';
import { recordAudit } from '../audit/index.ts';
import { readAchReturns } from './nacha.ts';
import { applyCorrection, correctionProblem } from './payments.payees.ts';
import { ACH_RETURN_CODES, isDay } from './payments.ts';
import { settle } from './payments.service.ts';
import * as store from './payments.store.ts';

const refused = (code: ProblemCode, what: string, problems: readonly LineProblem[]) => fileRefused(code, `the ${what} was refused: nothing was recorded`, problems);

/**
 * Records the returns and notifications of change a bank's NACHA file lists (readAchReturns): each
 * returned entry returns its payment with the file's code, once (an entry already recorded is
 * reported, not applied twice); each notification of change corrects the bank details its payment
 * went to, or is noted (applyCorrection). A file with a malformed record, an entry whose amount is
 * not its payment's, or corrected data that is not valid is refused whole before anything is
 * recorded. Throws unprocessable (ach_returns_malformed).
 */
export async function recordAchReturns(deps: Deps, book: Book, text: string, actor: string) {
  const read = readAchReturns(text);
  const problems = read.ok ? [] : read.bad;
  if (read.ok) {
    for (const e of [...read.entries, ...read.changes]) {
      const payment = await store.findPayment(deps.db, book, e.paymentId);
      if (payment === undefined || payment.method !== 'ach') problems.push({ line: e.line, reason: `payment ${e.paymentId} is no ACH payment of the ${book} book` });
      else if ('corrected' in e) {
        const problem = correctionProblem(e.code, e.corrected);
        if (problem !== undefined) problems.push({ line: e.line + 1, reason: problem });
      } else if (Number(payment.amount_cents) !== e.amountCents)
        problems.push({ line: e.line, reason: `payment ${e.paymentId} was ${payment.amount_cents} cents, the return says ${e.amountCents}` });
      else if (ACH_RETURN_CODES[e.code] === undefined)
        problems.push({ line: e.line, reason: `the return code ${e.code} is not one Almoner records: ${Object.keys(ACH_RETURN_CODES).join(', ')}` });
    }
  }
  if (!read.ok || problems.length > 0) {
    throw refused('ach_returns_malformed', 'return file', problems);
  }
  const out: Array<{ payment_id: number; code: string; recorded: boolean }> = [];
  for (const e of read.entries) {
    const payment = await store.findPayment(deps.db, book, e.paymentId);
    if (payment?.status !== 'sent') {
      out.push({ payment_id: e.paymentId, code: e.code, recorded: false });
      continue;
    }
    await settle(deps, book, e.paymentId, 'return', { actor, returnCode: e.code });
    out.push({ payment_id: e.paymentId, code: e.code, recorded: true });
  }
  // Notifications of change, each in its own transaction: corrected details in force, or the change noted.
  for (const c of read.changes) {
    const recorded = await deps.db.transaction().execute(async (trx) => {
      const payment = await store.findPayment(trx, book, c.paymentId);
      return payment !== undefined && (await applyCorrection(deps, trx, book, payment, c.code, c.corrected, actor));
    });
    out.push({ payment_id: c.paymentId, code: c.code, recorded });
  }
  return out;
}

/** The columns of a paid-checks file, in its header (any order; other columns are ignored). */
export const PAID_CHECKS_COLUMNS = ['check_number', 'amount', 'paid_date'] as const;

/**
 * Records the checks a bank's paid-checks file lists (CSV with a header naming check_number,
 * amount and paid_date): each cashes its payment, once. A file with a malformed row, a check
 * number not of the book, an amount not its check's, or a date to come is refused whole before
 * anything is recorded. Throws unprocessable (paid_checks_malformed).
 */
export async function recordPaidChecks(deps: Deps, book: Book, text: string, actor: string) {
  const read = readNamedCsv(text, PAID_CHECKS_COLUMNS, 'no check is listed');
  if (!read.ok) throw refused('paid_checks_malformed', 'paid-checks file', read.problems);
  const problems: LineProblem[] = [];
  const today = dayOf(deps.clock.now());
  const entries: Array<{ line: number; paymentId: number; checkNumber: number; paidDate: string }> = [];
  for (const { line, values: row } of read.rows) {
    const number = /^\d{1,15}$/.test(row.check_number) ? Number(row.check_number) : null;
    const cents = parseDollarText(row.amount);
    const day = row.paid_date;
    if (number === null) problems.push({ line, reason: `check_number ${JSON.stringify(row.check_number)} is not a check number` });
    else if (cents === null) problems.push({ line, reason: `amount ${JSON.stringify(row.amount)} is not an amount in dollars` });
    else if (!isDay(day) || day > today) problems.push({ line, reason: `paid_date ${JSON.stringify(day)} is not a day (YYYY-MM-DD) up to today` });
    else {
      const payment = await store.paymentByCheckNumber(deps.db, book, number);
      if (payment === undefined) problems.push({ line, reason: `check ${number} is no check of the ${book} book` });
      else if (Number(payment.amount_cents) !== cents) problems.push({ line, reason: `check ${number} was ${payment.amount_cents} cents, the bank paid ${cents}` });
      else entries.push({ line, paymentId: Number(payment.id), checkNumber: number, paidDate: day });
    }
  }
  if (problems.length > 0) throw refused('paid_checks_malformed', 'paid-checks file', problems);
  const out: Array<{ payment_id: number; check_number: number; recorded: boolean; status: string; exception?: boolean }> = [];
  for (const e of entries) {
    const payment = await store.findPayment(deps.db, book, e.paymentId);
    if (payment?.status === 'voided') {
      // The bank paid a check it was told to refuse: the donors have their money back, so the sponsor
      // carries the payment as an exception until an operator resolves it (`almoner check` reports it).
      const found = await recordVoidedCheckPaid(deps, book, payment, e.paidDate, actor);
      out.push({ payment_id: e.paymentId, check_number: e.checkNumber, recorded: found, status: 'voided', exception: true });
      continue;
    }
    if (payment?.status !== 'sent') {
      // Cashed before: reported, not applied twice.
      out.push({ payment_id: e.paymentId, check_number: e.checkNumber, recorded: false, status: payment?.status ?? 'unknown' });
      continue;
    }
    await settle(deps, book, e.paymentId, 'cash', { actor });
    out.push({ payment_id: e.paymentId, check_number: e.checkNumber, recorded: true, status: 'cashed' });
  }
  return out;
}

/** A voided check the bank paid: an exception, once, audited; true when it is new. */
async function recordVoidedCheckPaid(deps: Deps, book: Book, payment: store.PaymentRow, paidDate: string, actor: string): Promise<boolean> {
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const row = { book, payment_id: Number(payment.id), kind: 'voided_check_paid', amount_cents: Number(payment.amount_cents), paid_date: paidDate, found_at: at, found_by: actor };
    if (!(await store.insertException(trx, row))) return false;
    await recordAudit(trx, {
      book,
      actor,
      action: 'payment.exception',
      object_type: 'payment',
      object_id: Number(payment.id),
      before: { status: 'voided' },
      after: { exception: 'voided_check_paid', check_number: payment.check_number, amount_cents: row.amount_cents, paid_date: paidDate },
      at,
    });
    return true;
  });
}

/** The book's exceptions (checks paid after they were voided), open ones first. */
export async function listExceptions(deps: Deps, book: Book) {
  return (await store.exceptionsOf(deps.db, book)).map((x) => ({ ...x, id: Number(x.id), payment_id: Number(x.payment_id), amount: dollarsText(Number(x.amount_cents)) }));
}

/**
 * An operator resolves an exception once: `recovered` (the bank gave the money back) or `charged`
 * (the sponsor's own account bore it), with a note; audited. Throws payment_exception_not_found,
 * validation_failed, conflict (payment_exception_resolved).
 */
export async function resolveException(deps: Deps, book: Book, id: number, input: { resolution: string; note: string }, actor: string): Promise<void> {
  const note = input.note.trim();
  if (input.resolution !== 'recovered' && input.resolution !== 'charged')
    throw fieldErrors([{ field: 'resolution', code: 'validation_failed', message: 'must be recovered or charged' }]);
  if (note === '' || note.length > 500) throw fieldErrors([{ field: 'note', code: 'validation_failed', message: 'says what was done (1 to 500 characters)' }]);
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const known = await store.findException(trx, book, id);
    if (known === undefined) throw notFound('payment_exception_not_found', `no payment exception ${id}`);
    if (!(await store.resolveException(trx, book, id, { resolution: input.resolution, resolved_at: at, resolved_by: actor, note }))) {
      throw conflict('payment_exception_resolved', `payment exception ${id} was resolved already (${known.resolution})`);
    }
    await recordAudit(trx, {
      book,
      actor,
      action: 'payment.exception_resolved',
      object_type: 'payment',
      object_id: Number(known.payment_id),
      before: { exception: known.kind },
      after: { resolution: input.resolution, note },
      at,
    });
  });
}
