// SQL of payment runs, payments, their grants and payees' bank details (rules §17).
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { PaymentExceptionsTable, PaymentRunsTable, PaymentsTable } from '../../db/schema.payments.ts';
import type { Book } from '../../shared/book.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { bulkInsert } from '../../db/bulk.ts';

export type RunRow = Selectable<PaymentRunsTable>;
export type PaymentRow = Selectable<PaymentsTable>;

/** A run for the date, or undefined when the book has one for that date already. */
export async function insertRun(trx: Trx, run: { book: Book; pay_date: string; opened_at: string; opened_by: string }): Promise<number | undefined> {
  try {
    const made = await trx
      .insertInto('payment_runs')
      .values({ ...run, status: 'open', submitted_at: null, submitted_by: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(made.id);
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

export async function findRun(db: Db | Trx, book: Book, id: number): Promise<RunRow | undefined> {
  return await db.selectFrom('payment_runs').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

export async function listRuns(db: Db, book: Book, limit: number): Promise<RunRow[]> {
  return await db.selectFrom('payment_runs').selectAll().where('book', '=', book).orderBy('id', 'desc').limit(limit).execute();
}

/** Moves an open run to submitted; false when it was not open (submitted already, by another operator first). */
export async function submitRunRow(trx: Trx, id: number, at: string, by: string): Promise<boolean> {
  const result = await trx
    .updateTable('payment_runs')
    .set({ status: 'submitted', submitted_at: at, submitted_by: by })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records a second operator's approval of an open run; false when it was not open or was approved already. */
export async function approveRunRow(trx: Trx, id: number, at: string, by: string): Promise<boolean> {
  const result = await trx
    .updateTable('payment_runs')
    .set({ approved_at: at, approved_by: by })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .where('approved_by', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Moves an open run to withdrawn; false when it was not open. */
export async function withdrawRunRow(trx: Trx, id: number, at: string, by: string, reason: string): Promise<boolean> {
  const result = await trx
    .updateTable('payment_runs')
    .set({ status: 'withdrawn', withdrawn_at: at, withdrawn_by: by, withdraw_reason: reason })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Takes every grant out of a payment (it was withdrawn: its donations wait for another run); their donation ids. */
export async function releaseGrants(trx: Trx, paymentId: number): Promise<number[]> {
  const gone = await trx.deleteFrom('payment_grants').where('payment_id', '=', paymentId).returning('donation_id').execute();
  return gone.map((g) => Number(g.donation_id)).sort((a, b) => a - b);
}

/** What screening knows now of the organisations (rules §16), for the check again at submission. */
export async function organisationsToScreen(db: Db | Trx, ids: readonly number[]) {
  const rows = [];
  for (let i = 0; i < ids.length; i += 1000)
    rows.push(
      ...(await db
        .selectFrom('non_profits')
        .select(['id', 'ein', 'name', 'eligible', 'removed_at', 'foundation', 'diligence'])
        .where('id', 'in', ids.slice(i, i + 1000))
        .execute()),
    );
  return rows;
}

/** Approved donations of the book in no payment yet, with what paying their organisation needs, by organisation then id. */
export async function payableDonations(db: Db | Trx, book: Book) {
  return await db
    .selectFrom('donations as d')
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .leftJoin('payment_grants as g', 'g.donation_id', 'd.id')
    .select([
      'd.id',
      'd.user_id',
      'd.amount_cents',
      'd.non_profit_id',
      'n.ein',
      'n.name',
      'n.street',
      'n.city',
      'n.state',
      'n.zip',
      'n.eligible',
      'n.removed_at',
      'n.foundation',
      'n.diligence',
    ])
    .where('d.book', '=', book)
    .where('d.status', '=', 'approved')
    .where('g.donation_id', 'is', null)
    .orderBy('d.non_profit_id')
    .orderBy('d.id')
    .execute();
}

/** The next check number of the book: one past the highest used, or the first configured. */
export async function nextCheckNumber(trx: Trx, book: Book, first: number): Promise<number> {
  const row = await trx
    .selectFrom('payments')
    .select((eb) => eb.fn.max('check_number').as('last'))
    .where('book', '=', book)
    .executeTakeFirst();
  const last = row?.last === null || row?.last === undefined ? undefined : Number(row.last);
  return last === undefined ? first : Math.max(first, last + 1);
}

const PAYMENT_COLUMNS = [
  'run_id',
  'book',
  'non_profit_id',
  'ein',
  'payee',
  'address',
  'method',
  'amount_cents',
  'grants',
  'screened',
  'status',
  'payee_account_id',
  'check_number',
  'return_code',
  'created_at',
  'sent_at',
  'settled_at',
  'settled_by',
] as const;

/**
 * A run's payments with their grants, in bulk statements of a thousand rows (one organisation
 * once per run): their ids by organisation, or undefined when another run took one of their
 * donations, or a check number, first.
 */
export async function insertPayments(
  trx: Trx,
  payments: ReadonlyArray<Omit<PaymentRow, 'id'>>,
  grants: ReadonlyArray<ReadonlyArray<{ donation_id: number; amount_cents: number }>>,
): Promise<Map<number, number> | undefined> {
  const ids = new Map<number, number>();
  try {
    for (let i = 0; i < payments.length; i += 1000) {
      const chunk = payments.slice(i, i + 1000).map((p) => PAYMENT_COLUMNS.map((c) => p[c]));
      for (const r of await bulkInsert<{ id: number; non_profit_id: number }>(trx, 'payments', PAYMENT_COLUMNS, chunk, ['id', 'non_profit_id']))
        ids.set(Number(r.non_profit_id), Number(r.id));
    }
    const rows = payments.flatMap((p, i) => (grants[i] ?? []).map((g) => [ids.get(p.non_profit_id), g.donation_id, g.amount_cents]));
    for (let i = 0; i < rows.length; i += 1000) await bulkInsert(trx, 'payment_grants', ['payment_id', 'donation_id', 'amount_cents'], rows.slice(i, i + 1000));
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  return ids;
}

export async function paymentsOfRun(db: Db | Trx, runId: number): Promise<PaymentRow[]> {
  return await db.selectFrom('payments').selectAll().where('run_id', '=', runId).orderBy('id').execute();
}

export async function findPayment(db: Db | Trx, book: Book, id: number): Promise<PaymentRow | undefined> {
  return await db.selectFrom('payments').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

/** The grants of these payments, each with its donation's owner: what a remittance and the donors' notices name. */
export async function grantsOf(db: Db | Trx, paymentIds: readonly number[]) {
  if (paymentIds.length === 0) return [];
  const rows = [];
  for (let i = 0; i < paymentIds.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom('payment_grants as g')
        .innerJoin('donations as d', 'd.id', 'g.donation_id')
        .select(['g.payment_id', 'g.donation_id', 'g.amount_cents', 'd.user_id', 'd.status', 'd.tracking_id'])
        .where('g.payment_id', 'in', paymentIds.slice(i, i + 500))
        .orderBy('g.payment_id')
        .orderBy('g.donation_id')
        .execute()),
    );
  }
  return rows;
}

/** Moves a payment from one status to the next; false when it was no longer in `from` (another operator first). */
export async function settlePayment(
  trx: Trx,
  id: number,
  from: string,
  change: { status: string; settled_at?: string; settled_by?: string; sent_at?: string; return_code?: string },
): Promise<boolean> {
  const result = await trx.updateTable('payments').set(change).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks the open payments among `ids` sent at `at`, a thousand to a statement; how many were open. */
export async function sendPayments(trx: Trx, ids: readonly number[], at: string): Promise<number> {
  let sent = 0;
  for (let i = 0; i < ids.length; i += 1000) {
    const result = await trx
      .updateTable('payments')
      .set({ status: 'sent', sent_at: at })
      .where('id', 'in', ids.slice(i, i + 1000))
      .where('status', '=', 'open')
      .executeTakeFirst();
    sent += Number(result.numUpdatedRows);
  }
  return sent;
}

/** Checks sent, neither cashed nor voided, dated (their run's pay date) before `beforeDay` (YYYY-MM-DD): stale. */
export async function staleChecks(db: Db | Trx, book: Book, beforeDay: string): Promise<number[]> {
  const rows = await db
    .selectFrom('payments as p')
    .innerJoin('payment_runs as r', 'r.id', 'p.run_id')
    .select('p.id')
    .where('p.book', '=', book)
    .where('p.method', '=', 'check')
    .where('p.status', '=', 'sent')
    .where('r.pay_date', '<', beforeDay)
    .orderBy('p.id')
    .execute();
  return rows.map((r) => Number(r.id));
}

/** What payments' remittance advice lists: each grant with what its donor chose the charity learns (rules §17). */
export async function remittanceLines(db: Db | Trx, paymentIds: readonly number[]) {
  if (paymentIds.length === 0) return [];
  return await db
    .selectFrom('payment_grants as g')
    .innerJoin('donations as d', 'd.id', 'g.donation_id')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .leftJoin('accounts as a', 'a.user_id', 'd.user_id')
    .select(['g.payment_id', 'g.donation_id', 'g.amount_cents', 'd.share', 'd.designation', 'd.dedication', 'd.tracking_id', 'u.name', 'a.email'])
    .where('g.payment_id', 'in', paymentIds)
    .orderBy('g.payment_id')
    .orderBy('g.donation_id')
    .execute();
}

/** The live book's payments to an organisation once sent, newest first, with their run's date. */
export async function paymentsToOrganisation(db: Db, nonProfitId: number, limit: number) {
  return await db
    .selectFrom('payments as p')
    .innerJoin('payment_runs as r', 'r.id', 'p.run_id')
    .selectAll('p')
    .select('r.pay_date')
    .where('p.non_profit_id', '=', nonProfitId)
    .where('p.book', '=', 'live')
    .where('p.status', '!=', 'open')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .execute();
}

/** The book's payment by its check number. */
export async function paymentByCheckNumber(db: Db | Trx, book: Book, checkNumber: number): Promise<PaymentRow | undefined> {
  return await db.selectFrom('payments').selectAll().where('book', '=', book).where('check_number', '=', checkNumber).executeTakeFirst();
}

export type PaymentExceptionRow = Selectable<PaymentExceptionsTable>;

/** Records an exception once per payment and kind; false when it was recorded before. */
export async function insertException(trx: Trx, row: Omit<PaymentExceptionRow, 'id' | 'resolution' | 'resolved_at' | 'resolved_by' | 'note'>): Promise<boolean> {
  const made = await trx
    .insertInto('payment_exceptions')
    .values(row)
    .onConflict((oc) => oc.columns(['payment_id', 'kind']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return made !== undefined;
}

/** The book's exceptions, open ones first, newest first. */
export async function exceptionsOf(db: Db | Trx, book: Book): Promise<PaymentExceptionRow[]> {
  return db.selectFrom('payment_exceptions').selectAll().where('book', '=', book).orderBy('resolved_at', 'desc').orderBy('id', 'desc').execute();
}

/** One exception of the book by id, or undefined. */
export async function findException(db: Db | Trx, book: Book, id: number): Promise<PaymentExceptionRow | undefined> {
  return db.selectFrom('payment_exceptions').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

/** Resolves an open exception once (compare-and-set); false when it is not open. */
export async function resolveException(trx: Trx, book: Book, id: number, change: { resolution: string; resolved_at: string; resolved_by: string; note: string }): Promise<boolean> {
  const done = await trx
    .updateTable('payment_exceptions')
    .set(change)
    .where('id', '=', id)
    .where('book', '=', book)
    .where('resolution', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return done !== undefined;
}

/** Every exception not resolved yet, of both books: what `almoner check` reports. */
export async function openExceptions(db: Db | Trx): Promise<PaymentExceptionRow[]> {
  return db.selectFrom('payment_exceptions').selectAll().where('resolution', 'is', null).orderBy('id').execute();
}

/** How many runs of the book were opened earlier on the same day as run `id` (0 for the day's first). */
export async function runsOpenedBefore(db: Db | Trx, book: Book, id: number): Promise<number> {
  const run = await db.selectFrom('payment_runs').select('opened_at').where('id', '=', id).executeTakeFirstOrThrow();
  const day = run.opened_at.slice(0, 10);
  const rows = await db
    .selectFrom('payment_runs')
    .select('id')
    .where('book', '=', book)
    .where('id', '<', id)
    .where('opened_at', '>=', `${day}T00:00:00`)
    .where('opened_at', '<', `${day}T99`)
    .execute();
  return rows.length;
}

/** What the metrics show of money out (rules §17): runs open, open runs past their pay date, unresolved exceptions, payments returned in the week to `today`. */
export async function moneyOutHealth(db: Db, today: string): Promise<{ open_runs: number; overdue_runs: number; open_exceptions: number; returned_7d: number }> {
  const runs = await db
    .selectFrom('payment_runs')
    .select((eb) => [eb.fn.countAll<number>().as('open'), eb.fn.sum<number>(eb.case().when('pay_date', '<', today).then(1).else(0).end()).as('overdue')])
    .where('status', '=', 'open')
    .executeTakeFirstOrThrow();
  const exceptions = await db
    .selectFrom('payment_exceptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('resolution', 'is', null)
    .executeTakeFirstOrThrow();
  const weekAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 7 * 86_400_000).toISOString();
  const returned = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'returned')
    .where('settled_at', '>=', weekAgo)
    .executeTakeFirstOrThrow();
  return { open_runs: Number(runs.open), overdue_runs: Number(runs.overdue ?? 0), open_exceptions: Number(exceptions.n), returned_7d: Number(returned.n) };
}
