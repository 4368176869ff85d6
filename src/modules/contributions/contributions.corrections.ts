// Correcting what was received (rules §13): an operator recorded the wrong value for money that
// arrived (units typed as dollars, a price per lot). The contribution's value is set to what
// really came, the difference moved by its own balanced journal entry (never an edit of the
// first), a corrected receipt replaces the one issued for the wrong value, and the audit log keeps
// both values and why, all in one transaction.
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { AppError, conflict, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { dollarsText } from '../../shared/money.ts';
import { recordAudit } from '../audit/index.ts';
import { recordEvent } from '../events/index.ts';
import { assertFundCanHold, lockFundAccounts, outsideAccountId, postEntry } from '../ledger/index.ts';
import { promoteWaiting } from '../donations/index.ts';
import { donorName, fundOfContribution, insertReceipt, lockContribution, receiptsOf, reviseValue } from './contributions.store.ts';
import { arrivedCents } from './contributions.declarations.ts';
import { receiptBody, receiptNumber } from './receipts.ts';

/** What really arrived, and why the first record was wrong. */
export interface ValueCorrection {
  units: string;
  valuation: string;
  valuation_source?: string;
  reason: string;
}

/** The corrected contribution's value, and its new receipt's number when it had one. */
export interface Corrected {
  amount_cents: number;
  previous_cents: number;
  receipt: string | null;
}

/**
 * Sets a received contribution's value (pending or success) to what really arrived. The
 * difference moves between the platform's deposits account and the fund's pending deposit
 * (pending) or available money (success), by a journal entry naming the contribution; a lower
 * value needs that much still there (409 insufficient_funds: the donor's fund already granted or
 * invested it, a matter to take up with the donor). A contribution that succeeded gets a corrected
 * receipt replacing its newest one; a higher available value serves waiting donations. Audited.
 * Throws unprocessable (validation_failed, amount_invalid), contribution_not_found, conflict
 * (invalid_transition: nothing received yet or it failed; insufficient_funds).
 */
export async function correctReceivedValue(deps: Deps, book: Book, id: number, input: ValueCorrection, actor: string): Promise<Corrected> {
  const at = deps.clock.now().toISOString();
  return await deps.db.transaction().execute(async (trx) => {
    const fundId = await fundOfContribution(trx, book, id);
    if (fundId === undefined) throw notFound('contribution_not_found', `no contribution ${id}`);
    const accounts = await lockFundAccounts(trx, fundId);
    const c = await lockContribution(trx, id);
    const reason = input.reason.trim();
    const cents = arrivedCents(input, {
      cash: c.currency === 'USD',
      also: reason === '' || reason.length > 500 ? [{ field: 'reason', code: 'validation_failed', message: 'must say why, in 1 to 500 characters' }] : [],
    });
    if (c.status !== 'pending' && c.status !== 'success')
      throw conflict('invalid_transition', `contribution ${id} is ${c.status}: only money received (pending or success) is corrected; receive or record it instead`);
    const delta = cents - c.amount_cents;
    const holds = c.status === 'pending' ? accounts.ids.pending_deposit : accounts.ids.available;
    const held = c.status === 'pending' ? accounts.balances.pending_deposit_cents : accounts.balances.available_cents;
    if (delta < 0 && held < -delta)
      throw new AppError(
        'conflict',
        'insufficient_funds',
        `the fund holds ${dollarsText(held)} dollars of it, not the ${dollarsText(-delta)} to take back: it was granted or invested since; take it up with the donor`,
      );
    if (delta > 0) assertFundCanHold(accounts, delta);
    const source = input.valuation_source?.trim() ?? c.valuation_source;
    assert(
      await reviseValue(trx, id, c.status, { units: input.units, valuation: input.valuation, amount_cents: cents, valuation_source: source }),
      'the locked contribution is as read',
    );
    if (delta !== 0) {
      const deposits = await outsideAccountId(trx, 'deposits', accounts.book);
      const [from, to] = delta > 0 ? [deposits, holds] : [holds, deposits];
      await postEntry(trx, { book, memo: 'contribution value corrected', contribution_id: id }, [{ from_account_id: from, to_account_id: to, amount_cents: Math.abs(delta) }], at);
      if (delta > 0 && c.status === 'success') await promoteWaiting(trx, fundId, at);
    }
    let receipt: string | null = null;
    const replaced = (await receiptsOf(trx, book, id)).at(-1);
    if (c.status === 'success' && replaced !== undefined) {
      const name = await donorName(trx, c.user_id);
      const revised = { ...c, units: input.units, valuation: input.valuation, amount_cents: cents, valuation_source: source };
      const newId = await insertReceipt(trx, { book, contribution_id: id, user_id: c.user_id, replaces_id: replaced.id, issued_at: at }, (n) =>
        receiptBody(n, deps.config.sponsor, name, revised, { id: replaced.id, reason }),
      );
      receipt = receiptNumber(newId);
    }
    await recordEvent(trx, {
      user_id: c.user_id,
      type: 'contribution.updated',
      object_type: 'contribution',
      object_id: id,
      data: { status: c.status, previous_status: c.status },
      at,
    });
    await recordAudit(trx, {
      book,
      actor,
      action: 'contribution.value_corrected',
      object_type: 'contribution',
      object_id: id,
      before: { units: c.units, valuation: c.valuation, amount_cents: c.amount_cents, ...(replaced === undefined ? {} : { receipt: receiptNumber(replaced.id) }) },
      after: { units: input.units, valuation: input.valuation, amount_cents: cents, valuation_source: source, reason, receipt },
      at,
    });
    return { amount_cents: cents, previous_cents: c.amount_cents, receipt };
  });
}
