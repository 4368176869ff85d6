// What a donor chooses (docs/rules.md §19): a portfolio (or none: cash only)
// and the whole percent of new contributions to invest. A change of portfolio
// is an exchange made at the next valuation, visible and cancellable until
// then; a contribution's share is bought at the next valuation after it clears.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError, conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { divHalfEven } from '../../shared/fixed.ts';
import { centsToDollars, usdText } from '../../shared/money.ts';
import { recordAudit } from '../audit/index.ts';
import { lockFundAccounts, readFundAccounts } from '../ledger/index.ts';
import * as holdings from './holdings.store.ts';
import * as store from './portfolio.store.ts';
import { authorize } from '../../shared/policy.ts';

export interface AllocationView {
  portfolio_id: number | null;
  invest_share: number;
  units: string;
  unit_price: string | null;
  portfolio_balance: number;
  /** A change of portfolio waiting for the next valuation (to_portfolio_id null: to cash). */
  pending_exchange: { to_portfolio_id: number | null; requested_at: string } | null;
  /** Contributions' shares and money invested now, waiting to be bought at the next valuation, in dollars. */
  pending_investment: number;
}

/** The portfolio a fund chose, or null (none chosen, or cash only). */
export function chosenPortfolio(allocation: holdings.AllocationRow | undefined): number | null {
  return allocation === undefined || allocation.portfolio_id === null ? null : Number(allocation.portfolio_id);
}

export async function getAllocation(deps: Deps, caller: Caller): Promise<AllocationView> {
  authorize(caller, 'read');
  const fundId = caller.fund_id;
  const [allocation, units, exchange, investments, accounts] = await Promise.all([
    holdings.allocationOf(deps.db, fundId),
    holdings.unitsOf(deps.db, fundId),
    holdings.pendingExchange(deps.db, fundId),
    holdings.pendingInvestments(deps.db, [fundId]),
    readFundAccounts(deps.db, fundId),
  ]);
  const held = units === undefined ? undefined : Number(units.portfolio_id);
  const price = held === undefined ? undefined : (await store.latestUnitPrices(deps.db, [held])).get(held);
  return {
    portfolio_id: chosenPortfolio(allocation),
    invest_share: allocation?.invest_share ?? 0,
    units: units?.units ?? '0.00000000',
    unit_price: price?.unit_price ?? null,
    portfolio_balance: centsToDollars(accounts.balances.portfolio_cents),
    pending_exchange:
      exchange === undefined ? null : { to_portfolio_id: exchange.to_portfolio_id === null ? null : Number(exchange.to_portfolio_id), requested_at: exchange.created_at },
    pending_investment: centsToDollars(investments.reduce((n, i) => n + Number(i.amount_cents), 0)),
  };
}

/**
 * Sets the fund's portfolio and share to invest. When the portfolio is not the one its units (or
 * money invested by hand) are in, an exchange waits for the next valuation, replacing any other;
 * choosing the current one again cancels it. Throws validation_failed (a share not a whole
 * percent 0 to 100), portfolio_not_found, portfolio_retired.
 */
export async function setAllocation(deps: Deps, caller: Caller, input: { portfolio_id: number | null; invest_share: number }): Promise<AllocationView> {
  authorize(caller, 'invest');
  if (!Number.isInteger(input.invest_share) || input.invest_share < 0 || input.invest_share > 100)
    throw fieldErrors([{ field: 'invest_share', code: 'validation_failed', message: 'must be a whole percent from 0 to 100' }]);
  if (input.portfolio_id !== null) {
    const portfolio = await store.findPortfolio(deps.db, input.portfolio_id);
    if (portfolio === undefined) throw fieldErrors([{ field: 'portfolio_id', code: 'portfolio_not_found', message: `there is no portfolio ${input.portfolio_id}` }]);
    if (portfolio.status !== 'active') throw fieldErrors([{ field: 'portfolio_id', code: 'portfolio_retired', message: `${portfolio.name} is retired: choose another` }]);
  }
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const fund = await lockFundAccounts(trx, caller.fund_id);
    const units = await holdings.unitsOf(trx, caller.fund_id);
    const current = units === undefined ? null : Number(units.portfolio_id);
    await holdings.setAllocation(trx, { fund_id: caller.fund_id, portfolio_id: input.portfolio_id, invest_share: input.invest_share, updated_at: at });
    await holdings.endExchange(trx, caller.fund_id, 'cancelled', at, null);
    const invested = units !== undefined || fund.balances.portfolio_cents > 0;
    if (invested && input.portfolio_id !== current)
      await holdings.insertExchange(trx, { fund_id: caller.fund_id, to_portfolio_id: input.portfolio_id, created_at: at, actor_id: caller.actor_id });
  });
  return await getAllocation(deps, caller);
}

/**
 * Invest now (rules §19): `amountCents` of money the fund already holds, bought into its chosen
 * portfolio at the next valuation, as a contribution's share is (as much as available then holds
 * beyond the waiting donations). Nothing moves now. Throws validation_failed (not a positive whole
 * number of cents), portfolio_not_chosen, insufficient_funds (more than available, less what earlier
 * such investments wait to take).
 */
export async function investNow(deps: Deps, caller: Caller, amountCents: number): Promise<AllocationView> {
  authorize(caller, 'invest');
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0)
    throw fieldErrors([{ field: 'amount', code: 'validation_failed', message: 'must be a positive amount in dollars and cents' }]);
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const fund = await lockFundAccounts(trx, caller.fund_id);
    const portfolio = chosenPortfolio(await holdings.allocationOf(trx, caller.fund_id));
    if (portfolio === null) throw conflict('portfolio_not_chosen', 'choose a portfolio first: money is invested in the portfolio the fund chose');
    const free = fund.balances.available_cents - (await holdings.pendingHeldInvestments(trx, caller.fund_id));
    if (amountCents > free)
      throw new AppError('conflict', 'insufficient_funds', `the fund can invest at most ${usdText(Math.max(0, free))} now (its available money, less what waits to be invested)`);
    await holdings.insertInvestment(trx, { fund_id: caller.fund_id, contribution_id: null, amount_cents: amountCents, created_at: at, actor_id: `user:${caller.actor_id}` });
    await recordAudit(trx, {
      book: caller.book,
      actor: `user:${caller.actor_id}`,
      action: 'investment.requested',
      object_type: 'fund',
      object_id: caller.fund_id,
      before: null,
      after: { amount_cents: amountCents, portfolio_id: portfolio },
      at,
    });
  });
  return await getAllocation(deps, caller);
}

/** Cancels the fund's pending exchange: it stays in the portfolio it holds. Throws exchange_not_found. */
export async function cancelExchange(deps: Deps, caller: Caller): Promise<AllocationView> {
  authorize(caller, 'invest');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    if (!(await holdings.endExchange(trx, caller.fund_id, 'cancelled', at, null))) throw notFound('exchange_not_found', 'no exchange waits for the next valuation');
    const units = await holdings.unitsOf(trx, caller.fund_id);
    const allocation = await holdings.allocationOf(trx, caller.fund_id);
    await holdings.setAllocation(trx, {
      fund_id: caller.fund_id,
      portfolio_id: units === undefined ? null : Number(units.portfolio_id),
      invest_share: allocation?.invest_share ?? 0,
      updated_at: at,
    });
  });
  return await getAllocation(deps, caller);
}

/**
 * In the transaction that clears a contribution: the share of it the fund invests, bought at the
 * next valuation (whole cents, half-even). Nothing when the fund invests nothing.
 */
export async function investShareOf(trx: Trx, fundId: number, contributionId: number, cents: number, at: string): Promise<void> {
  const allocation = await holdings.allocationOf(trx, fundId);
  if (chosenPortfolio(allocation) === null || allocation === undefined || allocation.invest_share === 0) return;
  const amount = Number(divHalfEven(BigInt(cents) * BigInt(allocation.invest_share), 100n));
  if (amount > 0) await holdings.insertInvestment(trx, { fund_id: fundId, contribution_id: contributionId, amount_cents: amount, created_at: at });
}

/** Whether a fund's portfolio money is in units (then only valuations move it). */
export async function holdsUnits(trx: Trx, fundId: number): Promise<boolean> {
  const [units, allocation] = await Promise.all([holdings.unitsOf(trx, fundId), holdings.allocationOf(trx, fundId)]);
  return units !== undefined || chosenPortfolio(allocation) !== null;
}

export function fundHoldsUnits(): AppError {
  return new AppError(
    'conflict',
    'fund_holds_units',
    "the fund's portfolio money is in units of its chosen portfolio: it moves at valuations (its exchange, investments and sales), not by hand",
  );
}

/** What the fund was worth in its portfolio at each of its last valuations (a year of daily ones), oldest first. */
export async function valueHistory(deps: Deps, caller: Caller): Promise<Array<{ at: string; value_cents: number; units: string }>> {
  authorize(caller, 'read');
  return await holdings.valueHistory(deps.db, caller.fund_id, 366);
}

/** What the fund's investments gained (net of losses) and paid in fees over a period [start, end), in cents: its statement's lines. */
export async function investmentTotals(deps: Deps, fundId: number, start: string, end: string): Promise<{ gains: number; fees: number }> {
  return await holdings.valuationTotals(deps.db, fundId, start, end);
}
