// The lists of a user's donations (form 2.1 for the owner, 2.3 for others), newest first, a page
// at a time: the first pages read as lookups, a deep one on the pool.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../shared/errors.ts';
import type { Db } from '../../db/database.ts';
import { offsetOf, pageMeta, toPage, type Page, type PageRequest } from '../../shared/page.ts';
import type { Caller } from '../../shared/caller.ts';
import { visibleUser } from '../users/index.ts';
import * as store from './donations.store.ts';
import { KEPT_ROWS_MAX, KeptDonationRows } from './donations.rows.ts';
import * as partner from './donations.partner.store.ts';
import { cardsFor, ownListForm, ownUserScopedForm, userScopedForm } from './donations.view.ts';
import { ownDonationPageJson } from './donations.json.ts';
import { cardsEpoch } from '../nonprofits/index.ts';
import { authorize } from '../../shared/policy.ts';
import * as queue from './donations.queue.store.ts';
import { centsToDollars } from '../../shared/money.ts';
import { isCancellable, type DonationStatus } from './donations.ts';
import { mayCancelAs } from './donations.requests.ts';
import type { Book } from '../../shared/book.ts';

declare module '../../deps.ts' {
  interface Runtime {
    /** The rows of donations this node has shown in lists, at their revisions (donations.rows.ts, ADR 33). */
    donationRows: KeptDonationRows<store.PageRow>;
  }
}

/** For platform.ts to build once per node. */
export function createKeptDonationRows(deps: Deps): KeptDonationRows<store.PageRow> {
  return new KeptDonationRows(KEPT_ROWS_MAX, deps.undone);
}

/** The most rows a page's OFFSET passes over and still be read as a lookup. */
export const LOOKUP_OFFSET_MAX = 1_000;

/**
 * Where a page of a list is read: the first pages as lookups (deps.lookups, pipelined on shared
 * connections on PostgreSQL), a deep one on a pooled connection of its own. A deep OFFSET reads
 * every row before it (tens of ms at 100,000), and a slow statement on a shared connection would
 * hold back every lookup sent behind it.
 */
export function pageReader(deps: Deps, page: PageRequest): Db {
  return offsetOf(page) <= LOOKUP_OFFSET_MAX ? deps.lookups : deps.db;
}

/** A page of a user's donations (`publicOnly`: the ones others see), with their count and the cards of their non-profits. */
async function readPage(deps: Deps, userId: number, publicOnly: boolean, page: PageRequest) {
  // The records epoch's read begins before the page's statements are made, so that on PostgreSQL
  // it leaves in the same write as them (db/pipelined.ts) and is answered in the same wait.
  const epoch = cardsEpoch(deps);
  const { rows, count } = await store.listByUser(pageReader(deps, page), userId, publicOnly, page, deps.runtime.donationRows);
  return { rows, count, cards: await cardsFor(deps, rows, epoch) };
}

export async function listOwnDonations(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count, cards } = await readPage(deps, caller.user_id, false, page);
  return toPage(
    // `cancelled` (beyond the API's form, which its serializer leaves out): a not_completed donation
    // its donor cancelled (or a request that lapsed), not one whose payment came back.
    // `cancellable` too: whether this caller may cancel it now (its status, and their role: rules §20), so a page offers no action it would refuse.
    rows.map((r) => ({ ...ownListForm(deps, cards, r), cancelled: r.cancelled_at !== null, cancellable: isCancellable(r.status) && mayCancelAs(caller, r) })),
    count,
    page,
  );
}

/** listOwnDonations's page as the JSON bytes its route answers (donations.json.ts), with its meta for the Link header. */
export async function listOwnDonationsJson(deps: Deps, caller: Caller, page: PageRequest): Promise<{ json: Buffer; meta: Page<unknown>['meta'] }> {
  authorize(caller, 'read');
  const { rows, count, cards } = await readPage(deps, caller.user_id, false, page);
  const meta = pageMeta(count, page);
  return { json: ownDonationPageJson(deps, cards, rows, meta), meta };
}

/** A user's donations: all of them for the owner, public ones (reduced) for others. Throws user_not_found. */
export async function listUserDonations(deps: Deps, caller: Caller, userId: number, page: PageRequest) {
  authorize(caller, 'read');
  const own = userId === caller.user_id;
  if (!own) await visibleUser(deps, caller, userId);
  const { rows, count, cards } = await readPage(deps, userId, !own, page);
  return toPage(
    rows.map((r) => (own ? ownUserScopedForm(cards, r) : userScopedForm(cards, r))),
    count,
    page,
  );
}

/** A user's public donations, in the form others see (the web profile page decides who may look). */
export async function listPublicDonations(deps: Deps, userId: number, page: PageRequest) {
  const { rows, count, cards } = await readPage(deps, userId, true, page);
  return toPage(
    rows.map((r) => userScopedForm(cards, r)),
    count,
    page,
  );
}

/**
 * The operator's queue: donations of `book` in a status (scheduled: waiting for approval), oldest
 * first, `limit` after `afterId`, each with its donor, organisation and screening (rules §7, §16).
 */
export async function donationQueue(deps: Deps, book: Book, status: DonationStatus, limit: number, afterId = 0) {
  return (await queue.donationsInStatus(deps.db, book, status, limit, afterId)).map((r) => ({
    id: Number(r.id),
    created_at: r.created_at,
    amount: centsToDollars(Number(r.amount_cents)),
    status: r.status,
    user_id: Number(r.user_id),
    donor: r.donor,
    ein: r.ein,
    non_profit: r.non_profit,
    screening: r.diligence,
  }));
}

export async function getOwnDonation(deps: Deps, caller: Caller, donationId: number) {
  authorize(caller, 'read');
  // The records epoch its organisation's card is kept under is asked for beside the row, as a
  // list page's is: on PostgreSQL on a lookup connection while the row's statements run on the pool.
  const epoch = cardsEpoch(deps);
  const record = await store.findDonation(deps.db, caller.book, donationId);
  if (record === undefined || record.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
  return ownListForm(deps, await cardsFor(deps, [record], epoch), record);
}

/** Many donations of a book in their owners' form (form 2.1), by id, read at once: what a batch of notifications carries. */
export async function ownDonationForms(
  deps: Deps,
  book: Book,
  ids: readonly number[],
): Promise<Map<number, { user_id: number; app_id: number | null; form: ReturnType<typeof ownListForm> }>> {
  const records = await store.findDonations(deps.db, book, ids);
  const [cards, apps] = await Promise.all([cardsFor(deps, records), store.appsOfDonations(deps.db, ids)]);
  return new Map(records.map((r) => [r.id, { user_id: r.user_id, app_id: apps.get(r.id) ?? null, form: ownListForm(deps, cards, r) }]));
}

/** The caller's donation with this external id (rules §21), as a page of one, or of none. */
export async function ownDonationsByExternalId(deps: Deps, caller: Caller, externalId: string) {
  authorize(caller, 'read');
  const id = await partner.donationByExternalId(deps.db, caller.user_id, externalId);
  const record = id === undefined ? undefined : await store.findDonation(deps.db, caller.book, id);
  const rows = record === undefined ? [] : [record];
  const cards = await cardsFor(deps, rows);
  return toPage(
    rows.map((r) => ownListForm(deps, cards, r)),
    rows.length,
    { page: 1, per_page: 1 },
  );
}
