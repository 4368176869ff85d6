// Use cases of fundraisers (docs/rules.md §22): a person's page for one organisation, with a goal,
// days, and what it has raised. Each owns its transaction; none moves money (a donation to a
// fundraiser is a donation, made by the donations module, which names it).
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import type { Viewer } from '../../shared/book.ts';
import { AppError, conflict, notFound } from '../../shared/errors.ts';
import { authorize } from '../../shared/policy.ts';
import { centsToDollars } from '../../shared/money.ts';
import { changedMetadata, ownerPartnerFields, partnerColumns, withExternalId, type ExternalIds } from '../../shared/partner.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { recordEvent } from '../events/index.ts';
import { recordAudit } from '../audit/index.ts';
import { findRecipients, nonProfitCards, requireEin, type NonProfitCard } from '../nonprofits/index.ts';
import { assert } from '../../shared/assert.ts';
import { visibleUser } from '../users/index.ts';
import { fundraiserSupporters, fundraiserTotals } from '../donations/index.ts';
import { checkedDates, progress, RAISED_STATUSES, statusOn } from './fundraisers.ts';
import * as store from './fundraisers.store.ts';
import { matchesOfFundraiser, matchesOfFundraisers, type Match } from './matches.store.ts';
import { endMatches } from './matches.service.ts';

export interface NewFundraiser {
  ein: string;
  title: string;
  story?: string;
  goal_cents: number;
  offline_cents?: number;
  starts_on?: string;
  ends_on?: string;
  external_id?: string;
  metadata?: unknown;
}

/** How many of the newest supporters a fundraiser's form names. */
export const SUPPORTERS_SHOWN = 10;

function today(deps: Deps): string {
  return dayOf(deps.clock.now());
}

function fundraiserIds(deps: Deps, userId: number): ExternalIds {
  return { kind: 'fundraiser', holder: (externalId) => store.fundraiserByExternalId(deps.db, userId, externalId), isTaken: isUniqueViolation };
}

/**
 * Opens a fundraiser of the caller's for an organisation that may receive donations (the donations'
 * rule: findRecipients). Throws validation_failed (dates), non_profit_not_found, non_profit_ineligible,
 * external_id_exists, forbidden.
 */
export async function createFundraiser(deps: Deps, caller: Caller, input: NewFundraiser) {
  authorize(caller, 'fundraise');
  const ein = requireEin(input.ein);
  const days = checkedDates(input.starts_on, input.ends_on, today(deps));
  const partner = partnerColumns(input);
  const at = deps.clock.now().toISOString();
  const id = await withExternalId(fundraiserIds(deps, caller.user_id), partner.external_id, () =>
    deps.db.transaction().execute(async (trx) => {
      const recipient = (await findRecipients(trx, [ein])).get(ein);
      if (recipient === undefined || recipient instanceof AppError) throw recipient ?? notFound('non_profit_not_found', `no non-profit ${ein}`);
      const made = await store.insertFundraiser(trx, {
        book: caller.book,
        user_id: caller.user_id,
        non_profit_id: recipient.id,
        title: input.title.trim(),
        story: input.story ?? '',
        goal_cents: input.goal_cents,
        offline_cents: input.offline_cents ?? 0,
        ...days,
        ended_at: null,
        created_at: at,
        updated_at: at,
        ...partner,
      });
      await recordEvent(trx, {
        user_id: caller.user_id,
        type: 'fundraiser.created',
        object_type: 'fundraiser',
        object_id: made,
        data: { status: statusOn({ ...days, ended_at: null }, today(deps)) },
        at,
      });
      await recordAudit(trx, {
        book: caller.book,
        actor: `user:${caller.actor_id}`,
        action: 'fundraiser.create',
        object_type: 'fundraiser',
        object_id: made,
        before: null,
        after: { ein, goal_cents: input.goal_cents, ...days },
        at,
      });
      return made;
    }),
  );
  return getFundraiser(deps, caller, id);
}

/** A fundraiser of the caller's book as anyone there sees it, with its owner's partner fields for its owner. Throws fundraiser_not_found. */
export async function getFundraiser(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'read');
  const f = await store.findFundraiser(deps.db, caller.book, id);
  if (f === undefined) throw notFound('fundraiser_not_found', `no fundraiser ${id}`);
  const [form] = await formsOf(deps, caller, [f], true);
  return form as FundraiserForm;
}

/** A fundraiser of `viewer`'s book as its public page shows it (anyone may look, signed in or not). Throws fundraiser_not_found. */
export async function fundraiserForViewer(deps: Deps, viewer: Viewer, id: number) {
  const f = await store.findFundraiser(deps.db, viewer.book, id);
  if (f === undefined) throw notFound('fundraiser_not_found', `no fundraiser ${id}`);
  const [form] = await formsOf(deps, viewer, [f], true);
  return form as FundraiserForm;
}

type FundraiserForm = Awaited<ReturnType<typeof formsOf>>[number];

/** The forms of fundraisers: progress from their donations; the organiser when their profile is visible; supporters when asked. */
async function formsOf(deps: Deps, caller: Viewer, rows: readonly store.Fundraiser[], withSupporters: boolean) {
  const totals = await fundraiserTotals(
    deps.db,
    rows.map((f) => f.id),
    RAISED_STATUSES,
  );
  const cards = await nonProfitCards(
    deps,
    rows.map((f) => f.non_profit_id),
  );
  const day = today(deps);
  // A page's matches in one statement; each organiser looked up once (a list of one's own is all theirs).
  const matches = await matchesOfFundraisers(
    deps.db,
    rows.map((f) => f.id),
  );
  const organizers = new Map<number, Promise<{ name: string; slug: string } | null>>();
  const organizerOf = (userId: number) => {
    let found = organizers.get(userId);
    if (found === undefined) {
      found = visibleUser(deps, caller, userId).then(
        (u) => ({ name: u.name, slug: u.slug }),
        () => null,
      );
      organizers.set(userId, found);
    }
    return found;
  };
  return Promise.all(
    rows.map(async (f) => {
      const given = totals.get(f.id) ?? { cents: 0, donations: 0 };
      const { raised_cents, percent } = progress(given.cents, f.offline_cents, f.goal_cents);
      const matching = matchingOf(matches.get(f.id) ?? []);
      const organizer = await organizerOf(f.user_id);
      return {
        id: f.id,
        title: f.title,
        story: f.story,
        status: statusOn(f, day),
        goal: centsToDollars(f.goal_cents),
        raised: centsToDollars(raised_cents),
        offline_amount: centsToDollars(f.offline_cents),
        percent,
        donations: given.donations,
        starts_on: f.starts_on,
        ends_on: f.ends_on,
        ended_at: f.ended_at,
        created_at: f.created_at,
        // The web is the live book's: a sandbox fundraiser has no page.
        url: f.book === 'live' ? `${deps.config.publicUrl}/fundraisers/${f.id}` : null,
        non_profit: cardOf(cards, f.non_profit_id),
        organizer,
        matching,
        supporters: withSupporters ? await fundraiserSupporters(deps, f.id, RAISED_STATUSES, SUPPORTERS_SHOWN) : undefined,
        ...(f.user_id === caller.user_id ? ownerPartnerFields(f) : {}),
      };
    }),
  );
}

function cardOf(cards: ReadonlyMap<number, NonProfitCard>, id: number): NonProfitCard {
  const card = cards.get(id);
  assert(card !== undefined, "nonProfitCards read every fundraiser's organisation");
  return card;
}

/** What a fundraiser's matches gave, and what they hold for donations still to come. */
function matchingOf(matches: readonly Match[]) {
  const live = matches.filter((m) => m.ended_at === null);
  return {
    matched: centsToDollars(matches.reduce((sum, m) => sum + m.matched_cents, 0)),
    remaining: centsToDollars(live.reduce((sum, m) => sum + m.cap_cents - m.matched_cents, 0)),
    matchers: live.length,
  };
}

/** A page of the caller's own fundraisers, newest first. */
export async function listFundraisers(deps: Deps, caller: Caller, page: PageRequest) {
  authorize(caller, 'read');
  const { rows, count } = await store.ownFundraisers(deps.db, caller.user_id, page);
  return toPage(await formsOf(deps, caller, rows, false), count, page);
}

/** The caller's fundraiser with this external id, as a page of at most one. */
export async function fundraisersByExternalId(deps: Deps, caller: Caller, externalId: string) {
  authorize(caller, 'read');
  const id = await store.fundraiserByExternalId(deps.db, caller.user_id, externalId);
  const f = id === undefined ? undefined : await store.findFundraiser(deps.db, caller.book, id);
  const rows = f === undefined ? [] : [f];
  return toPage(await formsOf(deps, caller, rows, false), rows.length, { page: 1, per_page: 1 });
}

/** The caller's own fundraiser, locked for a change, or fundraiser_not_found (others' too). */
async function ownFundraiser(caller: Caller, id: number, trx: Parameters<typeof store.endFundraiser>[0]) {
  const f = await store.findFundraiser(trx, caller.book, id);
  if (f === undefined || f.user_id !== caller.user_id) throw notFound('fundraiser_not_found', `no fundraiser ${id}`);
  return f;
}

/** Ends the caller's fundraiser now: it takes no more donations. Throws fundraiser_not_found, fundraiser_ended. */
export async function endFundraiserOf(deps: Deps, caller: Caller, id: number) {
  authorize(caller, 'fundraise');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const f = await ownFundraiser(caller, id, trx);
    // Past its last day it takes no donations, but its owner still ends it: its live matches end with it.
    if (f.ended_at !== null || !(await store.endFundraiser(trx, id, at))) throw conflict('fundraiser_ended', `fundraiser ${id} has ended already`);
    await endMatches(deps, trx, await matchesOfFundraiser(trx, id), at);
    await recordEvent(trx, { user_id: caller.user_id, type: 'fundraiser.updated', object_type: 'fundraiser', object_id: id, data: { status: 'ended' }, at });
    await recordAudit(trx, {
      book: caller.book,
      actor: `user:${caller.actor_id}`,
      action: 'fundraiser.end',
      object_type: 'fundraiser',
      object_id: id,
      before: { ended_at: null },
      after: { ended_at: at },
      at,
    });
  });
  return getFundraiser(deps, caller, id);
}

/** Changes the metadata of the caller's fundraiser (a key set to "" removed). Throws fundraiser_not_found, validation_failed. */
export async function updateFundraiserMetadata(deps: Deps, caller: Caller, id: number, change: unknown) {
  authorize(caller, 'fundraise');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const f = await ownFundraiser(caller, id, trx);
    await store.setFundraiserMetadata(trx, id, changedMetadata(f.metadata, change), at);
    await recordEvent(trx, { user_id: caller.user_id, type: 'fundraiser.updated', object_type: 'fundraiser', object_id: id, data: { changed: 'metadata' }, at });
  });
  return getFundraiser(deps, caller, id);
}
