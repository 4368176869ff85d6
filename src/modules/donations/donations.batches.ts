// Writing donations with their holds: one at a time inside a caller's
// transaction (insertHeld), or batched per fund across requests (FundBatches,
// ADR 9): the requests for one fund that arrive together are created in one
// transaction, each with its own outcome.
import type { Deps } from '../../deps.ts';
import { outcomeUnknown, type Db, type Trx } from '../../db/database.ts';
import { AppError } from '../../shared/errors.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { entryStatements, guardedEntryStatements, lockFundAccounts, readFundAccounts, reserveEntryIds, type FundAccounts } from '../ledger/index.ts';
import { eventStatements } from '../events/index.ts';
import { findRecipients, type NonProfit } from '../nonprofits/index.ts';
import type { Book } from '../../shared/book.ts';
import { keyTakenOver, recordClaimOutcome, type IdempotencyClaim } from '../idempotency/index.ts';
import { reserveIds, reserveIdsOfEach } from '../../db/ids.ts';
import { isExpectationFailed, runIfOneRow, runStatements } from '../../db/bulk.ts';
import { initialStatus, type DonationStatus } from './donations.ts';
import * as store from './donations.store.ts';

export type HeldDonation = {
  book: Book;
  user_id: number;
  fund_id: number;
  non_profit_id: number;
  amount_cents: number;
  note: string | null;
  private_memo: string | null;
  visibility: string;
  scheduled_donation_id: number | null;
  scheduled_for?: string;
};

/**
 * Inserts donations of one fund, in order: each `scheduled` with a hold when
 * what its fund has available (after the holds before it) covers it, else
 * `waiting_for_funds`; with their journal entries and events, a few
 * statements for the lot. `accounts` are the fund's, locked in `trx`.
 */
export async function insertHeld(
  deps: Deps,
  trx: Trx,
  accounts: FundAccounts,
  donations: ReadonlyArray<HeldDonation & { id: number }>,
): Promise<Array<{ id: number; status: DonationStatus; created_at: string }>> {
  const at = deps.clock.now().toISOString();
  const { rows, held } = decide(accounts.balances.available_cents, donations, at);
  const entryIds = await reserveEntryIds(trx, deps.engine, held.length);
  // One statement on PostgreSQL (db/bulk.ts): the fund's lock is held through fewer round trips.
  await runStatements(trx, deps.engine, [...store.donationStatements(rows), ...entryStatements(holdEntries(accounts.ids, held, entryIds), at), ...createdEvents(rows)]);
  return rows;
}

type DecidedDonation = HeldDonation & { id: number; status: DonationStatus; created_at: string };

/** Each donation `scheduled` while `available` (less the holds before it) covers it, else `waiting_for_funds`. */
function decide(available: number, donations: ReadonlyArray<HeldDonation & { id: number }>, at: string): { rows: DecidedDonation[]; held: DecidedDonation[] } {
  let left = available;
  const rows = donations.map((d) => {
    const status = initialStatus(left, d.amount_cents);
    if (status === 'scheduled') left -= d.amount_cents;
    return { ...d, status, created_at: at };
  });
  return { rows, held: rows.filter((d) => d.status === 'scheduled') };
}

function createdEvents(rows: readonly DecidedDonation[]) {
  return eventStatements(
    rows.map((d) => ({
      user_id: d.user_id,
      type: 'donation.created' as const,
      object_type: 'donation',
      object_id: d.id,
      data: { status: d.status },
      at: d.created_at,
    })),
  );
}

/** A hold for each scheduled donation: available to reserved, with the entry ids reserved for them. */
function holdEntries(ids: FundAccounts['ids'], held: readonly DecidedDonation[], entryIds: readonly number[]) {
  return held.map((d, i) => ({
    id: entryIds[i] as number,
    cause: { book: d.book, memo: 'donation scheduled: hold', donation_id: d.id },
    movements: [{ from_account_id: ids.available, to_account_id: ids.reserved, amount_cents: d.amount_cents }],
  }));
}

// Group commit across requests. A fund's balance check and hold run under a
// lock on its accounts, held until the commit is durable; so one fund's
// donations can only be created one transaction at a time, each paying a
// full durable commit (on PostgreSQL, also every round trip). Requests for
// the same fund that arrive while one of its transactions runs wait, and the
// next transaction creates all of them at once: one lock, one commit, a few
// statements. Each request still gets exactly its own donation or error.
// On PostgreSQL a batch first tries without the lock: one statement guarded
// by a compare-and-set on the balance (#createGuarded, ADR 9).

interface Submitted {
  /** The recipient's EIN, looked up in the shared transaction (findRecipient's rules). */
  ein: string;
  donation: Omit<HeldDonation, 'non_profit_id'>;
  claim: IdempotencyClaim | undefined;
}

interface Made {
  id: number;
  status: DonationStatus;
  created_at: string;
  nonProfit: NonProfit;
}

interface Waiting extends Submitted {
  resolve: (made: Made) => void;
  reject: (error: unknown) => void;
}

interface KnownFund {
  ids: FundAccounts['ids'];
  available_cents: number;
}

/** Each request's non-profit or error (findRecipients), the errors as outcomes already, and which requests go on. */
function sortOut(batch: readonly Waiting[], recipients: ReadonlyMap<string, NonProfit | AppError>) {
  const found = batch.map((w) => recipients.get(w.ein) as NonProfit | AppError);
  const outcomes: Array<Made | AppError | undefined> = found.map((np) => (np instanceof AppError ? np : undefined));
  const valid = [...outcomes.keys()].filter((i) => outcomes[i] === undefined);
  return { found, outcomes, valid };
}

/**
 * Every request's outcome: the error it already has, else the donation
 * written for it (`rows[j]` was made for request `madeAt[j]`, to `found`'s non-profit).
 */
function settled(
  outcomes: Array<Made | AppError | undefined>,
  found: ReadonlyArray<NonProfit | AppError>,
  madeAt: readonly number[],
  rows: ReadonlyArray<{ id: number; status: DonationStatus; created_at: string }>,
): Array<Made | AppError> {
  rows.forEach((row, j) => {
    const i = madeAt[j] as number;
    outcomes[i] = { id: row.id, status: row.status, created_at: row.created_at, nonProfit: found[i] as NonProfit };
  });
  return outcomes.map((o) => {
    assert(o !== undefined, 'every request has an outcome');
    return o;
  });
}

function knownFund(accounts: FundAccounts): KnownFund {
  return { ids: accounts.ids, available_cents: accounts.balances.available_cents };
}

/** How long a fund whose balance another writer moved skips the guarded write. */
const CONTENDED_MS = 1000;

/** The most funds whose balance a node remembers. */
const KNOWN_FUNDS_MAX = 10_000;

/** The most donations one transaction creates. */
const BATCH_MAX = 200;

class FundBatches {
  readonly #deps: Deps;
  /** Per fund: the requests waiting for its next transaction; present while one runs. */
  readonly #queues = new Map<number, Waiting[]>();
  /**
   * PostgreSQL: per fund, its accounts and available balance as this node last
   * wrote them. Only a guess (another node, or any other use case, may have
   * moved the balance since): a guarded write checks it.
   */
  readonly #known = new Map<number, KnownFund>();
  /**
   * PostgreSQL: funds whose guarded write lately found the balance moved
   * (another node writes them too), until when (monotonic ms) their batches
   * go straight to the locked transaction instead of failing a guess each time.
   */
  readonly #contended = new Map<number, number>();
  /**
   * Batches run and the donation requests they carried; guarded writes that
   * found the balance moved; batches that ran as a locked transaction.
   */
  readonly stats = { transactions: 0, requests: 0, moved: 0, locked: 0 };

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  submit(item: Submitted): Promise<Made> {
    return new Promise<Made>((resolve, reject) => {
      const fundId = item.donation.fund_id;
      const queue = this.#queues.get(fundId);
      if (queue !== undefined) {
        queue.push({ ...item, resolve, reject });
        return;
      }
      this.#queues.set(fundId, [{ ...item, resolve, reject }]);
      void this.#drain(fundId);
    });
  }

  async #drain(fundId: number): Promise<void> {
    const queue = this.#queues.get(fundId);
    assert(queue !== undefined, 'a fund being drained has a queue');
    // Requests already read from the network join the first transaction too.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      const batch = queue.splice(0, BATCH_MAX);
      if (batch.length === 0) {
        this.#queues.delete(fundId);
        return;
      }
      await this.#run(batch);
    }
  }

  /**
   * One write for the batch (guarded, else a locked transaction). If the
   * database refuses it, each request is tried alone, so one cannot fail the
   * others; if the connection was lost, each fails.
   */
  async #run(batch: Waiting[]): Promise<void> {
    let outcomes: Array<Made | AppError>;
    this.stats.transactions += 1;
    this.stats.requests += batch.length;
    try {
      outcomes = (await this.#createGuarded(batch)) ?? (await this.#createLocked(batch));
    } catch (error) {
      // Tried again one by one only when the database refused it, so nothing was written;
      // a lost connection may have committed it, and each request fails (503) instead.
      if (batch.length === 1 || outcomeUnknown(this.#deps.engine, error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      for (const one of batch) await this.#run([one]);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      assert(outcome !== undefined, 'an outcome for every request');
      if (outcome instanceof AppError) w.reject(outcome);
      else {
        this.#deps.metrics.counters.donationCreated(w.donation.book, w.donation.amount_cents);
        w.resolve(outcome);
      }
    });
  }

  /**
   * PostgreSQL, a batch without Idempotency-Keys: one statement and no lock
   * held across round trips. The recipients, ids and (unless this node
   * remembers it) the balance are read first; then the writes go in one
   * statement that commits only if the fund's available balance is still the
   * one decided on (db/bulk.ts runIfOneRow). Undefined when it did not write
   * (the balance had moved, the statement failed, or the fund is contended):
   * the locked transaction then decides.
   */
  async #createGuarded(batch: readonly Waiting[]): Promise<Array<Made | AppError> | undefined> {
    if (this.#deps.engine !== 'postgres' || batch.some((w) => w.claim !== undefined)) return undefined;
    const fundId = batch[0]?.donation.fund_id;
    assert(fundId !== undefined, 'a batch is never empty');
    const until = this.#contended.get(fundId);
    if (until !== undefined) {
      if (performance.now() < until) return undefined;
      this.#contended.delete(fundId);
    }
    // One connection for the batch: the pool is shared with every request's reads.
    return this.#deps.db.connection().execute((conn) => this.#writeGuarded(conn, fundId, batch));
  }

  async #writeGuarded(conn: Db, fundId: number, batch: readonly Waiting[]): Promise<Array<Made | AppError> | undefined> {
    const recipients = await findRecipients(
      conn,
      batch.map((w) => w.ein),
    );
    const [ids = [], entryIds = []] = await reserveIdsOfEach(conn, ['donations', 'journal_entries'], batch.length);
    const fund = this.#known.get(fundId) ?? knownFund(await readFundAccounts(conn, fundId));
    const { found, outcomes, valid: madeAt } = sortOut(batch, recipients);
    const made = madeAt.map((i) => ({ ...(batch[i] as Waiting).donation, non_profit_id: (found[i] as NonProfit).id, id: ids[i] as number }));
    if (made.length === 0) return settled(outcomes, found, [], []);
    const at = this.#deps.clock.now().toISOString();
    const { rows, held } = decide(fund.available_cents, made, at);
    const { guard, statements } = guardedEntryStatements(holdEntries(fund.ids, held, entryIds), at, { account_id: fund.ids.available, expected_cents: fund.available_cents });
    try {
      const available = await runIfOneRow(conn, guard, [...store.donationStatements(rows), ...statements, ...createdEvents(rows)], "the fund's available balance is as read");
      assertSafeInteger(available, 'available balance');
      if (this.#known.size >= KNOWN_FUNDS_MAX) this.#known.clear();
      this.#known.set(fundId, { ids: fund.ids, available_cents: available });
    } catch (error) {
      this.#known.delete(fundId);
      if (isExpectationFailed(error)) {
        this.stats.moved += 1;
        if (this.#contended.size >= KNOWN_FUNDS_MAX) this.#contended.clear();
        this.#contended.set(fundId, performance.now() + CONTENDED_MS);
      }
      // The locked path would write it a second time if this one committed.
      if (outcomeUnknown('postgres', error)) throw error;
      return undefined;
    }
    return settled(outcomes, found, madeAt, rows);
  }

  #createLocked(batch: readonly Waiting[]): Promise<Array<Made | AppError>> {
    this.stats.locked += 1;
    return this.#deps.db.transaction().execute((trx) => this.#create(trx, batch));
  }

  async #create(trx: Trx, batch: readonly Waiting[]): Promise<Array<Made | AppError>> {
    const first = batch[0];
    assert(first !== undefined, 'a batch is never empty');
    const accounts = await lockFundAccounts(trx, this.#deps.engine, first.donation.fund_id);
    const { found, outcomes, valid } = sortOut(
      batch,
      await findRecipients(
        trx,
        batch.map((w) => w.ein),
      ),
    );
    const ids = await reserveIds(trx, this.#deps.engine, 'donations', valid.length);
    const made: Array<HeldDonation & { id: number }> = [];
    const madeAt: number[] = [];
    for (const [k, i] of valid.entries()) {
      const w = batch[i] as Waiting;
      const id = ids[k] as number;
      // Each request's Idempotency-Key outcome, in the same transaction as its donation (shared/outcome.ts).
      // (A refused one leaves its reserved id unused.)
      if (w.claim !== undefined && !(await recordClaimOutcome(trx, w.claim, `donation:${id}`))) {
        outcomes[i] = keyTakenOver();
        continue;
      }
      made.push({ ...w.donation, non_profit_id: (found[i] as NonProfit).id, id });
      madeAt.push(i);
    }
    return settled(outcomes, found, madeAt, await insertHeld(this.#deps, trx, accounts, made));
  }
}

const batches = new WeakMap<Deps, FundBatches>();

/** How well requests shared transactions on this node (tests, diagnostics). */
export function donationBatchStats(deps: Deps): FundBatches['stats'] {
  return { ...batchesOf(deps).stats };
}

export function batchesOf(deps: Deps): FundBatches {
  let b = batches.get(deps);
  if (b === undefined) {
    b = new FundBatches(deps);
    batches.set(deps, b);
  }
  return b;
}
