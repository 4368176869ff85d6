// The one seam through which donations are created (ADR 19). Two writers
// keep the same rules: the simple one writes each request in its own locked
// transaction, and is the reference; the batched one (donations.batches.ts)
// writes the requests that arrive together in one round. The property test
// runs both on the same operations and compares the books.
import type { Deps } from '../../deps.ts';
import { AppError } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { lockFundAccounts } from '../ledger/index.ts';
import { findRecipients, type NonProfit } from '../nonprofits/index.ts';
import { recordOutcome, type IdempotencyClaim, type StoredAnswer } from '../idempotency/index.ts';
import { reserveIds } from '../../db/ids.ts';
import type { DonationStatus } from './donations.ts';
import { insertHeld, type HeldDonation } from './donations.held.ts';

/** A request for a donation: its recipient by EIN, the donation, and the request's Idempotency-Key claim if any. */
export interface Submitted {
  /** The recipient's EIN, looked up in the writer's transaction (findRecipients' rules). */
  ein: string;
  donation: Omit<HeldDonation, 'non_profit_id'>;
  claim: IdempotencyClaim | undefined;
  /** What the use case answers for the donation made (its view): with the claim's `answer`, stored in the writer's transaction. */
  view?: ((made: Made) => unknown) | undefined;
}

/** The answer a request's claim stores with its outcome, when both its route and its use case give one. */
export function answerOf(request: Pick<Submitted, 'claim' | 'view'>, made: Made): StoredAnswer | undefined {
  const { claim, view } = request;
  return claim?.answer === undefined || view === undefined ? undefined : claim.answer(view(made));
}

/** The donation written for a request. */
export interface Made {
  id: number;
  status: DonationStatus;
  created_at: string;
  nonProfit: NonProfit;
}

/**
 * Writes each submitted donation with its hold, journal entries, event and
 * Idempotency-Key outcome, or refuses it with the AppError a lone request
 * would get. Submissions of one fund are decided in the order they were made.
 */
export interface DonationWriter {
  submit(request: Submitted): Promise<Made>;
  /** How requests shared transactions on this node (tests, diagnostics): every writer counts these. */
  readonly stats: WriterStats;
}

/**
 * Transactions written, the requests and funds they carried, the seconds they took (from their
 * first statement until durable, answers not included); for the batched writer also its
 * guarded writes that found a balance moved, rounds run as a locked transaction, and guarded
 * writes whose recipients were all remembered, and the requests waiting for a round now.
 */
export interface WriterStats {
  transactions: number;
  requests: number;
  funds: number;
  seconds: number;
  moved: number;
  locked: number;
  remembered: number;
  waiting: number;
}

export function noStats(): WriterStats {
  return { transactions: 0, requests: 0, funds: 0, seconds: 0, moved: 0, locked: 0, remembered: 0, waiting: 0 };
}

/** One request, one transaction: the fund's accounts locked, the recipient read, the donation written. */
export class SimpleDonationWriter implements DonationWriter {
  readonly #deps: Deps;
  readonly stats = noStats();

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async submit(request: Submitted): Promise<Made> {
    const { ein, donation, claim } = request;
    this.stats.transactions += 1;
    this.stats.requests += 1;
    this.stats.funds += 1;
    let answered = false;
    const began = performance.now();
    const made = await this.#deps.db.transaction().execute(async (trx) => {
      const accounts = await lockFundAccounts(trx, donation.fund_id);
      const nonProfit = (await findRecipients(trx, [ein])).get(ein);
      assert(nonProfit !== undefined, 'findRecipients answers every EIN asked');
      if (nonProfit instanceof AppError) throw nonProfit;
      const [id] = await reserveIds(trx, 'donations', 1);
      assert(id !== undefined, 'an id was reserved');
      const [row] = await insertHeld(this.#deps, trx, accounts, [{ ...donation, non_profit_id: nonProfit.id, id }]);
      assert(row !== undefined, 'the donation was written');
      const made = { id, status: row.status, created_at: row.created_at, nonProfit };
      const answer = answerOf(request, made);
      await recordOutcome(trx, claim, `donation:${id}`, answer);
      answered = answer !== undefined;
      return made;
    });
    this.stats.seconds += (performance.now() - began) / 1000;
    if (answered && claim !== undefined) claim.answered = true;
    this.#deps.metrics.counters.donationCreated(donation.book, donation.amount_cents);
    return made;
  }
}

/** Keys of a round's requests that other requests recorded first (their indexes in the round). */
export class KeysTaken extends Error {
  readonly at: readonly number[];
  constructor(at: readonly number[]) {
    super('Idempotency-Keys of the round were recorded by other requests');
    this.at = at;
  }
}
