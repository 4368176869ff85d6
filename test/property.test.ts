// A property test of the money rules: random sequences of 10,000 operations
// across users and both books (each user acts with a live key and with a
// sandbox key; contribute, receive, clear, fail, donate, cancel, approve,
// reject, pay, mail, cash, void, gift, accept, claim, deny, invest,
// liquidate, payment runs opened and submitted, checks cashed or voided,
// portfolios chosen and valuations made (units bought, sold for waiting
// donations, exchanged, charged their fee, marked to the new unit price);
// operators and gift recipients sometimes act from the other
// book; each user's live and sandbox apps donate with their tokens, held to
// the monthly limit the donor set) run against the real services and against
// a small in-memory model, as fast-check model-based commands (one per
// operation: test/property/steps.ts, the model in test/property/model.ts);
// after every step the outcome (or the error code), the balances of every
// fund and each book's outside accounts must agree, so a book's totals move
// only by that book's causes; at the end `almoner check` must pass. Then the
// same operations run with each donation writer (donations.writer.ts): the
// batched one must leave the books the simple one, the reference, leaves.
//
// The first test's sequence carries on past its steps until it has met every kind of outcome that
// matters (REQUIRED), so that no seed fails for want of luck.
//
// Each run draws a fresh sequence (its seed is printed) unless PROPERTY_SEED gives one. A failure
// is shrunk to a short sequence of operations (for at most PROPERTY_SHRINK_MINUTES, 5 by
// default), written to a file and printed: PROPERTY_CASE=<that file> replays it.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engines, openEnv, testConfig, type TestEnv } from './harness.ts';
import type { Config } from '../src/config.ts';
import { donationWriterStats } from '../src/modules/donations/index.ts';
import { MONTHLY_FEE_CENTS, stepArb, type Books, type Model, type Op } from './property/model.ts';
import { booksOf, finish, OpCommand, openWorld, type RunOptions, type World } from './property/world.ts';

const STEPS = Number(process.env.PROPERTY_STEPS ?? 10_000);
/** The writers' comparison runs the sequence twice more: its first steps are enough to meet every path. */
const COMPARED_STEPS = Math.min(STEPS, 2_500);
const SEED = process.env.PROPERTY_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.PROPERTY_SEED);
const SHRINK_MS = Number(process.env.PROPERTY_SHRINK_MINUTES ?? 5) * 60_000;
const REPLAY = `PROPERTY_SEED=${SEED} replays it`;

/** Every kind of outcome that matters (operation:outcome), which the first test's sequence must meet. */
const REQUIRED = [
  'contribute:ok',
  'clear:ok',
  'fail:ok',
  'clear:contribution_not_found',
  'donate:ok',
  'app_donate:ok',
  'app_donate:app_limit_exceeded',
  'cancel:ok',
  'cancel:donation_not_cancellable',
  'event:ok',
  'event:invalid_transition',
  'event:donation_not_found',
  'gift:ok',
  'gift:insufficient_funds',
  'gift:app_limit_exceeded',
  'burst:ok',
  'members:ok',
  'burst:app_limit_exceeded',
  'accept:ok',
  'accept:gift_not_found',
  'claim:ok',
  'claim:gift_not_found',
  'deny:ok',
  'deny:gift_not_found',
  'invest:ok',
  'liquidate:ok',
  'run:ok',
  'run:payment_run_empty',
  'outcome:ok',
  'outcome:invalid_transition',
  'event:donation_in_payment',
  'allocate:ok',
  'correct:ok',
  'correct:insufficient_funds',
  'correct:invalid_transition',
  'valuate:ok',
  'invest:fund_holds_units',
  'invest_now:ok',
  'invest_now:portfolio_not_chosen',
  'invest_now:insufficient_funds',
  'match:ok',
  'match:insufficient_funds',
  'fundraise:ok',
  'end_match:ok',
  'end_match:match_ended',
  'grant:ok',
  'grant:role_forbidden',
  'grant:fund_not_found',
  'cancel:donation_matched',
] as const;
/**
 * The first test draws this many times its steps: past its steps the sequence carries on only until
 * it has met every REQUIRED outcome (RunOptions.coverage). At 2,500 steps about one seed in eight
 * missed one (a contribution cleared, a check cashed, a fund liquidated...): a test that failed by
 * the draw's luck, not the code's.
 */
const DRAWN_PER_STEP = 4;

/** Opens a database with `writer` creating donations, runs `fn` on it, closes it. */
async function withWriter<T>(engine: TestEnv['engine'], writer: Config['donationWriter'], fn: (env: TestEnv) => Promise<T>): Promise<T> {
  // Each run opens its own pay date: banking days as far ahead as the setting allows.
  const payments = { ...testConfig('sqlite::memory:').payments, payDateMaxDays: 3650 };
  // Valuations go two funds a round: the model does not know of rounds (rules §19).
  const env = await openEnv(engine, { donationWriter: writer, fundMonthlyFeeCents: MONTHLY_FEE_CENTS, payments, valuationRoundFunds: 2 });
  try {
    return await fn(env);
  } finally {
    await env.close();
  }
}

/** Runs the operations as model-based commands on a new platform and checks what they leave. */
async function play(env: TestEnv, ops: readonly Op[], options: Omit<RunOptions, 'replay' | 'reached'>): Promise<World> {
  let world: World | undefined;
  let model: Model | undefined;
  const setup = async () => {
    const made = await openWorld(env, { ...options, replay: REPLAY, reached });
    ({ real: world, model } = made);
    return made;
  };
  await fc.asyncModelRun(
    setup,
    ops.map((op) => new OpCommand(op)),
  );
  assert.ok(world !== undefined && model !== undefined);
  await finish(model, world);
  return world;
}

/** How far the current run got: the step that was running when it failed. */
const reached = { step: -1 };

/**
 * Asserts `body` holds for the seed's sequence of `steps` operations (or the one PROPERTY_CASE
 * names). A failure is then shrunk: fast-check takes the steps up to the one that failed and tries
 * shorter sequences, each on a new database, for at most PROPERTY_SHRINK_MINUTES; the shortest that
 * still fails is written to a file and printed, with how to replay it.
 */
async function holds(t: TestContext, steps: number, body: (ops: Op[]) => Promise<void>): Promise<void> {
  const given = process.env.PROPERTY_CASE;
  const sequence: Op[] =
    given === undefined
      ? (fc.sample(fc.array(stepArb, { minLength: steps, maxLength: steps }), { numRuns: 1, seed: SEED })[0] as Op[])
      : (JSON.parse(readFileSync(given, 'utf8')) as Op[]);
  t.diagnostic(given === undefined ? `${steps} operations drawn from PROPERTY_SEED=${SEED}` : `the ${sequence.length} operations of PROPERTY_CASE=${given}`);
  const property = fc.asyncProperty(fc.array(stepArb, { maxLength: steps }), async (ops) => {
    reached.step = -1;
    await body(ops);
  });
  const run = await fc.check(property, { seed: SEED, numRuns: 1, examples: [[sequence]], endOnFailure: true });
  if (!run.failed) return;
  const failure = run.errorInstance;
  const prefix = reached.step >= 0 ? sequence.slice(0, reached.step + 1) : sequence;
  const shrunk = await fc.check(property, { seed: SEED, numRuns: 1, examples: [[prefix]], plugins: [fc.interruptAfterTimeLimit(SHRINK_MS)] });
  const smallest: Op[] = shrunk.failed && shrunk.counterexample !== null && shrunk.counterexample !== undefined ? (shrunk.counterexample as [Op[]])[0] : prefix;
  const file = join(tmpdir(), `almoner-property-${SEED}-${smallest.length}.json`);
  writeFileSync(file, JSON.stringify(smallest, null, 1));
  assert.fail(
    `${(failure as Error | null)?.message ?? 'the property failed'}\n\n` +
      `Shrunk to ${smallest.length} operations (from ${sequence.length}, ${shrunk.numShrinks} shrinks): PROPERTY_CASE=${file} replays them:\n` +
      smallest.map((op) => JSON.stringify(op)).join('\n'),
  );
}

for (const { name: engine } of engines()) {
  describe(`money rules property on ${engine}`, () => {
    test(
      `${STEPS} random operations (more until each required outcome is met) agree with the model at every step (batched writer, bursts in parallel)`,
      { timeout: SHRINK_MS + 600_000 },
      async (t) => {
        let seen = new Map<string, number>();
        let ran = 0;
        await holds(t, STEPS * DRAWN_PER_STEP, async (ops) => {
          const world = await withWriter(engine, 'batched', (env) => play(env, ops, { parallelBursts: true, coverage: { steps: STEPS, kinds: REQUIRED } }));
          ({ seen, step: ran } = world);
        });
        t.diagnostic(`${ran} operations ran (${STEPS}, then until every required outcome was met)`);
        // The sequence (the seed's, as it held) reached every kind of outcome that matters.
        for (const k of REQUIRED) assert.ok((seen.get(k) ?? 0) > 0, `the sequence exercised ${k} (${REPLAY})`);
      },
    );

    // The simple writer (one locked transaction per request) is the reference: the batched one, given
    // the same operations, must leave the same books. The batched one takes each burst's moves at
    // once, so that its rounds hold several requests; which of them a fund covers depends on the
    // order it decided them, so the simple one is given each burst's moves one after another in
    // that order. (The members' races stay one after another: who wins one is not a writer's order.)
    test(`both donation writers, given the same ${COMPARED_STEPS} operations, leave the same books`, { timeout: SHRINK_MS + 600_000 }, async (t) => {
      let first: { stats: { requests: number; transactions: number }; bursts: number; batched: Books; simple: Books } | undefined;
      await holds(t, COMPARED_STEPS, async (ops) => {
        const decided = new Map<number, number[]>();
        let stats = { requests: 0, transactions: 0 };
        const batched = await withWriter(engine, 'batched', async (env) => {
          const w = await play(env, ops, { parallelBursts: true, parallelMembers: false, bursts: { record: decided } });
          stats = donationWriterStats(env.deps);
          return booksOf(w);
        });
        const simple = await withWriter(engine, 'simple', async (env) => booksOf(await play(env, ops, { parallelBursts: false, bursts: { replay: decided } })));
        const at = simple.outcomes.findIndex((o, i) => batched.outcomes[i] !== o);
        if (at >= 0) reached.step = Number(simple.outcomes[at]?.split(' ')[0]);
        assert.equal(at, -1, `the writers part at a step (${REPLAY}): the simple one's ${simple.outcomes[at]}, the batched one's ${batched.outcomes[at]}`);
        for (const key of Object.keys(simple) as Array<keyof Books>) assert.deepEqual(batched[key], simple[key], `the ${key} agree (${REPLAY})`);
        first ??= { stats, bursts: decided.size, batched, simple };
      });
      // The seed's whole sequence (the run's first) was a comparison worth making.
      assert.ok(first !== undefined);
      assert.ok(first.stats.requests > first.stats.transactions, `rounds formed: ${first.stats.requests} requests in ${first.stats.transactions} transactions`);
      assert.ok(first.bursts > COMPARED_STEPS / 100, 'the sequence had bursts');
      assert.ok(first.batched.outcomes.length > COMPARED_STEPS * 0.9, 'nearly every step ran');
      assert.ok(first.simple.donations.length > COMPARED_STEPS / 10, 'the operations made donations');
    });
  });
}
