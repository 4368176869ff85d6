// Recurring donations and the scheduler that turns their dates into
// donations, exactly once per date however many processes run it.
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import { recordOutcome, type IdempotencyClaim } from '../idempotency/index.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { centsToDollars } from '../../shared/money.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import { findRecipient, nonProfitCards, normalizeEin, type NonProfitCard } from '../nonprofits/index.ts';
import { checkFundraiserOfDonation, fundraiserOpenOn, giveMatchedIn, insertWithHold } from '../donations/index.ts';
import type { Caller } from '../../shared/caller.ts';
import {
  claimOccurrence,
  dueSchedules,
  findSchedule,
  insertSchedule,
  pageOfSchedules,
  stopSchedule,
  type Schedule,
  scheduleByExternalId,
  setScheduleMetadata,
} from './scheduled.store.ts';
import { isDate, occurrenceDate, type ScheduleFrequency } from './scheduled.ts';
import { authorize } from '../../shared/policy.ts';
import { changedMetadata, ownerPartnerFields, partnerColumns, withExternalId, type ExternalIds } from '../../shared/partner.ts';
import { isUniqueViolation } from '../../db/errors.ts';

export interface NewSchedule {
  ein: string;
  amount_cents: number;
  frequency: ScheduleFrequency;
  next_date?: string;
  note?: string;
  visibility?: 'public' | 'private';
  /** Partner fields (rules §21). */
  external_id?: string;
  metadata?: unknown;
  /** The fundraiser its payments are given to while it is open (rules §22); only the first is matched. */
  fundraiser_id?: number;
  /** The app whose donate link started it (rules §25): its endpoints hear of each payment. */
  via_app_id?: number;
}

function today(deps: Deps): string {
  return dayOf(deps.clock.now());
}

async function scheduleForms(deps: Deps, rows: Schedule[]) {
  const cards = await nonProfitCards(
    deps,
    rows.map((r) => r.non_profit_id),
  );
  return rows.map((r) => {
    const np = cards.get(r.non_profit_id);
    assert(np !== undefined, 'nonProfitCards has every id asked for');
    return scheduleForm(r, np);
  });
}

async function oneScheduleForm(deps: Deps, r: Schedule) {
  const [form] = await scheduleForms(deps, [r]);
  assert(form !== undefined, 'one form for one row');
  return form;
}

function scheduleForm(r: Schedule, np: NonProfitCard) {
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
    fundraiser_id: r.fundraiser_id,
    ...ownerPartnerFields(r),
  };
}

/** Throws validation_failed (a bad or past date), non_profit_not_found, non_profit_ineligible. */
export async function createSchedule(deps: Deps, caller: Caller, input: NewSchedule, claim?: IdempotencyClaim) {
  authorize(caller, 'schedule');
  const start = input.next_date ?? today(deps);
  if (!isDate(start) || start < today(deps)) {
    throw new AppError('unprocessable', 'validation_failed', 'next_date must be a date (YYYY-MM-DD), today or later', {
      errors: [{ field: 'next_date', code: 'validation_failed', message: 'must be today or later' }],
    });
  }
  const ein = normalizeEin(input.ein);
  assert(ein !== null, 'the schema checks the EIN');
  const np = await findRecipient(deps.db, ein);
  const at = deps.clock.now().toISOString();
  const partner = partnerColumns(input);
  // Open today and for this organisation, as a donation's (404 fundraiser_not_found, 409 fundraiser_not_open, 422 fundraiser_other_organisation).
  const fundraiserId = input.fundraiser_id === undefined ? null : await checkFundraiserOfDonation(deps, caller, input.fundraiser_id, ein);
  const ids: ExternalIds = { kind: 'recurring donation', holder: (id) => scheduleByExternalId(deps.db, caller.user_id, id), isTaken: isUniqueViolation };
  const row = await withExternalId(ids, partner.external_id, () =>
    deps.db.transaction().execute(async (trx) => {
      const inserted = await insertSchedule(trx, {
        ...partner,
        book: caller.book,
        user_id: caller.user_id,
        fund_id: caller.fund_id,
        actor_id: caller.actor_id,
        non_profit_id: np.id,
        amount_cents: input.amount_cents,
        frequency: input.frequency,
        start_date: start,
        occurrences: 0,
        next_date: start,
        note: input.note ?? null,
        visibility: input.visibility ?? 'public',
        fundraiser_id: fundraiserId,
        app_id: input.via_app_id ?? null,
        status: 'active',
        created_at: at,
        updated_at: at,
      });
      await recordOutcome(trx, claim, `scheduled_donation:${inserted.id}`);
      return inserted;
    }),
  );
  return oneScheduleForm(deps, row);
}

/** The caller's recurring donation with this external id (rules §21), as a page of one, or of none. */
export async function schedulesByExternalId(deps: Deps, caller: Caller, externalId: string) {
  authorize(caller, 'read');
  const id = await scheduleByExternalId(deps.db, caller.user_id, externalId);
  const rows = id === undefined ? [] : [await ownSchedule(deps, caller, id)];
  return toPage(await scheduleForms(deps, rows), rows.length, { page: 1, per_page: 1 });
}

/** Changes a recurring donation's metadata (a key set to "" is removed). Throws scheduled_donation_not_found, validation_failed. */
export async function updateScheduleMetadata(deps: Deps, caller: Caller, id: number, change: unknown) {
  authorize(caller, 'schedule');
  const row = await ownSchedule(deps, caller, id);
  await setScheduleMetadata(deps.db, id, changedMetadata(row.metadata, change), deps.clock.now().toISOString());
  return oneScheduleForm(deps, await ownSchedule(deps, caller, id));
}

export async function listSchedules(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count } = await pageOfSchedules(deps.db, caller.user_id, page);
  return toPage(await scheduleForms(deps, rows), count, page);
}

async function ownSchedule(deps: Deps, caller: Caller, id: number): Promise<Schedule> {
  const row = await findSchedule(deps.db, caller.book, id);
  if (row === undefined || row.user_id !== caller.user_id) throw notFound('scheduled_donation_not_found', `no scheduled donation ${id}`);
  return row;
}

export async function getSchedule(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'read');
  return oneScheduleForm(deps, await ownSchedule(deps, caller, id));
}

/** Stops a recurring donation; donations it already made are kept. Throws scheduled_donation_not_found. */
export async function cancelSchedule(deps: Deps, caller: Caller, id: number): Promise<void> {
  authorize(caller, 'schedule');
  await ownSchedule(deps, caller, id);
  await stopSchedule(deps.db, id, deps.clock.now().toISOString());
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
    const due = await dueSchedules(deps.db, asOf, 100);
    if (due.length === 0 || created >= limit) break;
    let progressed = false;
    for (const s of due) {
      if (created >= limit) break;
      const made = await deps.db.transaction().execute(async (trx) => {
        const following = occurrenceDate(s.start_date, s.frequency as ScheduleFrequency, s.occurrences + 1);
        const next = { next_date: following, status: s.frequency === 'OneTime' ? 'completed' : 'active' };
        if (!(await claimOccurrence(trx, s, next, deps.clock.now().toISOString()))) return false; // another scheduler took this occurrence
        // Given to its fundraiser while that is open on the payment's date; matched on the first payment only (rules §22).
        const fundraiser = s.fundraiser_id === null ? undefined : await fundraiserOpenOn(trx, s.book, s.fundraiser_id, s.non_profit_id, s.next_date);
        const payment = {
          book: s.book,
          user_id: s.user_id,
          fund_id: s.fund_id,
          non_profit_id: s.non_profit_id,
          amount_cents: s.amount_cents,
          note: s.note,
          private_memo: null,
          visibility: s.visibility,
          scheduled_donation_id: s.id,
          scheduled_for: s.next_date,
          // Recurring donations are for API keys only (ADR 16): no app's token sets one up.
          app_connection_id: null,
          fundraiser_id: fundraiser ?? null,
          app_id: s.app_id,
        };
        if (fundraiser !== undefined && s.occurrences === 0) await giveMatchedIn(deps, trx, payment, fundraiser);
        else await insertWithHold(deps, trx, payment);
        return true;
      });
      if (made) {
        deps.metrics.counters.donationCreated(s.book, s.amount_cents);
        created += 1;
        progressed = true;
      }
    }
    if (!progressed) break;
  }
  return { created };
}
