// Use cases for users, profiles and balances.
import type { Deps } from '../../deps.ts';
import { conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { recordAudit } from '../audit/index.ts';
import { bumpAuthEpoch } from '../keys/index.ts';
import { assert } from '../../shared/assert.ts';
import { causeById, causeJson, slugify } from '../nonprofits/index.ts';
import { balanceView, createFundAccounts, journalOfFund, readFundAccounts } from '../ledger/index.ts';
import type { Trx } from '../../db/database.ts';
import type { Caller } from '../../shared/caller.ts';
import { sameBook, type Book, type Viewer } from '../../shared/book.ts';
import { membersStore, startFund } from '../members/index.ts';
import * as store from './users.store.ts';
import { authorize } from '../../shared/policy.ts';

export type { User, Fund } from './users.store.ts';

export interface NewUser {
  name: string;
  /** Set for a sandbox twin: the live user it belongs to. */
  sandbox_of?: number;
  slug?: string;
  city?: string;
  avatar_url?: string | null;
  cover_image_url?: string | null;
  visible?: boolean;
  fund_name?: string;
  fund_summary?: string;
  cause_ids?: number[];
}

/** Profile pages live at /<slug>: these paths belong to the site itself. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'admin',
  'api',
  'charities',
  'dashboard',
  'docs',
  'gifts',
  'healthz',
  'metrics',
  'openapi',
  'public',
  'readyz',
  'settings',
  'signin',
  'signout',
  'signup',
  'static',
  'v1',
  'www',
  'me',
  'about',
  'help',
  'login',
  'logout',
]);
export const SLUG_MAX = 60;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why `slug` cannot be chosen, or undefined. (Taken by someone else is checked in the transaction.) */
export function slugProblem(slug: string): string | undefined {
  if (slug.length === 0 || slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) return `must be 1 to ${SLUG_MAX} lower-case letters, digits and single hyphens`;
  if (/^\d+$/.test(slug)) return 'must not be all digits';
  if (RESERVED_SLUGS.has(slug)) return 'is reserved';
  return undefined;
}

/** The slugs to try for a name, in order: lower case, never all digits (a digit segment is an id), never reserved. */
function* slugCandidates(wanted: string): Generator<string> {
  let base =
    slugify(wanted)
      .slice(0, SLUG_MAX - 4)
      .replace(/-+$/, '') || 'donor';
  if (/^\d+$/.test(base) || RESERVED_SLUGS.has(base)) base = `u-${base}`;
  yield base;
  for (let n = 2; ; n++) yield `${base}-${n}`;
}

/**
 * Creates a user with their fund and its ledger accounts, with the first free slug for their
 * name. Slugs are unique: a slug another request takes between the look and the insert is
 * skipped like a taken one (the insert does nothing on conflict), on both engines. Returns ids.
 */
export async function createUser(deps: Deps, input: NewUser, trx: Trx): Promise<{ user_id: number; fund_id: number; slug: string }> {
  const at = deps.clock.now().toISOString();
  let inserted: { id: number; book: Book; slug: string } | undefined;
  for (const slug of slugCandidates(input.slug ?? input.name)) {
    if (await store.slugTaken(trx, slug)) continue;
    const row = await store.insertUser(trx, {
      name: input.name,
      slug,
      city: input.city ?? '',
      avatar_url: input.avatar_url ?? null,
      cover_image_url: input.cover_image_url ?? null,
      visible: input.visible ?? true,
      onboarding_status: 'complete',
      created_at: at,
      ...(input.sandbox_of === undefined ? {} : { sandbox_of: input.sandbox_of }),
    });
    if (row !== undefined) {
      inserted = { ...row, slug };
      break;
    }
  }
  assert(inserted !== undefined, 'the slugs to try never end');
  const { id: userId, book, slug } = inserted;
  const fundId = await store.insertFund(trx, {
    book,
    user_id: userId,
    name: input.fund_name ?? `${input.name}'s Fund`,
    summary: input.fund_summary ?? '',
    created_at: at,
  });
  await createFundAccounts(trx, fundId, book);
  await store.setFundCauses(trx, fundId, input.cause_ids ?? []);
  await startFund(trx, { fund_id: fundId, user_id: userId, book, at });
  return { user_id: userId, fund_id: fundId, slug };
}

export function avatarUrl(deps: Deps, user: { avatar_url: string | null }): string {
  return user.avatar_url ?? `${deps.config.publicUrl}/static/avatar.svg`;
}

function coverUrl(deps: Deps, user: { cover_image_url: string | null }): string {
  return user.cover_image_url ?? `${deps.config.publicUrl}/static/cover.svg`;
}

/**
 * A user the viewer may see: themselves, or a visible profile.
 * Throws not_found (user_not_found) otherwise, never revealing that a hidden one exists.
 */
export async function visibleUser(deps: Deps, viewer: Viewer, userId: number): Promise<store.User> {
  const user = await store.findUserById(deps.db, userId);
  if (user === undefined || !mayView(viewer, user)) throw notFound('user_not_found', `no user ${userId}`);
  return user;
}

/** A profile is there for a viewer of its book: its owner, or anyone when it is visible. */
function mayView(viewer: Viewer, user: store.User): boolean {
  return sameBook(viewer, user) && (user.visible || user.id === viewer.user_id);
}

/** `ref` is "me", an all-digit id, or a slug (any case). Throws user_not_found. */
export async function getProfile(deps: Deps, caller: Caller, ref: string) {
  let user: store.User | undefined;
  if (ref === 'me') user = await store.findUserById(deps.lookups, caller.user_id);
  else if (/^\d{1,15}$/.test(ref)) user = await store.findUserById(deps.lookups, Number(ref));
  else user = await store.findUserBySlug(deps.lookups, ref);
  if (user === undefined || !mayView(caller, user)) throw notFound('user_not_found', `no user ${ref}`);
  const own = user.id === caller.user_id;
  const fund = await store.currentFund(deps.lookups, user.id);
  assert(fund !== undefined, 'every user has a current fund');
  const causes = await userCauses(deps, fund.id);
  return {
    id: user.id,
    name: user.name,
    avatar: avatarUrl(deps, user),
    cover_image: coverUrl(deps, user),
    slug: user.slug,
    fund_name: fund.name,
    ...(own ? { visible: user.visible } : {}),
    current_fund: {
      id: fund.id,
      name: fund.name,
      summary: fund.summary,
      causes,
      // Its members (rules §20): the holder, and everyone who accepted an invitation.
      users: (await membersStore.membersOfFund(deps.lookups, fund.id))
        .filter((m) => m.status === 'active' && m.user_id !== null)
        .map((m) => ({ id: m.user_id as number, name: m.name ?? '', avatar: avatarUrl(deps, m), slug: m.slug ?? '' })),
    },
    follows_user: own ? false : await store.follows(deps.lookups, caller.user_id, user.id),
    follows_viewer: own ? false : await store.follows(deps.lookups, user.id, caller.user_id),
    onboarding_status: user.onboarding_status,
  };
}

/**
 * A profile page at /<slug>: the user, if the viewer may see it and it is active,
 * with its fund's name and cause ids. Throws user_not_found otherwise.
 */
export async function profileBySlug(deps: Deps, viewer: Viewer, slug: string) {
  const user = /^[a-z0-9-]{1,60}$/.test(slug) ? await store.findUserBySlug(deps.db, slug) : undefined;
  if (user === undefined || !mayView(viewer, user) || user.status !== 'active') throw notFound('user_not_found', 'there is no profile at this address');
  const fund = await store.currentFund(deps.db, user.id);
  assert(fund !== undefined, 'every user has a current fund');
  return { user, own: user.id === viewer.user_id, fund_name: fund.name, cause_ids: await store.fundCauseIds(deps.db, fund.id) };
}

/** What a user's own profile settings show. Throws user_not_found. */
export async function ownProfile(deps: Deps, userId: number) {
  const user = await store.findUserById(deps.db, userId);
  const fund = await store.currentFund(deps.db, userId);
  if (user === undefined || fund === undefined) throw notFound('user_not_found', `no user ${userId}`);
  return {
    name: user.name,
    slug: user.slug,
    visible: user.visible,
    avatar_url: user.avatar_url ?? '',
    fund_name: fund.name,
    cause_ids: await store.fundCauseIds(deps.db, fund.id),
  };
}

async function userCauses(deps: Deps, fundId: number) {
  const ids = await store.fundCauseIds(deps.lookups, fundId);
  return ids.flatMap((id) => {
    const cause = causeById(id);
    return cause === undefined ? [] : [causeJson(deps.config.publicUrl, cause)];
  });
}

/** The causes of a visible user's fund. Throws user_not_found. */
export async function listUserCauses(deps: Deps, caller: Caller, userId: number) {
  const user = await visibleUser(deps, caller, userId);
  const fund = await store.currentFund(deps.db, user.id);
  assert(fund !== undefined, 'every user has a current fund');
  return userCauses(deps, fund.id);
}

/** The caller's own balance, read from the journal's accounts (rules §6). */
export async function getBalance(deps: Deps, caller: Caller) {
  authorize(caller, 'read');
  const accounts = await readFundAccounts(deps.lookups, caller.fund_id);
  return balanceView(accounts.balances);
}

/**
 * An operator suspends (or reactivates) a user: their keys stop working on
 * the next request, on every node (the auth epoch rises in the same transaction).
 * Throws user_not_found, invalid_transition.
 */
export async function setUserStatus(deps: Deps, userId: number, status: 'active' | 'suspended', actor: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    // A live user: suspending them stops their sandbox twin too (keys/keys.store.ts findCallerByHash).
    const user = await store.findUserById(trx, userId);
    if (user === undefined || user.book !== 'live') throw notFound('user_not_found', `no user ${userId}`);
    if (user.status === 'deleted') throw conflict('user_deleted', `user ${userId} was deleted`);
    if (user.status === status) throw conflict('invalid_transition', `user ${userId} is already ${status}`);
    const at = deps.clock.now().toISOString();
    await store.setStatus(trx, userId, status);
    await bumpAuthEpoch(trx);
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: status === 'suspended' ? 'user.suspend' : 'user.reactivate',
      object_type: 'user',
      object_id: userId,
      before: { status: user.status },
      after: { status },
      at,
    });
  });
}

export interface ProfileChange {
  name: string;
  slug: string;
  visible: boolean;
  avatar_url: string | null;
  fund_name: string;
  cause_ids: number[];
}

/**
 * The owner edits their profile and fund. Field shapes are checked at the
 * edge; the slug's rules here. Throws unprocessable (validation_failed),
 * conflict (slug_taken).
 */
export async function updateProfile(deps: Deps, userId: number, change: ProfileChange): Promise<void> {
  const problem = slugProblem(change.slug);
  if (problem !== undefined) throw fieldErrors([{ field: 'slug', code: 'validation_failed', message: problem }]);
  const unknownCause = change.cause_ids.find((id) => causeById(id) === undefined);
  if (unknownCause !== undefined) throw fieldErrors([{ field: 'cause_ids', code: 'validation_failed', message: `has no cause ${unknownCause}` }]);
  await deps.db.transaction().execute(async (trx) => {
    if (await store.slugTaken(trx, change.slug, userId)) throw conflict('slug_taken', `the address /${change.slug} belongs to someone else`);
    await store.updateUser(trx, userId, { name: change.name, slug: change.slug, visible: change.visible, avatar_url: change.avatar_url });
    const fund = await store.currentFund(trx, userId);
    assert(fund !== undefined, 'every user has a current fund');
    await store.renameFund(trx, fund.id, change.fund_name);
    await store.setFundCauses(trx, fund.id, [...new Set(change.cause_ids)]);
  });
}

/** The users of one book (operators see live users unless they ask for the sandbox twins). */
export async function listUsers(deps: Deps, book: Book, page: { page: number; per_page: number }) {
  const { rows, count } = await store.pageOfUsers(deps.db, book, page);
  return { items: rows.map((r) => ({ ...r, visible: r.visible === 1 })), count };
}

/** Creates a user with a fund as an operator does, audited. */
export async function createUserAudited(deps: Deps, input: NewUser, actor: string) {
  return deps.db.transaction().execute((trx) => createAuditedIn(deps, trx, input, actor));
}

/** createUserAudited inside the caller's transaction. */
export async function createAuditedIn(deps: Deps, trx: Trx, input: NewUser, actor: string) {
  const created = await createUser(deps, input, trx);
  await recordAudit(trx, {
    book: 'live',
    actor,
    action: 'user.create',
    object_type: 'user',
    object_id: created.user_id,
    before: null,
    after: { name: input.name, slug: created.slug },
    at: deps.clock.now().toISOString(),
  });
  return created;
}

/**
 * The fund an operator acts on for a user of `book` (operators act in the
 * live book unless they ask for the sandbox). Throws user_not_found.
 */
export async function fundOfUser(deps: Deps, book: Book, userId: number): Promise<store.Fund> {
  return (await userInBook(deps, book, userId)).fund;
}

/** A user of `book` with their current fund. Throws user_not_found (also for a user of the other book). */
async function userInBook(deps: Deps, book: Book, userId: number): Promise<{ user: store.User; fund: store.Fund }> {
  const user = await store.findUserById(deps.db, userId);
  const fund = user === undefined || user.book !== book ? undefined : await store.currentFund(deps.db, userId);
  if (user === undefined || fund === undefined) throw notFound('user_not_found', `no user ${userId}`);
  return { user, fund };
}

/** A user's statement: balances, then every journal line on their fund's accounts, oldest first. */
export async function statement(deps: Deps, book: Book, userId: number) {
  const { user, fund } = await userInBook(deps, book, userId);
  const accounts = await readFundAccounts(deps.db, fund.id);
  const lines = await journalOfFund(deps.db, fund.id);
  return { user: { id: user.id, name: user.name, slug: user.slug, status: user.status }, fund: { id: fund.id, name: fund.name }, balances: balanceView(accounts.balances), lines };
}

/** The id of the user with this slug (any case), if any. */
export async function userIdBySlug(deps: Deps, slug: string): Promise<number | undefined> {
  return (await store.findUserBySlug(deps.db, slug))?.id;
}

/** One user follows another (the demo's profiles; no API route writes follows yet). */
export function follow(deps: Deps, followerId: number, followeeId: number): Promise<void> {
  return store.insertFollow(deps.db, followerId, followeeId, deps.clock.now().toISOString());
}

/** True once the platform has any user (the demo seeds only an empty one). */
export function hasUsers(deps: Deps): Promise<boolean> {
  return store.anyUser(deps.db);
}

/** A live user and the id of their sandbox twin, if they have one. Throws user_not_found. */
export async function liveUserAndTwin(deps: Deps, userId: number): Promise<{ user: store.User; twin_id: number | undefined }> {
  const user = await store.findUserById(deps.db, userId);
  if (user === undefined || user.book !== 'live') throw notFound('user_not_found', `no user ${userId}`);
  return { user, twin_id: await store.findSandboxTwin(deps.db, userId) };
}
