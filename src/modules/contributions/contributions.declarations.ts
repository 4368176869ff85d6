// Declared contributions (rules §7): a donor says what they will send and
// gets the instructions and a reference; an operator finds the declaration by
// that reference when the money arrives and records what actually came (which
// may differ: partial, more, other units; non-cash valued on the day, with its
// source). Then `pending` and `success` as for any contribution.
import type { Deps } from '../../deps.ts';
import { AppError, conflict, fieldErrors, notFound, type FieldError, type ProblemCode } from '../../shared/errors.ts';
import { centsToDollars, differsByMoreThan, dollarsText, CONTRIBUTION_MAX_CENTS, exactValueInCents, parseDollars, valueInCents } from '../../shared/money.ts';
import type { Book } from '../../shared/book.ts';
import type { Caller } from '../../shared/caller.ts';
import { recordAudit } from '../audit/index.ts';
import { recordEvent } from '../events/index.ts';
import { recordOutcome, type IdempotencyClaim } from '../idempotency/index.ts';
import { awaitingMoney, cancelDeclared, contributionByExternalId, findContribution, insertContribution, recordArrival, setContributionMetadata } from './contributions.store.ts';
import { advanceContribution, contributionForm } from './contributions.service.ts';
import { CONTRIBUTION_TYPES, isPositiveDecimal8, type ContributionType } from './contributions.ts';
import { RAILS, type Instructions } from './rails.ts';
import { authorize } from '../../shared/policy.ts';
import { changedMetadata, partnerColumns, withExternalId, type ExternalIds } from '../../shared/partner.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { toPage } from '../../shared/page.ts';

const SYMBOL = /^[A-Z][A-Z0-9.-]{0,15}$/;
const REFERENCE_CHARS = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'; // no 0/O, 1/I: read over the phone or off a check

export interface Declaration {
  type: string;
  /** Cash: dollars (a JSON number, at most 2 decimals). */
  amount?: unknown;
  /** Stock and crypto: how many units (decimal text or number, up to 8 places), and of what. */
  units?: unknown;
  symbol?: unknown;
  /** Partner fields (rules §21). */
  external_id?: string;
  metadata?: unknown;
}

function reference(deps: Deps): string {
  const raw = deps.ids.base62(16);
  let out = '';
  for (const ch of raw) {
    if (out.length === 8) break;
    out += REFERENCE_CHARS[ch.charCodeAt(0) % REFERENCE_CHARS.length];
  }
  return `ALM-${out.slice(0, 4)}-${out.slice(4, 8)}`;
}

/** The declaration's problems, all at once, or what it declares. */
function validate(input: Declaration): { type: ContributionType; units: string; valuation: string; currency: string; amountCents: number } {
  const problems: FieldError[] = [];
  const bad = (field: string, message: string, code: ProblemCode = 'validation_failed') => problems.push({ field, code, message });
  const type = input.type as ContributionType;
  const rail = RAILS[type];
  if (!(CONTRIBUTION_TYPES as readonly string[]).includes(input.type)) bad('type', `must be one of ${Object.keys(RAILS).join(', ')}`);
  else if (rail === undefined)
    bad('type', `${input.type} needs a card processor this platform does not have; declare one of ${Object.keys(RAILS).join(', ')}`, 'type_not_accepted');
  if (rail?.asset === 'cash' || rail === undefined) {
    const amount = parseDollars(input.amount);
    if (!amount.ok) bad('amount', amount.reason, 'amount_invalid');
    else if (amount.cents < 100) bad('amount', 'must be at least 1 dollar', 'amount_invalid');
    else if (amount.cents > CONTRIBUTION_MAX_CENTS) bad('amount', `must be at most ${centsToDollars(CONTRIBUTION_MAX_CENTS)} dollars`, 'amount_invalid');
    if (input.units !== undefined || input.symbol !== undefined) bad('units', 'a cash contribution has an amount, not units or a symbol');
    if (problems.length > 0 || !amount.ok) throw fieldErrors(problems);
    const dollars = dollarsText(amount.cents);
    return { type, units: dollars, valuation: '1', currency: 'USD', amountCents: amount.cents };
  }
  const units = typeof input.units === 'number' ? String(input.units) : input.units;
  if (!isPositiveDecimal8(units)) bad('units', 'must be a positive decimal with at most 8 places');
  if (typeof input.symbol !== 'string' || !SYMBOL.test(input.symbol))
    bad('symbol', 'must be a ticker or token symbol: a capital letter, then up to 15 capitals, digits, dots or dashes (AAPL, BRK.B, BTC)');
  if (input.amount !== undefined) bad('amount', 'stock and crypto are declared in units; their value is set when they arrive');
  if (problems.length > 0) throw fieldErrors(problems);
  // Valued when they arrive: until then, no value.
  return { type, units: units as string, valuation: '0', currency: input.symbol as string, amountCents: 0 };
}

/**
 * A donor declares a contribution: `waiting_for_funds`, no money moved, with the instructions for
 * its type and a unique reference. Throws unprocessable (validation_failed, amount_invalid, type_not_accepted).
 */
export async function declareContribution(deps: Deps, caller: Caller, input: Declaration, claim?: IdempotencyClaim) {
  authorize(caller, 'add_money');
  const d = validate(input);
  const at = deps.clock.now().toISOString();
  const ref = reference(deps);
  const partner = partnerColumns(input);
  const ids: ExternalIds = { kind: 'contribution', holder: (x) => contributionByExternalId(deps.db, caller.user_id, x), isTaken: isUniqueViolation };
  const id = await withExternalId(ids, partner.external_id, () =>
    deps.db.transaction().execute(async (trx) => {
      const made = await insertContribution(trx, {
        ...partner,
        book: caller.book,
        user_id: caller.user_id,
        fund_id: caller.fund_id,
        actor_id: caller.actor_id,
        type: d.type,
        status: 'waiting_for_funds',
        units: d.units,
        valuation: d.valuation,
        currency: d.currency,
        frequency: 'OneTime',
        amount_cents: d.amountCents,
        created_at: at,
        received_at: null,
        completed_at: null,
        reference: ref,
        declared_at: at,
      });
      await recordEvent(trx, {
        user_id: caller.user_id,
        type: 'contribution.created',
        object_type: 'contribution',
        object_id: made,
        data: { status: 'waiting_for_funds', declared: true },
        at,
      });
      await recordOutcome(trx, claim, `contribution:${made}`);
      return made;
    }),
  );
  return declaredForm(deps, caller, id);
}

/** Changes a contribution's metadata (a key set to "" is removed). Throws contribution_not_found, validation_failed. */
export async function updateContributionMetadata(deps: Deps, caller: Caller, id: number, change: unknown) {
  authorize(caller, 'add_money');
  const c = await findContribution(deps.db, caller.book, id);
  if (c === undefined || c.user_id !== caller.user_id) throw notFound('contribution_not_found', `no contribution ${id}`);
  await setContributionMetadata(deps.db, id, changedMetadata(c.metadata, change));
  return declaredForm(deps, caller, id);
}

/** The caller's contribution with this external id (rules §21), as a page of one, or of none. */
export async function contributionsByExternalId(deps: Deps, caller: Caller, externalId: string) {
  authorize(caller, 'read');
  const id = await contributionByExternalId(deps.db, caller.user_id, externalId);
  const c = id === undefined ? undefined : await findContribution(deps.db, caller.book, id);
  const items = c === undefined ? [] : [contributionForm(c)];
  return toPage(items, items.length, { page: 1, per_page: 1 });
}

/** One of the caller's contributions; a declared one with its reference and instructions. Throws contribution_not_found. */
export async function declaredForm(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'read');
  const c = await findContribution(deps.db, caller.book, id);
  if (c === undefined || c.user_id !== caller.user_id) throw notFound('contribution_not_found', `no contribution ${id}`);
  const rail = RAILS[c.type as ContributionType];
  const instructions: Instructions | null =
    c.reference === null || rail === undefined || c.status !== 'waiting_for_funds'
      ? null
      : rail.instructions(deps.config.sponsor, c.reference, rail.asset === 'cash' ? { amount: c.units } : { units: c.units, symbol: c.currency });
  return { ...contributionForm(c), reference: c.reference, instructions };
}

/** The donor cancels a declaration while nothing has arrived. Throws contribution_not_found, conflict (contribution_not_cancellable). */
export async function cancelContribution(deps: Deps, caller: Caller, id: number): Promise<void> {
  authorize(caller, 'add_money');
  const c = await findContribution(deps.db, caller.book, id);
  if (c === undefined || c.user_id !== caller.user_id) throw notFound('contribution_not_found', `no contribution ${id}`);
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    if (c.reference === null || !(await cancelDeclared(trx, id, at))) {
      throw conflict(
        'contribution_not_cancellable',
        c.cancelled_at !== null ? 'this contribution was already cancelled' : `a contribution that is ${c.status} can no longer be cancelled`,
      );
    }
    await recordEvent(trx, {
      user_id: c.user_id,
      type: 'contribution.updated',
      object_type: 'contribution',
      object_id: id,
      data: { status: 'failed', previous_status: 'waiting_for_funds', cancelled: true },
      at,
    });
  });
}

/** Declarations of a book waiting for their money, oldest first; one reference's when given (operators). */
export async function declarationsAwaitingMoney(deps: Deps, book: Book, reference?: string) {
  return (await awaitingMoney(deps.db, book, reference, 500)).map((c) => ({ ...contributionForm(c), reference: c.reference, user_id: c.user_id, declared_at: c.declared_at }));
}

/** What an operator records as arrived for a declaration; `force` takes a value far from the declared one. */
export type Arrived = { units: string; valuation: string; valuation_source?: string; force?: boolean };

/** How far (a share of the declared value, in percent) what arrives may differ from the declaration before it is refused without `force`. */
export const RECEIVED_TOLERANCE_PERCENT = 10;

/**
 * What arrived (units at a valuation, and where the valuation came from), checked: its value in
 * cents, or every problem of its fields at once (`cash`: valued at 1; `also`: the caller's other
 * fields' problems), then one of its value (beyond the largest contribution, or under a cent).
 * Receiving and correcting a value read what arrived by this one rule.
 */
export function arrivedCents(
  arrived: { units: string; valuation: string; valuation_source?: string | undefined },
  options: { cash?: boolean; also?: readonly FieldError[] } = {},
): number {
  const problems: FieldError[] = [];
  if (!isPositiveDecimal8(arrived.units)) problems.push({ field: 'units', code: 'validation_failed', message: 'must be a positive decimal with at most 8 places' });
  if (!isPositiveDecimal8(arrived.valuation)) problems.push({ field: 'valuation', code: 'validation_failed', message: 'must be a positive decimal with at most 8 places' });
  else if (options.cash === true && Number(arrived.valuation) !== 1)
    problems.push({ field: 'valuation', code: 'validation_failed', message: 'cash is valued at 1: give the dollars as units (--amount)' });
  if (arrived.valuation_source !== undefined && (arrived.valuation_source.trim() === '' || arrived.valuation_source.length > 200))
    problems.push({ field: 'valuation_source', code: 'validation_failed', message: 'must be 1 to 200 characters' });
  problems.push(...(options.also ?? []));
  if (problems.length > 0) throw fieldErrors(problems);
  if (exactValueInCents(arrived.units, arrived.valuation) > BigInt(CONTRIBUTION_MAX_CENTS)) {
    throw fieldErrors([{ field: 'units', code: 'amount_invalid', message: `units x valuation must be at most ${centsToDollars(CONTRIBUTION_MAX_CENTS)} dollars` }]);
  }
  const cents = valueInCents(arrived.units, arrived.valuation);
  if (cents <= 0) throw fieldErrors([{ field: 'units', code: 'validation_failed', message: 'units x valuation is less than one cent' }]);
  return cents;
}

/**
 * An operator records what arrived for a declaration: the units and their valuation (cash: the
 * dollars, valuation 1), with the valuation's source for non-cash. The contribution then goes to
 * `pending` with its money (advanceContribution). Audited. Throws contribution_not_found,
 * conflict (invalid_transition), unprocessable (validation_failed).
 */
export async function recordArrivalAudited(deps: Deps, book: Book, id: number, arrived: Arrived, actor: string): Promise<void> {
  const amountCents = arrivedCents(arrived);
  const c = await findContribution(deps.db, book, id);
  if (c === undefined) throw notFound('contribution_not_found', `no contribution ${id}`);
  if (c.reference === null) throw new AppError('conflict', 'invalid_transition', `contribution ${id} was not declared: record or advance it instead`);
  // What arrived is worth far from what was declared (units typed as dollars, a price typed per lot): refused unless forced.
  const declared = Number(c.amount_cents);
  if (arrived.force !== true && declared > 0 && differsByMoreThan(amountCents, declared, RECEIVED_TOLERANCE_PERCENT)) {
    throw fieldErrors([
      {
        field: 'units',
        code: 'received_differs',
        message: `what arrived is worth ${dollarsText(amountCents)} dollars, but ${dollarsText(declared)} were declared (more than ${RECEIVED_TOLERANCE_PERCENT}% apart): check the units and the valuation, or force it`,
      },
    ]);
  }
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const source = arrived.valuation_source?.trim() ?? null;
    const forced = arrived.force === true && differsByMoreThan(amountCents, declared, RECEIVED_TOLERANCE_PERCENT);
    const value = { units: arrived.units, valuation: arrived.valuation, amount_cents: amountCents, valuation_source: source, declared_cents: declared > 0 ? declared : null };
    if (!(await recordArrival(trx, id, value))) {
      throw conflict('invalid_transition', `a contribution that is ${c.status}${c.cancelled_at === null ? '' : ' (cancelled)'} cannot receive money`);
    }
    await recordAudit(trx, {
      book,
      actor,
      action: 'contribution.arrived',
      object_type: 'contribution',
      object_id: id,
      before: { units: c.units, valuation: c.valuation },
      after: { units: arrived.units, valuation: arrived.valuation, amount_cents: amountCents, valuation_source: source, declared_cents: declared, forced },
      at,
    });
  });
}

/** Records what arrived for a declaration, then moves it to `pending` with that money: the operator's "receive" (CLI and /admin/v1). */
export async function receiveDeclared(deps: Deps, book: Book, id: number, arrived: Arrived, actor: string): Promise<void> {
  await recordArrivalAudited(deps, book, id, arrived, actor);
  await advanceContribution(deps, book, id, 'pending', actor);
}
