// Recurring donations and the scheduler that turns their dates into
// donations, exactly once per date however many processes run it.
import type { Deps } from '../../deps.ts';
import { recordOutcome } from '../idempotency/index.ts';
import type { ScheduledDonationsTable } from '../../db/schema.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { centsToDollars } from '../../shared/money.ts';
import { offsetOf, toPage, type PageRequest } from '../../shared/page.ts';
import { findRecipient, normalizeEin } from '../nonprofits/index.ts';
import { insertWithHold } from '../donations/index.ts';
import type { Caller } from '../../shared/caller.ts';
import { isDate, occurrenceDate, type ScheduleFrequency } from './scheduled.ts';

type Row = Omit<ScheduledDonationsTable, 'id'> & { id: number };

export interface NewSchedule {
  ein: string;
  amount_cents: number;
  frequency: ScheduleFrequency;
  next_date?: string;
  note?: string;
  visibility?: 'public' | 'private';
}

function today(deps: Deps): string {
  return deps.clock.now().toISOString().slice(0, 10);
}

async function scheduleForm(deps: Deps, r: Row) {
  const np = await deps.db.selectFrom('non_profits').select(['ein', 'name']).where('id', '=', r.non_profit_id).executeTakeFirstOrThrow();
  return {
    id: r.id,
    ein: np.ein,
    non_profit_name: np.name,
    amount: centsToDollars(r.amount_cents),
    frequency: r.frequency,
    next_date: r.status === 'active' ? r.next_date : null,
    status: r.status,
    note: r.note,
    visibility: r.visibility,
    created_at: r.created_at,
  };
}

/** Throws validation_failed (a bad or past date), non_profit_not_found, non_profit_ineligible. */
export async function createSchedule(deps: Deps, caller: Caller, input: NewSchedule) {
  const start = input.next_date ?? today(deps);
  if (!isDate(start) || start < today(deps)) {
    throw new AppError('unprocessable', 'validation_failed', 'next_date must be a date (YYYY-MM-DD), today or later', { errors: [{ field: 'next_date', code: 'validation_failed', message: 'must be today or later' }] });
  }
  const ein = normalizeEin(input.ein);
  assert(ein !== null, 'the schema checks the EIN');
  const np = await findRecipient(deps.db, ein);
  const at = deps.clock.now().toISOString();
  const row = await deps.db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('scheduled_donations').values({
      book: caller.book, user_id: caller.user_id, fund_id: caller.fund_id, non_profit_id: np.id, amount_cents: input.amount_cents, frequency: input.frequency,
      start_date: start, occurrences: 0, next_date: start, note: input.note ?? null, visibility: input.visibility ?? 'public', status: 'active',
      created_at: at, updated_at: at,
    }).returningAll().executeTakeFirstOrThrow();
    await recordOutcome(trx, `scheduled_donation:${inserted.id}`);
    return inserted;
  });
  return scheduleForm(deps, row);
}

export async function listSchedules(deps: Deps, caller: Caller, page: PageRequest) {
  const [counted, rows] = await Promise.all([
    deps.db.selectFrom('scheduled_donations').where('user_id', '=', caller.user_id).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    deps.db.selectFrom('scheduled_donations').selectAll().where('user_id', '=', caller.user_id).orderBy('created_at', 'desc').orderBy('id', 'desc')
      .limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  return toPage(await Promise.all(rows.map((r) => scheduleForm(deps, r))), Number(counted.n), page);
}

async function ownSchedule(deps: Deps, caller: Caller, id: number): Promise<Row> {
  const row = await deps.db.selectFrom('scheduled_donations').selectAll().where('id', '=', id).where('book', '=', caller.book).executeTakeFirst();
  if (row === undefined || row.user_id !== caller.user_id) throw notFound('scheduled_donation_not_found', `no scheduled donation ${id}`);
  return row;
}

export async function getSchedule(deps: Deps, caller: Caller, id: number) {
  return scheduleForm(deps, await ownSchedule(deps, caller, id));
}

/** Stops a recurring donation; donations it already made are kept. Throws scheduled_donation_not_found. */
export async function cancelSchedule(deps: Deps, caller: Caller, id: number): Promise<void> {
  await ownSchedule(deps, caller, id);
  await deps.db.updateTable('scheduled_donations').set({ status: 'cancelled', updated_at: deps.clock.now().toISOString() })
    .where('id', '=', id).where('status', '=', 'active').execute();
}

/**
 * Makes the donations that are due on or before `asOf`, one per occurrence
 * date. Each occurrence is claimed by a compare-and-set on the schedule's
 * occurrence count, in the same database transaction as its donation, and
 * (scheduled_donation_id, scheduled_for) is unique: two schedulers, or a
 * restart half-way, never make a date twice.
 */
export async function runScheduler(deps: Deps, asOf: string = today(deps), limit = 1000): Promise<{ created: number }> {
  let created = 0;
  for (;;) {
    const due = await deps.db.selectFrom('scheduled_donations').selectAll().where('status', '=', 'active').where('next_date', '<=', asOf)
      .orderBy('next_date').orderBy('id').limit(100).execute();
    if (due.length === 0 || created >= limit) break;
    let progressed = false;
    for (const s of due) {
      if (created >= limit) break;
      const made = await deps.db.transaction().execute(async (trx) => {
        const following = occurrenceDate(s.start_date, s.frequency as ScheduleFrequency, s.occurrences + 1);
        const claimed = await trx.updateTable('scheduled_donations').set({
          occurrences: s.occurrences + 1,
          next_date: following,
          status: s.frequency === 'OneTime' ? 'completed' : 'active',
          updated_at: deps.clock.now().toISOString(),
        }).where('id', '=', s.id).where('occurrences', '=', s.occurrences).where('status', '=', 'active').executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) return false; // another scheduler took this occurrence
        await insertWithHold(deps, trx, {
          book: s.book, user_id: s.user_id, fund_id: s.fund_id, non_profit_id: s.non_profit_id, amount_cents: s.amount_cents, note: s.note, private_memo: null,
          visibility: s.visibility, scheduled_donation_id: s.id, scheduled_for: s.next_date,
        });
        return true;
      });
      if (made) {
        created += 1;
        progressed = true;
      }
    }
    if (!progressed) break;
  }
  return { created };
}
