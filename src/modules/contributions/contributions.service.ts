// Use cases for contributions: recording money coming into a fund (by an
// operator or a payment integration, never the public API) and listing it.
import type { Deps } from '../../deps.ts';
import { centsToDollars, CONTRIBUTION_MAX_CENTS, exactValueInCents, valueInCents } from '../../shared/money.ts';
import { conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { recordAudit } from '../audit/index.ts';
import { toPage, type PageRequest, type RowFilters } from '../../shared/page.ts';
import { assertFundCanHold, lockFundAccounts, outsideAccountId, postEntry } from '../ledger/index.ts';
import { recordEvent } from '../events/index.ts';
import { promoteWaiting } from '../donations/index.ts';
import { investShareOf } from '../portfolio/index.ts';
import type { Caller } from '../../shared/caller.ts';
import type { Book } from '../../shared/book.ts';
import {
  contributionsForExport,
  fundOfContribution,
  insertContribution,
  lockContribution,
  moveContribution,
  pageOfContributions,
  type Contribution,
} from './contributions.store.ts';
import { issueReceipt } from './contributions.receipts.ts';
import { CONTRIBUTION_TRANSITIONS, contributionProblems, type ContributionStatus, type ContributionType, type Frequency } from './contributions.ts';
import { authorize } from '../../shared/policy.ts';
import { ownerPartnerFields } from '../../shared/partner.ts';

export interface NewContribution {
  user_id: number;
  fund_id: number;
  type: ContributionType;
  /** Decimal texts, up to 8 places, kept exact. */
  units: string;
  valuation: string;
  currency: string;
  frequency: Frequency;
  status: ContributionStatus;
}

/**
 * Records a contribution. `pending` puts its value in pending_deposit;
 * `success` puts it in available and promotes waiting donations; the others
 * move no money. Returns the id.
 */
export async function recordContribution(deps: Deps, input: NewContribution, actor?: string): Promise<number> {
  const problems = contributionProblems(input);
  if (problems.length > 0) throw fieldErrors(problems);
  if (exactValueInCents(input.units, input.valuation) > BigInt(CONTRIBUTION_MAX_CENTS)) {
    throw fieldErrors([{ field: 'units', code: 'amount_invalid', message: `units x valuation must be at most ${centsToDollars(CONTRIBUTION_MAX_CENTS)} dollars` }]);
  }
  const amountCents = valueInCents(input.units, input.valuation);
  if (amountCents <= 0) throw fieldErrors([{ field: 'units', code: 'validation_failed', message: 'units x valuation is less than one cent' }]);
  const recorded = await deps.db.transaction().execute(async (trx) => {
    const at = deps.clock.now().toISOString();
    const accounts = await lockFundAccounts(trx, input.fund_id);
    assertFundCanHold(accounts, amountCents);
    const id = await insertContribution(trx, {
      book: accounts.book,
      user_id: input.user_id,
      fund_id: input.fund_id,
      type: input.type,
      status: input.status,
      units: input.units,
      valuation: input.valuation,
      currency: input.currency,
      frequency: input.frequency,
      amount_cents: amountCents,
      created_at: at,
      received_at: input.status === 'pending' || input.status === 'success' ? at : null,
      completed_at: input.status === 'success' ? at : null,
    });
    const deposits = await outsideAccountId(trx, 'deposits', accounts.book);
    if (amountCents > 0 && (input.status === 'pending' || input.status === 'success')) {
      const to = input.status === 'pending' ? accounts.ids.pending_deposit : accounts.ids.available;
      await postEntry(
        trx,
        { book: accounts.book, memo: `contribution ${input.status}`, contribution_id: id },
        [{ from_account_id: deposits, to_account_id: to, amount_cents: amountCents }],
        at,
      );
    }
    await recordEvent(trx, { user_id: input.user_id, type: 'contribution.created', object_type: 'contribution', object_id: id, data: { status: input.status }, at });
    if (input.status === 'success') {
      await promoteWaiting(trx, input.fund_id, at);
      if (amountCents > 0) await investShareOf(trx, input.fund_id, id, amountCents, at);
      await issueReceipt(
        deps,
        trx,
        {
          id,
          book: accounts.book,
          user_id: input.user_id,
          currency: input.currency,
          units: input.units,
          amount_cents: amountCents,
          received_at: at,
          completed_at: at,
          valuation_source: null,
        },
        at,
      );
    }
    if (actor !== undefined) {
      await recordAudit(trx, {
        book: accounts.book,
        actor,
        action: 'contribution.record',
        object_type: 'contribution',
        object_id: id,
        before: null,
        after: { status: input.status, amount_cents: amountCents, user_id: input.user_id },
        at,
      });
    }
    return { id, book: accounts.book };
  });
  deps.metrics.counters.contribution(recorded.book, input.status, amountCents);
  return recorded.id;
}

/**
 * Moves a contribution along rules §7 with its postings: pending puts its
 * value in pending_deposit, success moves it to available (and promotes
 * waiting donations), failed reverses what was received.
 * Only a contribution of `book` is found (rules §14).
 * Throws: not_found (contribution_not_found), conflict (invalid_transition).
 */
export async function advanceContribution(deps: Deps, book: Book, contributionId: number, to: ContributionStatus, actor: string): Promise<void> {
  const moved = await deps.db.transaction().execute(async (trx) => {
    const fundId = await fundOfContribution(trx, book, contributionId);
    if (fundId === undefined) throw notFound('contribution_not_found', `no contribution ${contributionId}`);
    const accounts = await lockFundAccounts(trx, fundId);
    const c = await lockContribution(trx, contributionId);
    if (!(CONTRIBUTION_TRANSITIONS[c.status] ?? []).includes(to)) {
      throw conflict('invalid_transition', `a contribution that is ${c.status} cannot become ${to}`);
    }
    const at = deps.clock.now().toISOString();
    const deposits = await outsideAccountId(trx, 'deposits', accounts.book);
    const moves: Record<string, [number, number] | null> = {
      'waiting_for_funds>pending': [deposits, accounts.ids.pending_deposit],
      'pending>success': [accounts.ids.pending_deposit, accounts.ids.available],
      'pending>failed': [accounts.ids.pending_deposit, deposits],
      'waiting_for_funds>failed': null,
    };
    const move = moves[`${c.status}>${to}`];
    assert(await moveContribution(trx, c.id, c.status, to, at), 'the locked contribution is still in the state read');
    if (move !== null && move !== undefined && c.amount_cents > 0) {
      await postEntry(
        trx,
        { book: accounts.book, memo: `contribution ${to}`, contribution_id: c.id },
        [{ from_account_id: move[0], to_account_id: move[1], amount_cents: c.amount_cents }],
        at,
      );
    }
    if (to === 'success') {
      await promoteWaiting(trx, c.fund_id, at);
      if (c.amount_cents > 0) await investShareOf(trx, c.fund_id, c.id, c.amount_cents, at);
      await issueReceipt(deps, trx, { ...c, completed_at: at }, at);
    }
    await recordEvent(trx, { user_id: c.user_id, type: 'contribution.updated', object_type: 'contribution', object_id: c.id, data: { status: to, previous_status: c.status }, at });
    await recordAudit(trx, {
      book: accounts.book,
      actor,
      action: `contribution.${to}`,
      object_type: 'contribution',
      object_id: c.id,
      before: { status: c.status },
      after: { status: to },
      at,
    });
    return { book: accounts.book, cents: c.amount_cents };
  });
  deps.metrics.counters.contribution(moved.book, to, moved.cents);
}

export function contributionForm(c: Contribution) {
  return {
    id: c.id,
    units: Number(c.units),
    type: c.type,
    status: c.status,
    valuation: Number(c.valuation),
    currency: c.currency,
    frequency: c.frequency,
    created_at: c.created_at,
    received_at: c.received_at,
    completed_at: c.completed_at,
    // Partner fields (rules §21), each only when set: contributions are their owner's only.
    ...ownerPartnerFields(c),
  };
}

/** The caller's own contributions, newest first (spec 4.6: private to the owner). */
export async function listContributions(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count } = await pageOfContributions(deps.db, caller.user_id, page);
  return toPage(rows.map(contributionForm), count, page);
}

const EXPORT_BATCH = 1000;

export const CONTRIBUTION_CSV_HEADER = [
  'id',
  'created_at',
  'type',
  'status',
  'units',
  'currency',
  'valuation',
  'amount_usd',
  'reference',
  'received_at',
  'completed_at',
  'made_by',
  'external_id',
  'metadata',
] as const;

/** Every one of the caller's contributions matching `f`, newest first, as CSV rows, read a batch at a time. */
export async function* exportContributions(deps: Deps, caller: Caller, f: RowFilters): AsyncGenerator<unknown[]> {
  let before: { created_at: string; id: number } | undefined;
  for (;;) {
    const rows = await contributionsForExport(deps.db, caller.user_id, f, before, EXPORT_BATCH);
    for (const c of rows)
      yield [
        c.id,
        c.created_at,
        c.type,
        c.status,
        c.units,
        c.currency,
        c.valuation,
        centsToDollars(c.amount_cents),
        c.reference,
        c.received_at,
        c.completed_at,
        c.made_by,
        c.external_id,
        c.metadata,
      ];
    if (rows.length < EXPORT_BATCH) return;
    const last = rows.at(-1);
    before = last === undefined ? undefined : { created_at: last.created_at, id: last.id };
  }
}
