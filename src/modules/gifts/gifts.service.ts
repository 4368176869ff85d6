// Use cases for gifts: create (with a hold on the giver's fund), read, list.
import type { Deps } from '../../deps.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { AppError, conflict, notFound, unprocessable } from '../../shared/errors.ts';
import { findRecipient, requireEin } from '../nonprofits/index.ts';
import { insertDonation, promoteWaiting } from '../donations/index.ts';
import { centsToDollars } from '../../shared/money.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import { assertFundCanHold, lockFundAccounts, lockFundsAccounts, postEntry } from '../ledger/index.ts';
import type { Trx } from '../../db/database.ts';
import { recordEvent } from '../events/index.ts';
import type { Caller } from '../../shared/caller.ts';
import { GIFT_MIN_CENTS } from './gifts.ts';
import { recordOutcome, type IdempotencyClaim } from '../idempotency/index.ts';
import { spendingAsApp } from '../apps/index.ts';
import type { Book, Viewer } from '../../shared/book.ts';
import {
  endGift,
  findGiftByCode,
  findGiftByIdWithGiver,
  findGiftWithGiver,
  giftsWaitingAt,
  insertGift,
  lockGift,
  markGiftSeen,
  pageOfGifts,
  type Gift,
  type GiftEnd,
  giftByExternalId,
} from './gifts.store.ts';
import { authorize } from '../../shared/policy.ts';
import { ownerPartnerFields, partnerColumns, withExternalId } from '../../shared/partner.ts';
import { giftIds } from './gifts.partner.ts';

export interface NewGift {
  name: string;
  amount_cents: number;
  message?: string;
  email?: string;
  /** Partner fields (rules §21). */
  external_id?: string;
  metadata?: unknown;
}

function giftForm(deps: Deps, g: Gift) {
  return {
    name: g.name,
    amount: centsToDollars(g.amount_cents),
    message: g.message,
    code: g.code,
    ein: g.ein,
    seen: g.seen === 1,
    status: g.status,
    updated_at: g.updated_at,
    created_at: g.created_at,
    claimed: g.claimed === 1,
    url: `${deps.config.publicUrl}/gifts/${g.code}`,
  };
}

/**
 * Creates a gift and holds its amount (available -> reserved).
 * Throws: unprocessable (insufficient_funds).
 */
export async function createGift(deps: Deps, caller: Caller, input: NewGift, claim?: IdempotencyClaim) {
  authorize(caller, 'give_gift');
  assertSafeInteger(input.amount_cents, 'gift amount');
  assert(input.amount_cents >= GIFT_MIN_CENTS, 'the route enforces the minimum');
  const code = deps.ids.uuid();
  const partner = partnerColumns(input);
  // An app's gift counts against the monthly limit its donor set (ADR 16), given back if it is not made.
  await withExternalId(giftIds(deps, caller.user_id), partner.external_id, () =>
    spendingAsApp(deps, caller, input.amount_cents, () => insertHeldGift(deps, caller, { ...input, ...partner }, code, claim)),
  );
  return getGift(deps, caller, code);
}

function insertHeldGift(
  deps: Deps,
  caller: Caller,
  input: Omit<NewGift, 'external_id' | 'metadata'> & { external_id: string | null; metadata: string | null },
  code: string,
  claim: IdempotencyClaim | undefined,
): Promise<void> {
  return deps.db.transaction().execute(async (trx) => {
    const accounts = await lockFundAccounts(trx, caller.fund_id);
    if (accounts.balances.available_cents < input.amount_cents) {
      throw unprocessable('insufficient_funds', 'the fund does not have enough available money for this gift', [
        { field: 'amount', code: 'insufficient_funds', message: 'is more than the available balance' },
      ]);
    }
    const at = deps.clock.now().toISOString();
    const giftId = await insertGift(trx, {
      book: accounts.book,
      code,
      user_id: caller.user_id,
      fund_id: caller.fund_id,
      actor_id: caller.actor_id,
      name: input.name,
      email: input.email ?? null,
      amount_cents: input.amount_cents,
      message: input.message ?? null,
      ein: null,
      seen: 0,
      status: 'new',
      claimed: 0,
      created_at: at,
      updated_at: at,
      app_connection_id: caller.app?.connection_id ?? null,
      external_id: input.external_id,
      metadata: input.metadata,
    });
    await postEntry(
      trx,
      { book: accounts.book, memo: 'gift created: hold', gift_id: giftId },
      [{ from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: input.amount_cents }],
      at,
    );
    await recordEvent(trx, { user_id: caller.user_id, type: 'gift.created', object_type: 'gift', object_id: giftId, data: { status: 'new' }, at });
    await recordOutcome(trx, claim, `gift:${code}`);
  });
}

/**
 * The one way to find a gift for someone: by its code, in the viewer's book
 * (rules §14: a gift of the other book is not there). Throws gift_not_found.
 */
async function findGift(db: Deps['db'] | Trx, viewer: { book: Book }, code: string) {
  const gift = await findGiftByCode(db, viewer.book, code);
  if (gift === undefined) throw notFound('gift_not_found', `no gift ${code}`);
  return gift;
}

/** How many waiting gifts a dashboard lists. */
const WAITING_SHOWN = 20;

/**
 * The open gifts sent to the e-mail of the person signed in (rules §7, Gifts): a recipient who
 * opens a fund with that address finds them, with their links, on the dashboard.
 */
export async function giftsWaitingFor(deps: Deps, caller: Caller) {
  const rows = await giftsWaitingAt(deps.db, caller.book, caller.actor_id, caller.fund_id, WAITING_SHOWN);
  return rows.map((g) => ({
    code: g.code,
    name: g.name,
    amount: centsToDollars(g.amount_cents),
    message: g.message,
    giver_name: g.giver_name,
    url: `${deps.config.publicUrl}/gifts/${g.code}`,
    created_at: g.created_at,
  }));
}

/** One of the caller's gifts by code. Throws gift_not_found (also for others' gifts). */
export async function getGift(deps: Deps, caller: Caller, code: string) {
  authorize(caller, 'read');
  const gift = await findGift(deps.db, caller, code);
  if (gift.user_id !== caller.user_id) throw notFound('gift_not_found', `no gift ${code}`);
  return { ...giftForm(deps, gift), ...ownerPartnerFields(gift) };
}

/** The caller's gift with this external id (rules §21), as a page of one, or of none. */
export async function giftsByExternalId(deps: Deps, caller: Caller, externalId: string) {
  authorize(caller, 'read');
  const code = await giftByExternalId(deps.db, caller.user_id, externalId);
  const items = code === undefined ? [] : [await getGift(deps, caller, code)];
  return toPage(items, items.length, { page: 1, per_page: 1 });
}

export async function listGifts(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count } = await pageOfGifts(deps.db, caller.user_id, page);
  return toPage(
    rows.map((g) => ({ ...giftForm(deps, g), ...ownerPartnerFields(g) })),
    count,
    page,
  );
}

/**
 * Someone opens a gift's page. The first view by anyone but the giver
 * (a signed-in user or an anonymous visitor, `viewerId` null) sets `seen`.
 * Throws gift_not_found.
 */
export async function viewGift(deps: Deps, viewer: Viewer, code: string) {
  const gift = await findGift(deps.db, viewer, code);
  await markSeen(deps, viewer.user_id, gift);
  return giftForm(deps, gift);
}

/** The first view by anyone but its giver sets `seen`, once, with its event. */
async function markSeen(deps: Deps, viewerId: number | null, gift: { id: number; user_id: number; seen: number }): Promise<void> {
  if (gift.seen !== 0 || viewerId === gift.user_id) return;
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    if (await markGiftSeen(trx, gift.id)) {
      await recordEvent(trx, { user_id: gift.user_id, type: 'gift.updated', object_type: 'gift', object_id: gift.id, data: { seen: true }, at });
    }
  });
  gift.seen = 1;
}

/** The gift's page: the gift as viewGift shows it (setting `seen`), with who gave it, in one read. Throws gift_not_found. */
export async function openGiftPage(deps: Deps, viewer: Viewer, code: string) {
  const row = await findGiftWithGiver(deps.db, viewer.book, code);
  if (row === undefined) throw notFound('gift_not_found', `no gift ${code}`);
  const { giver_name, ...gift } = row;
  await markSeen(deps, viewer.user_id, gift);
  return { ...giftForm(deps, gift), giver_id: gift.user_id, giver_name };
}

type RecipientAction = 'accept' | 'claim' | 'deny';

/** Who acts on a gift as its recipient: a caller, or the sandbox's simulated recipient (no user, test book). */
export type Recipient = Caller | { user_id: null; book: 'test' };

export const SIMULATED_RECIPIENT: Recipient = Object.freeze({ user_id: null, book: 'test' });

/**
 * Locks the gift's (and, for accept, the recipient's) fund accounts in id
 * order, then reads the gift under the lock and checks the rules common to
 * every recipient action. Throws gift_not_found, forbidden, invalid_transition.
 */
async function lockGiftFor(trx: Trx, recipient: Recipient, code: string, action: RecipientAction) {
  const unlocked = await findGift(trx, recipient, code);
  if (unlocked.user_id === recipient.user_id) throw new AppError('forbidden', 'forbidden', `the giver cannot ${action} their own gift`);
  const caller = recipient.user_id === null ? null : recipient;
  const locked = await lockFundsAccounts(trx, action === 'accept' && caller !== null ? [unlocked.fund_id, caller.fund_id] : [unlocked.fund_id]);
  const gift = await lockGift(trx, unlocked.id);
  if (gift.status !== 'new') throw conflict('invalid_transition', `a gift that is ${gift.status} cannot be ${action === 'deny' ? 'denied' : `${action}ed`}`);
  const giverAccounts = locked.get(gift.fund_id);
  assert(giverAccounts !== undefined, "the giver's fund is locked");
  return { gift, giverAccounts, recipientAccounts: caller === null ? undefined : locked.get(caller.fund_id) };
}

async function finishGift(
  trx: Trx,
  { id: giftId, user_id: giverId, code }: { id: number; user_id: number; code: string },
  fields: GiftEnd,
  at: string,
  claim: IdempotencyClaim | undefined,
): Promise<void> {
  assert(await endGift(trx, giftId, fields, at), 'the locked gift is still new');
  await recordEvent(trx, { user_id: giverId, type: 'gift.updated', object_type: 'gift', object_id: giftId, data: { status: fields.status }, at });
  await recordOutcome(trx, claim, `gift_action:${code}`);
}

/** The recipient takes the gift into their own fund. Throws gift_not_found, forbidden, invalid_transition. */
export async function acceptGift(deps: Deps, caller: Caller, code: string, claim?: IdempotencyClaim) {
  authorize(caller, 'answer_gift');
  await deps.db.transaction().execute(async (trx) => {
    const { gift, giverAccounts, recipientAccounts } = await lockGiftFor(trx, caller, code, 'accept');
    assert(recipientAccounts !== undefined, "the recipient's fund is locked");
    assertFundCanHold(recipientAccounts, gift.amount_cents);
    const at = deps.clock.now().toISOString();
    await postEntry(
      trx,
      { book: gift.book, memo: 'gift accepted', gift_id: gift.id },
      [{ from_account_id: giverAccounts.ids.reserved, to_account_id: recipientAccounts.ids.available, amount_cents: gift.amount_cents }],
      at,
    );
    await finishGift(trx, gift, { status: 'accepted', claimed: 1, recipient_user_id: caller.user_id }, at, claim);
    await promoteWaiting(trx, caller.fund_id, at);
  });
  return giftFormByCode(deps, caller, code);
}

/**
 * The recipient directs the gift to a non-profit: a donation is created from
 * the held money (the gift's hold becomes the donation's).
 * Throws gift_not_found, forbidden, invalid_transition, non_profit_not_found, non_profit_ineligible.
 */
export async function claimGift(deps: Deps, recipient: Recipient, code: string, einText: string, claim?: IdempotencyClaim) {
  // The sandbox's simulated recipient (no person) answers on its controls' authority.
  if (recipient.user_id !== null) authorize(recipient, 'answer_gift');
  const ein = requireEin(einText);
  // A claim on an app's token directs the gift's money to a charity: it counts against the app's
  // monthly limit like a donation (ADR 16). A gift's amount never changes, so it is known before the lock.
  const app = recipient.user_id === null ? undefined : recipient.app;
  const amount = app === undefined ? 0 : (await findGift(deps.db, recipient, code)).amount_cents;
  const claimed = await spendingAsApp(deps, { app }, amount, () => claimLocked(deps, recipient, code, ein, app?.connection_id ?? null, claim));
  deps.metrics.counters.donationCreated(claimed.book, claimed.amount_cents);
  return giftFormByCode(deps, recipient, code);
}

function claimLocked(deps: Deps, recipient: Recipient, code: string, ein: string, appConnectionId: number | null, claim: IdempotencyClaim | undefined) {
  return deps.db.transaction().execute(async (trx) => {
    const nonProfit = await findRecipient(trx, ein);
    const { gift, giverAccounts } = await lockGiftFor(trx, recipient, code, 'claim');
    const at = deps.clock.now().toISOString();
    const donationId = await insertDonation(trx, {
      book: gift.book,
      user_id: gift.user_id,
      fund_id: gift.fund_id,
      non_profit_id: nonProfit.id,
      amount_cents: gift.amount_cents,
      status: 'scheduled',
      note: `Gift to ${gift.name}`,
      private_memo: null,
      visibility: 'public',
      scheduled_donation_id: null,
      created_at: at,
      app_connection_id: appConnectionId,
    });
    await postEntry(
      trx,
      { book: gift.book, memo: 'gift claimed: hold released', gift_id: gift.id },
      [{ from_account_id: giverAccounts.ids.reserved, to_account_id: giverAccounts.ids.available, amount_cents: gift.amount_cents }],
      at,
    );
    await postEntry(
      trx,
      { book: gift.book, memo: 'donation scheduled from a gift: hold', donation_id: donationId },
      [{ from_account_id: giverAccounts.ids.available, to_account_id: giverAccounts.ids.reserved, amount_cents: gift.amount_cents }],
      at,
    );
    await recordEvent(trx, {
      user_id: gift.user_id,
      type: 'donation.created',
      object_type: 'donation',
      object_id: donationId,
      data: { status: 'scheduled', gift_id: gift.id },
      at,
    });
    await finishGift(trx, gift, { status: 'claimed', claimed: 1, recipient_user_id: recipient.user_id, ein, donation_id: donationId }, at, claim);
    return gift;
  });
}

/** The recipient refuses the gift: the hold goes back to the giver. Throws gift_not_found, forbidden, invalid_transition. */
export async function denyGift(deps: Deps, recipient: Recipient, code: string, claim?: IdempotencyClaim) {
  if (recipient.user_id !== null) authorize(recipient, 'answer_gift');
  await deps.db.transaction().execute(async (trx) => {
    const { gift, giverAccounts } = await lockGiftFor(trx, recipient, code, 'deny');
    const at = deps.clock.now().toISOString();
    await postEntry(
      trx,
      { book: gift.book, memo: 'gift denied: hold released', gift_id: gift.id },
      [{ from_account_id: giverAccounts.ids.reserved, to_account_id: giverAccounts.ids.available, amount_cents: gift.amount_cents }],
      at,
    );
    await finishGift(trx, gift, { status: 'denied', claimed: 0, recipient_user_id: recipient.user_id }, at, claim);
    await promoteWaiting(trx, gift.fund_id, at);
  });
  return giftFormByCode(deps, recipient, code);
}

/** A gift in the form its recipient's actions answer with. Throws gift_not_found. */
export async function giftFormByCode(deps: Deps, viewer: { book: Book }, code: string) {
  return giftForm(deps, await findGift(deps.db, viewer, code));
}

/** A gift by id for a notification: its giver's form, the recipient's e-mail if given, and the giver's name. Throws gift_not_found. */
export async function giftForNotice(deps: Deps, book: Book, id: number) {
  const gift = await findGiftByIdWithGiver(deps.db, book, id);
  if (gift === undefined) throw notFound('gift_not_found', `no gift ${id}`);
  return { form: { ...giftForm(deps, gift), ...ownerPartnerFields(gift) }, email: gift.email, giver_name: gift.giver_name };
}
