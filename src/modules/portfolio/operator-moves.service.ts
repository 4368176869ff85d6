// Operators move a fund's money between available and its portfolio
// (invest / liquidate), so that portfolio_balance is real.
import type { Deps } from '../../deps.ts';
import { assertSafeInteger } from '../../shared/assert.ts';
import { AppError, fieldErrors } from '../../shared/errors.ts';
import { centsToDollars } from '../../shared/money.ts';
import { lockFundAccounts, postEntry } from '../ledger/index.ts';
import { promoteWaiting } from '../donations/index.ts';
import { recordAudit } from '../audit/index.ts';
import { fundHoldsUnits, holdsUnits } from './allocation.service.ts';

export type PortfolioMove = 'invest' | 'liquidate';

/**
 * invest: available -> portfolio; liquidate: portfolio -> available (and
 * waiting donations are promoted). The journal entry names the fund's
 * portfolio move through its audit entry and memo.
 * A fund whose portfolio money is in units (it chose a portfolio) is refused: 409 fund_holds_units.
 * Throws: unprocessable (validation_failed for a non-positive amount, insufficient_funds).
 */
export async function movePortfolio(deps: Deps, fundId: number, move: PortfolioMove, amountCents: number, actor: string): Promise<void> {
  assertSafeInteger(amountCents, 'portfolio amount');
  if (amountCents <= 0) throw fieldErrors([{ field: 'amount', code: 'validation_failed', message: 'must be more than 0' }]);
  await deps.db.transaction().execute(async (trx) => {
    const accounts = await lockFundAccounts(trx, fundId);
    if (await holdsUnits(trx, fundId)) throw fundHoldsUnits();
    const [from, to, fromBalance] =
      move === 'invest'
        ? [accounts.ids.available, accounts.ids.portfolio, accounts.balances.available_cents]
        : [accounts.ids.portfolio, accounts.ids.available, accounts.balances.portfolio_cents];
    if (fromBalance < amountCents) {
      throw new AppError('unprocessable', 'insufficient_funds', `the fund has ${centsToDollars(fromBalance)} to ${move}, not ${centsToDollars(amountCents)}`);
    }
    const at = deps.clock.now().toISOString();
    const auditId = await recordAudit(trx, {
      book: accounts.book,
      actor,
      action: `portfolio.${move}`,
      object_type: 'fund',
      object_id: fundId,
      before: { available_cents: accounts.balances.available_cents, portfolio_cents: accounts.balances.portfolio_cents },
      after: { amount_cents: amountCents },
      at,
    });
    // A portfolio move has no donation, gift or contribution: its entry names the audit entry that caused it.
    await postEntry(
      trx,
      { book: accounts.book, memo: `portfolio ${move} (audit ${auditId})`, audit_id: auditId },
      [{ from_account_id: from, to_account_id: to, amount_cents: amountCents }],
      at,
    );
    if (move === 'liquidate') await promoteWaiting(trx, fundId, at);
  });
}
