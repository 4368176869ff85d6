// Writing donations with their holds (ADR 9): each donation `scheduled` with
// a hold while its fund's available money covers it, else waiting for funds;
// with their journal entries and events, a few statements for the lot. One
// fund's inside a caller's transaction (insertHeld), or several funds' for a
// round of requests (donations.batches.ts).
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import { assert } from '../../shared/assert.ts';
import { LogTail, entryStatements, reserveEntryIds, type FundAccounts } from '../ledger/index.ts';
import { eventStatements } from '../events/index.ts';
import type { Book } from '../../shared/book.ts';
import { runStatements } from '../../db/bulk.ts';
import { initialStatus, type DonationStatus } from './donations.ts';
import * as store from './donations.store.ts';

/** A fund's accounts and the available balance its donations are decided on. */
export interface KnownFund {
  fund_id: number;
  ids: FundAccounts['ids'];
  available_cents: number;
}

export function knownFund(fundId: number, accounts: FundAccounts): KnownFund {
  return { fund_id: fundId, ids: accounts.ids, available_cents: accounts.balances.available_cents };
}

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
  /** The app connection whose token made it (ADR 16); null for a key, the web or the scheduler. */
  app_connection_id: number | null;
  /** What the charity learns (rules §17); defaults when not given. */
  share?: string;
  designation?: string | null;
  dedication?: string | null;
  /** The member who made it (rules §20); null for the scheduler and the successor plan's own. */
  actor_id?: number | null;
  /** Set for a family member's request (rules §20): written `requested`, no hold, lapsing then. */
  request_expires_at?: string | null;
  /** The fundraiser it is given to (rules §22): a recurring donation's payment names it too. */
  fundraiser_id?: number | null;
  /** The app whose token or donate link made it (rules §25); a recurring donation's payments, its schedule's. */
  app_id?: number | null;
};

/**
 * Inserts donations of one fund, in order: each `scheduled` with a hold when
 * what its fund has available (after the holds before it) covers it, else
 * `waiting_for_funds`; with their journal entries and events, a few
 * statements for the lot. `accounts` are the fund's, locked in `trx`.
 */
export function insertHeld(
  deps: Deps,
  trx: Trx,
  accounts: FundAccounts,
  donations: ReadonlyArray<HeldDonation & { id: number }>,
): Promise<Array<{ id: number; status: DonationStatus; created_at: string }>> {
  const fundId = donations[0]?.fund_id;
  if (fundId === undefined) return Promise.resolve([]);
  assert(
    donations.every((d) => d.fund_id === fundId),
    'donations of one fund',
  );
  return insertHeldOfFunds(deps, trx, new Map([[fundId, knownFund(fundId, accounts)]]), donations);
}

/** insertHeld for donations of several funds, each fund's `accounts` locked in `trx`. */
export async function insertHeldOfFunds(
  deps: Deps,
  trx: Trx,
  funds: ReadonlyMap<number, KnownFund>,
  donations: ReadonlyArray<HeldDonation & { id: number }>,
): Promise<DecidedDonation[]> {
  const at = deps.clock.now().toISOString();
  const decided = decide(funds, donations, at);
  await writeDecided(trx, funds, decided, at);
  return decided.rows;
}

/** Writes what `decide` decided at `at` in `trx`: the donations, the holds' journal entries and the events. */
export async function writeDecided(trx: Trx, funds: ReadonlyMap<number, KnownFund>, { rows, held }: ReturnType<typeof decide>, at: string): Promise<void> {
  // The log's tail of the books this batch writes only (nearly always one): a read each, every batch.
  const books = [...new Set(held.map((d) => d.book))];
  const [entryIds, tail] = await Promise.all([reserveEntryIds(trx, held.length), LogTail.open(trx, books)]);
  // One statement on PostgreSQL (db/bulk.ts): the funds' locks are held through fewer round trips.
  await runStatements(trx, [...store.donationStatements(rows), ...entryStatements(holdEntries(funds, held, entryIds), at, tail), ...createdEvents(rows)]);
}

export type DecidedDonation = HeldDonation & { id: number; status: DonationStatus; created_at: string };

/**
 * Each donation, in order, `scheduled` while its fund's available money (less the holds before it)
 * covers it, else `waiting_for_funds`: one fund's decisions never depend on another's.
 */
export function decide(
  funds: ReadonlyMap<number, KnownFund>,
  donations: ReadonlyArray<HeldDonation & { id: number }>,
  at: string,
): { rows: DecidedDonation[]; held: DecidedDonation[] } {
  const left = new Map([...funds].map(([id, f]) => [id, f.available_cents]));
  const rows = donations.map((d) => {
    const available = left.get(d.fund_id);
    assert(available !== undefined, 'every donation is of a fund read');
    // A family member's request (rules §20) holds nothing until it is approved.
    const status: DonationStatus = d.request_expires_at !== undefined && d.request_expires_at !== null ? 'requested' : initialStatus(available, d.amount_cents);
    if (status === 'scheduled') left.set(d.fund_id, available - d.amount_cents);
    return { ...d, status, created_at: at };
  });
  return { rows, held: rows.filter((d) => d.status === 'scheduled') };
}

export function createdEvents(rows: readonly DecidedDonation[]) {
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

/** A hold for each scheduled donation: its fund's available to reserved, with the entry ids reserved for them. */
export function holdEntries(funds: ReadonlyMap<number, KnownFund>, held: readonly DecidedDonation[], entryIds: readonly number[]) {
  return held.map((d, i) => {
    const ids = funds.get(d.fund_id)?.ids;
    assert(ids !== undefined, 'every donation is of a fund read');
    return {
      id: entryIds[i] as number,
      cause: { book: d.book, memo: 'donation scheduled: hold', donation_id: d.id },
      movements: [{ from_account_id: ids.available, to_account_id: ids.reserved, amount_cents: d.amount_cents }],
    };
  });
}
