// A run's files for the bank and the mail room (docs/rules.md §17): the NACHA file of its ACH
// payments, the check register to print, and the positive-pay file that tells the bank which
// checks to honour and which to refuse, with its control totals.
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { conflict } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { dollarsText } from '../../shared/money.ts';
import { unseal } from '../../shared/sealed.ts';
import { achFile, originatorProblems, type Credit } from './nacha.ts';
import { getRun, LEFT_OUT } from './payments.service.ts';
import * as store from './payments.store.ts';
import * as payees from './payees.store.ts';

/** The run's NACHA file: every ACH payment, one entry and addenda each. Throws ach_not_configured (naming the settings), payment_run_not_found. */
export async function achFileOf(deps: Deps, book: Book, id: number): Promise<string> {
  const problems = originatorProblems(deps.config.payments.ach);
  if (problems.length > 0) throw conflict('ach_not_configured', `set ${problems.join(', ')} to make ACH files`);
  const key = deps.config.payments.payeeKey;
  if (key === undefined) throw conflict('payee_key_not_configured', 'set PAYEE_DATA_KEY (or PAYEE_DATA_KEY_FILE): the bank details are sealed with it');
  const run = await getRun(deps, book, id);
  const payments = (await store.paymentsOfRun(deps.db, id)).filter((p) => p.method === 'ach' && !LEFT_OUT.has(p.status));
  // A file whose batch has no entry is one a bank rejects: there is nothing to send.
  if (payments.length === 0) throw conflict('ach_file_empty', `payment run ${id} pays no one by ACH: there is no NACHA file to send`);
  const grants = await store.grantsOf(
    deps.db,
    payments.map((p) => Number(p.id)),
  );
  const accounts = new Map((await payees.payeeAccountsByIds(deps.db, [...new Set(payments.map((p) => Number(p.payee_account_id)))])).map((a) => [Number(a.id), a] as const));
  const grantsByPayment = Map.groupBy(grants, (g) => g.payment_id);
  const credits: Credit[] = [];
  for (const p of payments) {
    const account = accounts.get(Number(p.payee_account_id));
    assert(account !== undefined, 'an ACH payment names its bank details');
    const paid = grantsByPayment.get(Number(p.id)) ?? [];
    const ids = paid.map((g) => g.donation_id);
    credits.push({
      routing: account.routing,
      account: unseal(key, account.account_sealed),
      accountType: account.account_type === 'savings' ? 'savings' : 'checking',
      amountCents: Number(p.amount_cents),
      reference: `PAYMENT ${p.id}`,
      receiver: p.payee,
      remittance: addendaText(
        ids,
        paid.map((g) => g.tracking_id),
      ),
      trace: ((Number(p.id) - 1) % 9_999_999) + 1,
    });
  }
  // Its place among the book's runs opened that day picks the File ID Modifier (A for the first).
  const fileOfDay = await store.runsOpenedBefore(deps.db, book, id);
  return achFile(deps.config.payments.ach, credits, deps.clock.now().toISOString(), run.pay_date, id % 10_000_000, fileOfDay);
}

/**
 * A payment's addenda (80 characters): its grants, and the tracking ids of those made at a charity's
 * checkout (rules §24) before the donation ids, so that what the charity matches on comes first.
 */
export function addendaText(donationIds: readonly number[], trackingIds: ReadonlyArray<string | null>): string {
  const tracking = trackingIds.filter((t) => t !== null);
  const parts = [`GRANTS ${donationIds.length}`, ...(tracking.length > 0 ? [`TRACKING ${tracking.join(' ')}`] : []), `DONATIONS ${donationIds.join(' ')}`];
  return parts.join(' ').slice(0, 80);
}

export const CHECK_REGISTER_HEADER = ['check_number', 'pay_date', 'payee', 'address', 'amount', 'payment_id', 'grants', 'status'] as const;
/** The positive-pay file: each check with `I` (issued: honour it) or `V` (voided: refuse it). */
export const POSITIVE_PAY_HEADER = ['account', 'check_number', 'issue_date', 'amount', 'payee', 'issue_void'] as const;

/**
 * The run's checks as rows: the register (to print and mail them) or the positive-pay file (for the
 * bank that honours them), which ends with its control totals: a `TOTAL` row with the amount of the
 * checks issued and the count of each kind.
 */
export async function* checkRows(deps: Deps, book: Book, id: number, form: 'register' | 'positive_pay'): AsyncGenerator<unknown[]> {
  const run = await getRun(deps, book, id);
  const totals = { issued: 0, issuedCents: 0, voided: 0, voidedCents: 0 };
  for (const p of await store.paymentsOfRun(deps.db, id)) {
    if (p.method !== 'check') continue;
    // A check left out is never printed, but its number was handed out: the bank is told to refuse it.
    if (form === 'register' && LEFT_OUT.has(p.status)) continue;
    const amount = dollarsText(Number(p.amount_cents));
    const voided = p.status === 'voided' || LEFT_OUT.has(p.status);
    if (voided) {
      totals.voided += 1;
      totals.voidedCents += Number(p.amount_cents);
    } else {
      totals.issued += 1;
      totals.issuedCents += Number(p.amount_cents);
    }
    yield form === 'register'
      ? [p.check_number, run.pay_date, p.payee, p.address, amount, p.id, p.grants, p.status]
      : [deps.config.payments.checkAccount, p.check_number, run.pay_date, amount, p.payee, voided ? 'V' : 'I'];
  }
  if (form === 'positive_pay')
    yield [
      deps.config.payments.checkAccount,
      'TOTAL',
      run.pay_date,
      dollarsText(totals.issuedCents),
      `${totals.issued} issued, ${totals.voided} voided (${dollarsText(totals.voidedCents)})`,
      '',
    ];
}
