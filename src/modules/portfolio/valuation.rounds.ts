// A valuation's rounds (docs/rules.md §19): once started, a valuation charges
// the monthly fee and values the funds a round of them at a time, each round
// its own transaction, so that a donor's request never waits behind more than
// one round, and a crash loses at most the round it interrupted. Where the
// rounds have got to is kept in the valuation's row, under the 'valuation'
// lock, so that any runner (the request that started it, a node's job after a
// crash, `almoner valuation finish`) carries it on from there, and two at once
// never value a fund twice.
import { dialectOf } from '../../db/dialect.ts';
import type { Trx } from '../../db/database.ts';
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { decimalText, parse8 } from '../../shared/fixed.ts';
import * as holdings from './holdings.store.ts';
import * as store from './portfolio.store.ts';
import { chargeRound, readRound, valueRound, type RoundReads, type ValuationContext } from './valuation.funds.ts';

export interface RoundOptions {
  /** Funds a round takes (VALUATION_ROUND_FUNDS by default). */
  fundsPerRound?: number;
  /** Called after each round commits, with where the valuation has got to (progress, and tests' crashes). */
  afterRound?: (progress: { stage: store.ValuationRow['stage']; afterFundId: number }) => void | Promise<void>;
}

/** What every round of a started valuation needs: fixed when it started, read back from its rows. */
async function contextOf(trx: Trx, v: store.ValuationRow): Promise<ValuationContext> {
  const before = await store.valuationBefore(trx, v.at);
  const priced = await store.portfolioValuationsOf(trx, Number(v.id));
  return {
    id: Number(v.id),
    at: v.at,
    feeMs: before === undefined ? 0n : BigInt(Date.parse(v.at) - Date.parse(before)),
    auditIds: JSON.parse(v.audit_ids) as Record<Book, number>,
    portfolios: new Map(priced.map((p) => [p.portfolio_id, { price: parse8(p.unit_price) as bigint, feeBps: p.fee_bps }])),
  };
}

/** Adds a round's units to each portfolio's units outstanding at the valuation. */
async function addOutstanding(trx: Trx, valuationId: number, round: ReadonlyMap<number, bigint>): Promise<void> {
  if (round.size === 0) return;
  for (const p of await store.portfolioValuationsOf(trx, valuationId)) {
    const units = round.get(p.portfolio_id);
    if (units !== undefined && units !== 0n) await store.setUnitsOutstanding(trx, valuationId, p.portfolio_id, decimalText((parse8(p.units_outstanding) as bigint) + units));
  }
}

/** The next round's funds and reads, made early on another connection: valid while the cursor is still `after`. */
interface Early {
  after: number;
  read: Promise<{ fundIds: number[]; reads: RoundReads } | undefined>;
}

/** A runner's state between its rounds. */
interface Runner {
  deps: Deps;
  id: number;
  perRound: number;
  context?: ValuationContext;
  early?: Early;
}

/**
 * On PostgreSQL, the reads of the round after `after` start now on another pooled connection, so
 * that the database reads them while this round decides and writes (readRound says why that is
 * safe). SQLite's driver is synchronous: nothing to overlap there.
 */
function readEarly(r: Runner, after: number): Early | undefined {
  // With a pool of one connection the early reads would only wait for the round's.
  if (dialectOf(r.deps.db).engine !== 'postgres' || r.deps.config.dbPoolMax < 2) return undefined;
  const read = (async () => {
    const fundIds = await holdings.fundsToValue(r.deps.db, after, r.perRound);
    return fundIds.length === 0 ? undefined : { fundIds, reads: await readRound(r.deps.db, fundIds) };
  })();
  // A read that fails is made again in the round's transaction; one the runner never uses is dropped.
  return { after, read: read.catch(() => undefined) };
}

/**
 * One round in its transaction: the next funds of the valuation's stage, or the next stage when
 * none is left. Returns where the valuation stands after it, or undefined when it was done already.
 */
async function runRound(trx: Trx, r: Runner) {
  await dialectOf(trx).lockKeys(trx, ['valuation']);
  const v = await store.findValuation(trx, r.id);
  if (v === undefined || v.stage === 'done') return undefined;
  const context = (r.context ??= await contextOf(trx, v));
  // The early reads count only if no other runner has moved the cursor since they were made.
  const early = v.stage === 'funds' && r.early?.after === v.after_fund_id ? await r.early.read : undefined;
  r.early = undefined;
  const fundIds =
    early?.fundIds ??
    (v.stage === 'monthly_fees' ? await holdings.fundsWithMoney(trx, v.after_fund_id, r.perRound) : await holdings.fundsToValue(trx, v.after_fund_id, r.perRound));
  if (fundIds.length === 0) {
    const stage = v.stage === 'monthly_fees' ? 'funds' : 'done';
    await store.updateValuation(trx, r.id, { stage, after_fund_id: 0 });
    return { stage, afterFundId: 0 } as const;
  }
  const afterFundId = fundIds[fundIds.length - 1] as number;
  if (v.stage === 'monthly_fees') await chargeRound(trx, context, v.monthly_fee_cents, fundIds);
  else {
    r.early = readEarly(r, afterFundId);
    await addOutstanding(trx, r.id, await valueRound(trx, context, fundIds, early?.reads));
  }
  await store.updateValuation(trx, r.id, { after_fund_id: afterFundId });
  return { stage: v.stage, afterFundId };
}

/** Runs a started valuation's rounds until it is done (from wherever an earlier runner left it); returns how many it ran. */
export async function finishValuation(deps: Deps, id: number, options: RoundOptions = {}): Promise<number> {
  const perRound = options.fundsPerRound ?? deps.config.valuationRoundFunds;
  if (!Number.isSafeInteger(perRound) || perRound < 1) throw new RangeError(`a round takes at least one fund, not ${perRound}`);
  const runner: Runner = { deps, id, perRound };
  for (let rounds = 0; ;) {
    const progress = await deps.db.transaction().execute((trx) => runRound(trx, runner));
    if (progress === undefined) return rounds;
    rounds += 1;
    await options.afterRound?.(progress);
    if (progress.stage === 'done') return rounds;
  }
}

/**
 * Finishes the valuation a crash (or a stopped runner) left running, if any, beside any runner
 * still at it: its id and the rounds this call ran (0 when another runner finished it first).
 */
export async function finishRunningValuation(deps: Deps, options: RoundOptions = {}): Promise<{ id: number; rounds: number } | undefined> {
  const running = await store.runningValuation(deps.db);
  if (running === undefined) return undefined;
  return { id: Number(running.id), rounds: await finishValuation(deps, Number(running.id), options) };
}
