// Donations batched across requests and funds (ADR 9): the requests that
// arrive together are created in one round, each with its own outcome.
import { dialectOf } from '../../db/dialect.ts';
import type { Deps } from '../../deps.ts';
import type { Db, Trx } from '../../db/database.ts';
import { outcomeUnknown } from '../../db/errors.ts';
import { AppError } from '../../shared/errors.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { guardedEntryStatements, lockFundsAccounts, readFundAccounts } from '../ledger/index.ts';
import { findRecipients, findRecipientsAsOf, recordsEpochIs, type NonProfit } from '../nonprofits/index.ts';
import { claimOutcomesStatements, keyTakenOver, recordClaimOutcomes, type ClaimOutcome, type IdempotencyClaim } from '../idempotency/index.ts';
import { IdStock, reserveIds } from '../../db/ids.ts';
import { isExpectationFailed, runIfAllRows } from '../../db/bulk.ts';
import type { DonationStatus } from './donations.ts';
import { KeysTaken, answerOf, noStats, type DonationWriter, type Made, type Submitted } from './donations.writer.ts';
import * as store from './donations.store.ts';
import { createdEvents, decide, holdEntries, knownFund, writeDecided, type KnownFund } from './donations.held.ts';

// Group commit across requests and funds (ADR 9). A fund's balance check and
// hold run under a lock on its accounts, held until the commit is durable; so
// one fund's donations are created one round at a time. The requests that
// arrive together, from any number of funds, are created in one round: one
// transaction (on PostgreSQL first tried as one statement guarded by a
// compare-and-set on each fund's balance, #createGuarded), a few statements
// for all of them. Requests that arrive while a round runs wait for the next,
// so each fund's donations are decided in arrival order. Each request still
// gets exactly its own donation or error.

interface Waiting extends Submitted {
  resolve: (made: Made) => void;
  reject: (error: unknown) => void;
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

/**
 * The Idempotency-Key claims of the requests `at` of a round, each with the donation `ids[j]` made
 * for request `at[j]` and, when `made` tells what was made before it is written, the answer.
 */
function claimsOf(batch: readonly Waiting[], at: readonly number[], ids: readonly number[], made?: (j: number) => Made): Array<ClaimOutcome & { i: number }> {
  return at.flatMap((i, j) => {
    const request = batch[i] as Waiting;
    const claim = request.claim;
    if (claim === undefined) return [];
    return [{ i, claim, resource: `donation:${ids[j] as number}`, answer: made === undefined ? undefined : answerOf(request, made(j)) }];
  });
}

/** After the commit: the claims whose answers the round stored have nothing left to store. */
function answered(claims: ReadonlyArray<{ claim: IdempotencyClaim; answer?: unknown }>): void {
  for (const { claim, answer } of claims) if (answer !== undefined) claim.answered = true;
}

/** The funds of a round's requests, each once, in ascending order (the order their locks are taken in). */
function fundsOf(batch: readonly Waiting[]): number[] {
  return [...new Set(batch.map((w) => w.donation.fund_id))].sort((a, b) => a - b);
}

/** How long a fund whose balance another writer moved skips the guarded write. */
const CONTENDED_MS = 1000;

/** The most funds whose balance a node remembers. */
const KNOWN_FUNDS_MAX = 10_000;

/** The most donations one round creates. */
const BATCH_MAX = 200;

/** The most recipients a node remembers. */
const RECIPIENTS_MAX = 10_000;

export class FundBatches implements DonationWriter {
  readonly #deps: Deps;
  /** Per fund, in arrival order: the requests not yet in a round. */
  readonly #waiting = new Map<number, Waiting[]>();
  /**
   * True while a round runs: one round at a time on a node. SQLite writes one transaction at a
   * time anyway; on PostgreSQL two overlapping rounds measured slower than one round carrying
   * the requests of both (ADR 9).
   */
  #running = false;
  #pumpScheduled = false;
  /**
   * PostgreSQL: per fund, its accounts and available balance as this node last
   * wrote them. Only a guess (another node, or any other use case, may have
   * moved the balance since): a guarded write checks it.
   */
  readonly #known = new Map<number, KnownFund>();
  /**
   * PostgreSQL: funds whose guarded write lately found the balance moved
   * (another node writes them too), until when (monotonic ms) the rounds that
   * carry them go straight to the locked transaction instead of failing a guess each time.
   */
  readonly #contended = new Map<number, number>();
  /**
   * PostgreSQL: the organisations this node's rounds gave to, as of a records
   * epoch; a guarded write that uses them checks the epoch has not moved.
   */
  #recipients = { epoch: -1, byEin: new Map<string, NonProfit>() };
  /** PostgreSQL: donation and journal entry ids taken ahead (db/ids.ts). */
  readonly #ids: IdStock;
  readonly stats = noStats();

  constructor(deps: Deps) {
    this.#deps = deps;
    this.#ids = new IdStock(deps.db, ['donations', 'journal_entries']);
  }

  submit(item: Submitted): Promise<Made> {
    return new Promise<Made>((resolve, reject) => {
      const fundId = item.donation.fund_id;
      const queue = this.#waiting.get(fundId);
      if (queue === undefined) this.#waiting.set(fundId, [{ ...item, resolve, reject }]);
      else queue.push({ ...item, resolve, reject });
      this.stats.waiting += 1;
      if (this.#pumpScheduled) return;
      this.#pumpScheduled = true;
      // Requests already read from the network join the same round.
      setImmediate(() => {
        this.#pumpScheduled = false;
        this.#pump();
      });
    });
  }

  /** Starts the next round, unless one runs (it starts the next when it ends). */
  #pump(): void {
    if (this.#running) return;
    const round = this.#nextRound();
    if (round.length === 0) return;
    this.#running = true;
    // The next round starts as soon as this one's writes are done, before its requests are
    // answered: their answers are built while the next round's first statements run (answered
    // after the microtasks that send those).
    void this.#run(round).then(
      (answer) => {
        this.#running = false;
        this.#pump();
        setImmediate(answer);
      },
      (error: unknown) => {
        this.#running = false;
        this.#pump();
        for (const w of round) w.reject(error);
      },
    );
  }

  /** The waiting requests, longest-waiting fund first (each fund's in arrival order), up to BATCH_MAX. */
  #nextRound(): Waiting[] {
    const round: Waiting[] = [];
    for (const [fundId, queue] of this.#waiting) {
      round.push(...queue.splice(0, BATCH_MAX - round.length));
      if (queue.length === 0) this.#waiting.delete(fundId);
      if (round.length >= BATCH_MAX) break;
    }
    this.stats.waiting -= round.length;
    return round;
  }

  /**
   * One write for the round (guarded, else a locked transaction). If the
   * database refuses it, each request is tried alone, so one cannot fail the
   * others; if the connection was lost, each fails. Resolves, once every write
   * is done, to what answers the round's requests.
   */
  async #run(batch: Waiting[]): Promise<() => void> {
    let outcomes: Array<Made | AppError>;
    this.stats.transactions += 1;
    this.stats.requests += batch.length;
    this.stats.funds += fundsOf(batch).length;
    const began = performance.now();
    try {
      outcomes = (await this.#createGuarded(batch)) ?? (await this.#createLocked(batch));
    } catch (error) {
      this.stats.seconds += (performance.now() - began) / 1000;
      // Tried again one by one only when the database refused it, so nothing was written;
      // a lost connection may have committed it, and each request fails (503) instead.
      if (batch.length === 1 || outcomeUnknown(this.#deps.db, error)) {
        return () => {
          for (const w of batch) w.reject(error);
        };
      }
      const answers: Array<() => void> = [];
      for (const one of batch) answers.push(await this.#run([one]));
      return () => {
        for (const answer of answers) answer();
      };
    }
    this.stats.seconds += (performance.now() - began) / 1000;
    return () =>
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
   * PostgreSQL: a round in one statement and no lock held across round
   * trips. The recipients, ids and (unless this node remembers them) the
   * balances are read first; then the writes, with each Idempotency-Key's
   * outcome, go in one statement that commits only if every fund's available
   * balance is still the one decided on and every key is still held by its
   * request (db/bulk.ts runIfAllRows). Undefined when it did not write (a
   * balance had moved, a key was taken over, the statement failed, or a fund
   * is contended): the locked transaction then decides.
   */
  async #createGuarded(batch: readonly Waiting[]): Promise<Array<Made | AppError> | undefined> {
    if (!dialectOf(this.#deps.db).guardedStatements) return undefined;
    const funds = fundsOf(batch);
    const now = performance.now();
    for (const fundId of funds) {
      const until = this.#contended.get(fundId);
      if (until === undefined) continue;
      if (now < until) return undefined;
      this.#contended.delete(fundId);
    }
    // One connection for the round: the pool is shared with every request's reads.
    return this.#deps.db.connection().execute((conn) => this.#writeGuarded(conn, funds, batch));
  }

  async #writeGuarded(conn: Db, fundIds: readonly number[], batch: readonly Waiting[]): Promise<Array<Made | AppError> | undefined> {
    // The recipients this node remembers and ids taken ahead: usually no round trip before
    // the write. Else both are read at once (neither writes; the guarded write checks what must hold).
    const eins = batch.map((w) => w.ein);
    const [{ epoch, recipients }, [ids = [], entryIds = []]] = await Promise.all([this.#remembered(eins) ?? this.#readRecipients(eins), this.#ids.take(batch.length)]);
    const funds = new Map<number, KnownFund>();
    for (const fundId of fundIds) funds.set(fundId, this.#known.get(fundId) ?? knownFund(fundId, await readFundAccounts(conn, fundId)));
    const { found, outcomes, valid: madeAt } = sortOut(batch, recipients);
    const made = madeAt.map((i) => ({ ...(batch[i] as Waiting).donation, non_profit_id: (found[i] as NonProfit).id, id: ids[i] as number }));
    if (made.length === 0) return settled(outcomes, found, [], []);
    const at = this.#deps.clock.now().toISOString();
    const { rows, held } = decide(funds, made, at);
    const guarded = [...new Set(made.map((d) => d.fund_id))].map((fundId) => funds.get(fundId) as KnownFund);
    const { guard, statements } = guardedEntryStatements(
      holdEntries(funds, held, entryIds),
      at,
      guarded.map((f) => ({ account_id: f.ids.available, expected_cents: f.available_cents })),
    );
    // Each request's Idempotency-Key outcome in the same statement as its donation: it writes
    // only if every claim still holds its key (one taken over sends the round to the locked transaction).
    const claims = claimsOf(
      batch,
      madeAt,
      made.map((d) => d.id),
      (j) => {
        const row = rows[j] as (typeof rows)[number];
        return { id: row.id, status: row.status, created_at: row.created_at, nonProfit: found[madeAt[j] as number] as NonProfit };
      },
    );
    try {
      const available = await runIfAllRows(
        conn,
        guard,
        guarded.length,
        [...store.donationStatements(rows), ...statements, ...createdEvents(rows)],
        "the funds' available balances, the directory and the requests' Idempotency-Keys are as read",
        recordsEpochIs(epoch),
        claims.length === 0 ? undefined : { statements: claimOutcomesStatements(claims), rows: claims.length },
      );
      answered(claims);
      if (this.#known.size + guarded.length > KNOWN_FUNDS_MAX) this.#known.clear();
      for (const f of guarded) {
        const cents = Number(available.get(f.ids.available));
        assertSafeInteger(cents, 'available balance');
        this.#known.set(f.fund_id, { ...f, available_cents: cents });
      }
    } catch (error) {
      for (const f of guarded) this.#known.delete(f.fund_id);
      if (isExpectationFailed(error)) {
        this.#recipients = { epoch: -1, byEin: new Map() };
        await this.#noteMoved(conn, guarded);
      }
      // The locked path would write it a second time if this one committed.
      if (outcomeUnknown(this.#deps.db, error)) throw error;
      return undefined;
    }
    return settled(outcomes, found, madeAt, rows);
  }

  /** The recipients of `eins` as of the epoch they were read at, if this node remembers every one. */
  #remembered(eins: readonly string[]): { epoch: number; recipients: Map<string, NonProfit> } | undefined {
    const { epoch, byEin } = this.#recipients;
    const recipients = new Map<string, NonProfit>();
    for (const ein of eins) {
      const np = byEin.get(ein);
      if (np === undefined) return undefined;
      recipients.set(ein, np);
    }
    this.stats.remembered += 1;
    return { epoch, recipients };
  }

  /** The recipients of `eins` read now, remembered (those that may receive donations) under their epoch. */
  async #readRecipients(eins: readonly string[]) {
    const read = await findRecipientsAsOf(this.#deps.db, eins);
    if (read.epoch !== this.#recipients.epoch || this.#recipients.byEin.size >= RECIPIENTS_MAX) this.#recipients = { epoch: read.epoch, byEin: new Map() };
    for (const [ein, np] of read.recipients) if (!(np instanceof AppError)) this.#recipients.byEin.set(ein, np);
    return read;
  }

  /** After a failed guard: the funds whose balance another writer moved are contended for a while. */
  async #noteMoved(conn: Db, guessed: readonly KnownFund[]): Promise<void> {
    if (this.#contended.size + guessed.length > KNOWN_FUNDS_MAX) this.#contended.clear();
    for (const f of guessed) {
      const now = await readFundAccounts(conn, f.fund_id);
      if (now.balances.available_cents === f.available_cents) continue;
      this.stats.moved += 1;
      this.#contended.set(f.fund_id, performance.now() + CONTENDED_MS);
    }
  }

  async #createLocked(batch: readonly Waiting[]): Promise<Array<Made | AppError>> {
    this.stats.locked += 1;
    // Its ids come from the sequence now: none taken ahead may follow them.
    this.#ids.discard();
    // The requests whose keys another request recorded first: refused, and the round run again without them.
    const refused = new Set<number>();
    for (;;) {
      const stored: Array<{ claim: IdempotencyClaim; answer?: unknown }> = [];
      try {
        const outcomes = await this.#deps.db.transaction().execute((trx) => this.#create(trx, batch, stored, refused));
        answered(stored);
        return outcomes;
      } catch (error) {
        if (!(error instanceof KeysTaken)) throw error;
        for (const i of error.at) refused.add(i);
      }
    }
  }

  /**
   * The round in `trx`, the requests in `refused` refused for their keys; the claims it recorded
   * with their answers are pushed to `stored`. Throws KeysTaken (rolling the round back) when
   * another request recorded one of its keys first: each fund's decisions depend on every
   * donation before them, so the round is decided again without it.
   */
  async #create(trx: Trx, batch: readonly Waiting[], stored: Array<{ claim: IdempotencyClaim; answer?: unknown }>, refused: ReadonlySet<number>): Promise<Array<Made | AppError>> {
    // Locks in ascending fund order, as every round takes them: two rounds never wait on each other in a cycle.
    const funds = new Map<number, KnownFund>();
    for (const [fundId, accounts] of await lockFundsAccounts(trx, fundsOf(batch))) funds.set(fundId, knownFund(fundId, accounts));
    const { found, outcomes, valid } = sortOut(
      batch,
      await findRecipients(
        trx,
        batch.map((w) => w.ein),
      ),
    );
    for (const i of refused) if (outcomes[i] === undefined) outcomes[i] = keyTakenOver();
    const madeAt = valid.filter((i) => outcomes[i] === undefined);
    const ids = await reserveIds(trx, 'donations', madeAt.length);
    const made = madeAt.map((i, k) => ({ ...(batch[i] as Waiting).donation, non_profit_id: (found[i] as NonProfit).id, id: ids[k] as number }));
    const at = this.#deps.clock.now().toISOString();
    const decided = decide(funds, made, at);
    // Each request's Idempotency-Key record with its answer, in the same transaction as its
    // donation (idempotency/outcome.ts), one statement for the round: written once, not recorded
    // and then answered.
    const claims = claimsOf(batch, madeAt, ids, (j) => {
      const row = decided.rows[j] as (typeof decided.rows)[number];
      return { id: row.id, status: row.status, created_at: row.created_at, nonProfit: found[madeAt[j] as number] as NonProfit };
    });
    const recorded = await recordClaimOutcomes(trx, claims);
    const taken = claims.filter((_, j) => recorded[j] !== true).map(({ i }) => i);
    if (taken.length > 0) throw new KeysTaken(taken);
    await writeDecided(trx, funds, decided, at);
    stored.push(...claims);
    return settled(outcomes, found, madeAt, decided.rows);
  }
}
