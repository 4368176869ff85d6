// A valuation's rounds (docs/rules.md §19, ADR 29): once started, a valuation
// charges the monthly fee and values the funds a round of them at a time, each
// round its own transaction, so that a donor's request never waits behind
// more than a round or two, and a crash loses at most the rounds it
// interrupted. Where the rounds have got to is the valuation's cursor (stage,
// last fund), which each round moves by compare-and-set in its transaction:
// any runner (the request that started it, a node's job after a crash,
// `almoner valuation finish`) carries it on from there, and two rounds never
// both commit a fund. On PostgreSQL the funds' rounds overlap: the next round
// begins, on another connection, once this one has locked its funds (up to
// three under way), and writes what every round shares, and commits, only
// after this one commits.
import { dialectOf } from '../../db/dialect.ts';
import type { Trx } from '../../db/database.ts';
import type { Deps } from '../../deps.ts';
import { BOOKS, type Book } from '../../shared/book.ts';
import { decimalText, parse8 } from '../../shared/fixed.ts';
import * as holdings from './holdings.store.ts';
import { outsideAccount } from '../ledger/index.ts';
import * as store from './portfolio.store.ts';
import { chargeRound, valueRound, type OutsideAccounts, type ValuationContext } from './valuation.funds.ts';

export interface RoundOptions {
  /** Funds a round takes (VALUATION_ROUND_FUNDS by default). */
  fundsPerRound?: number;
  /**
   * Called after each round commits, in order, with where the valuation has got to (progress, and
   * tests' crashes). On PostgreSQL the next round may be under way: if this throws, that round
   * commits nothing and the runner stops with the error.
   */
  afterRound?: (progress: { stage: store.ValuationRow['stage']; afterFundId: number }) => void | Promise<void>;
}

type Progress = { stage: store.ValuationRow['stage']; afterFundId: number };

/** A round that found the cursor moved by another runner: it wrote nothing. */
class CursorMoved extends Error {}

/** A round begun after its runner stopped: it wrote nothing. */
class Stopped extends Error {}

/** What every round of a started valuation needs: fixed when it started, read back from its rows. */
async function contextOf(trx: Trx, v: store.ValuationRow, outside: ReadonlyMap<Book, OutsideAccounts>): Promise<ValuationContext> {
  const before = await store.valuationBefore(trx, v.at);
  const priced = await store.portfolioValuationsOf(trx, Number(v.id));
  return {
    id: Number(v.id),
    at: v.at,
    feeMs: before === undefined ? 0n : BigInt(Date.parse(v.at) - Date.parse(before)),
    auditIds: JSON.parse(v.audit_ids) as Record<Book, number>,
    portfolios: new Map(priced.map((p) => [p.portfolio_id, { price: parse8(p.unit_price) as bigint, feeBps: p.fee_bps }])),
    outside,
  };
}

/** A runner's state between its rounds. */
interface Runner {
  deps: Deps;
  id: number;
  perRound: number;
  /** Whether the funds' rounds overlap (PostgreSQL, with a pool of two connections or more). */
  overlaps: boolean;
  /** The outside accounts its rounds post to (outsideAccounts). */
  outside: ReadonlyMap<Book, OutsideAccounts>;
  context?: ValuationContext;
  stopped: boolean;
}

/**
 * The end of a round: the cursor moved from `from` past its funds, by compare-and-set (a round
 * that finds it elsewhere, moved by another runner, writes nothing); then the units its funds hold
 * added to each portfolio's units outstanding, read and written while the valuation's row is held,
 * so that no other round's addition is lost.
 */
async function endRound(trx: Trx, r: Runner, stage: Progress['stage'], from: number, to: number, units?: ReadonlyMap<number, bigint>): Promise<Progress> {
  if (r.stopped) throw new Stopped();
  if (!(await store.advanceValuation(trx, r.id, stage, from, to))) throw new CursorMoved();
  if (units !== undefined && units.size > 0) {
    for (const p of await store.portfolioValuationsOf(trx, r.id)) {
      const added = units.get(p.portfolio_id);
      if (added !== undefined && added !== 0n) await store.setUnitsOutstanding(trx, r.id, p.portfolio_id, decimalText((parse8(p.units_outstanding) as bigint) + added));
    }
  }
  // Checked again last: the runner may have stopped while this round waited for the one before.
  if (r.stopped) throw new Stopped();
  return { stage, afterFundId: to };
}

/**
 * The round that reads the cursor, under the 'valuation' lock: the next funds of the valuation's
 * stage, or the next stage when none is left. Undefined when the valuation was done already.
 * `known`: told the round's last fund once its funds are known, if another round may follow it.
 */
async function leadRound(trx: Trx, r: Runner, known: (after: number) => void): Promise<Progress | undefined> {
  await dialectOf(trx).lockKeys(trx, ['valuation']);
  const v = await store.findValuation(trx, r.id);
  if (v === undefined || v.stage === 'done') return undefined;
  const context = (r.context ??= await contextOf(trx, v, r.outside));
  const from = v.after_fund_id;
  const fundIds = v.stage === 'monthly_fees' ? await holdings.fundsWithMoney(trx, from, r.perRound) : await holdings.fundsToValue(trx, from, r.perRound);
  if (fundIds.length === 0) {
    const stage = v.stage === 'monthly_fees' ? 'funds' : 'done';
    await store.updateValuation(trx, r.id, { stage, after_fund_id: 0 });
    return { stage, afterFundId: 0 };
  }
  const to = fundIds[fundIds.length - 1] as number;
  if (v.stage === 'monthly_fees') {
    await chargeRound(trx, context, v.monthly_fee_cents, fundIds);
    return await endRound(trx, r, v.stage, from, to);
  }
  const locked = () => (fundIds.length === r.perRound ? known(to) : undefined);
  return await endRound(trx, r, v.stage, from, to, await valueRound(trx, context, fundIds, { locked }));
}

/**
 * A round of funds begun before the round before it (ending at `from`) ended: the funds after it,
 * read, decided and written while that round writes; its market and fees accounts and its cursor
 * only once that round has ended (`before`), committed: so the round before never waits for it.
 * Undefined when there are no funds (a lead round then ends the stage).
 */
async function followingRound(trx: Trx, r: Runner, from: number, before: Promise<unknown>, known: (after: number) => void): Promise<Progress | undefined> {
  const context = r.context as ValuationContext;
  const fundIds = await holdings.fundsToValue(trx, from, r.perRound);
  if (fundIds.length === 0) return undefined;
  const to = fundIds[fundIds.length - 1] as number;
  const turns = {
    locked: () => (fundIds.length === r.perRound ? known(to) : undefined),
    // A round before that rolled back leaves the cursor elsewhere: this one writes nothing.
    written: () =>
      before.then(
        () => undefined,
        () => {
          throw new CursorMoved();
        },
      ),
  };
  return await endRound(trx, r, 'funds', from, to, await valueRound(trx, context, fundIds, turns));
}

/** A round under way: what it commits, and, once its funds are known, the last of them if another round may follow it. */
interface Begun {
  done: Promise<Progress | undefined>;
  next: Promise<number | undefined>;
  /** Whether it reads the cursor (leadRound) rather than following the round before it. */
  lead: boolean;
}

/** A round begun: the lead (which reads the cursor) or one following `before`, which ends at `from`. */
function begin(r: Runner, following?: { from: number; before: Promise<unknown> }): Begun {
  let tell: (after: number | undefined) => void = () => undefined;
  const next = new Promise<number | undefined>((resolve) => (tell = resolve));
  const known = (after: number) => (r.overlaps && !r.stopped ? tell(after) : undefined);
  const done = r.deps.db.transaction().execute((trx) => (following === undefined ? leadRound(trx, r, known) : followingRound(trx, r, following.from, following.before, known)));
  done.then(
    () => tell(undefined),
    () => tell(undefined),
  );
  return { done, next, lead: following === undefined };
}

/**
 * Whether a round wrote nothing because another runner's round took its funds first: it found the
 * cursor moved, or a fund's record of this valuation already written (each fund has one), or it
 * deadlocked with that round. A lead round carries on from the cursor.
 */
function takenOver(error: unknown): boolean {
  if (error instanceof CursorMoved) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '40P01' || (code === '23505' && constraint === 'fund_valuations_pk');
}

/**
 * The outside accounts the valuation's rounds post to (each portfolio's market account and the
 * fees, in each book), found or made (under their own lock: overlapping rounds would each make a
 * missing one) before any round, and known to every round by id from then on: a round looks none up.
 */
async function outsideAccounts(deps: Deps, id: number): Promise<Map<Book, OutsideAccounts>> {
  return await deps.db.transaction().execute(async (trx) => {
    const portfolios = (await store.portfolioValuationsOf(trx, id)).map((p) => p.portfolio_id);
    const ids = new Map<Book, OutsideAccounts>();
    for (const book of BOOKS) {
      const markets = new Map<number, number>();
      for (const p of portfolios) markets.set(p, await outsideAccount(trx, `market:${p}`, book));
      ids.set(book, { fees: await outsideAccount(trx, 'fees', book), markets });
    }
    return ids;
  });
}

/**
 * Most rounds under way at once on PostgreSQL, each on a connection of its own: with three, two
 * rounds' writes run side by side while the process decides the next (with two, the process and
 * one write took turns on a machine left partly idle: docs/performance-history.md, 2026-12-03, night).
 */
const ROUNDS_AT_ONCE = 3;

/** Runs a started valuation's rounds until it is done (from wherever an earlier runner left it); returns how many it ran. */
export async function finishValuation(deps: Deps, id: number, options: RoundOptions = {}): Promise<number> {
  const perRound = options.fundsPerRound ?? deps.config.valuationRoundFunds;
  if (!Number.isSafeInteger(perRound) || perRound < 1) throw new RangeError(`a round takes at least one fund, not ${perRound}`);
  const atOnce = dialectOf(deps.db).engine === 'postgres' ? Math.min(ROUNDS_AT_ONCE, deps.config.dbPoolMax) : 1;
  const r: Runner = { deps, id, perRound, overlaps: atOnce >= 2, outside: await outsideAccounts(deps, id), stopped: false };
  // The rounds under way, oldest first; `held`: the round after the newest, waiting for one to end.
  const under: Begun[] = [];
  let held: { from: number; before: Promise<unknown> } | undefined;
  let generation = 0;
  const add = (b: Begun) => {
    under.push(b);
    const mine = generation;
    void b.next.then((after) => {
      if (after === undefined || r.stopped || mine !== generation) return;
      const following = { from: after, before: b.done };
      if (under.length < atOnce) add(begin(r, following));
      else held = following;
    });
  };
  let rounds = 0;
  add(begin(r));
  for (;;) {
    const current = under[0] as Begun;
    let progress: Progress | undefined;
    try {
      progress = await current.done;
      if (progress !== undefined) {
        rounds += 1;
        await options.afterRound?.(progress);
      }
    } catch (error) {
      // Every round under way ends (those after this one write nothing), then a lead round carries on.
      r.stopped = true;
      generation += 1;
      held = undefined;
      await Promise.all(under.map((b) => b.done.catch(() => undefined)));
      under.length = 0;
      if (!takenOver(error)) throw error;
      r.stopped = false;
      add(begin(r));
      continue;
    }
    under.shift();
    if (held !== undefined) {
      const following = held;
      held = undefined;
      add(begin(r, following));
    }
    if (progress === undefined && current.lead) return rounds;
    if (progress?.stage === 'done') return rounds;
    if (under.length === 0) add(begin(r));
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
