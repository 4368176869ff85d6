// Use cases for users, profiles and balances.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { slugify } from '../nonprofits/nonprofits.ts';
import { causeById, causeJson } from '../nonprofits/causes.ts';
import { balanceView, createFundAccounts, readFundAccounts, type Trx } from '../ledger/index.ts';
import type { Caller } from '../keys/index.ts';
import * as store from './users.store.ts';

export type { User, Fund } from './users.store.ts';

export interface NewUser {
  name: string;
  slug?: string;
  city?: string;
  avatar_url?: string | null;
  cover_image_url?: string | null;
  visible?: boolean;
  fund_name?: string;
  fund_summary?: string;
  cause_ids?: number[];
}

/** Slugs are lower case, never all digits (a digit segment is an id), unique. */
async function freeSlug(trx: Trx, wanted: string): Promise<string> {
  let base = slugify(wanted) || 'donor';
  if (/^\d+$/.test(base)) base = `u-${base}`;
  let candidate = base;
  for (let n = 2; await store.slugTaken(trx, candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

/** Creates a user with their fund and its ledger accounts. Returns ids. */
export async function createUser(deps: Deps, input: NewUser, trx: Trx): Promise<{ user_id: number; fund_id: number; slug: string }> {
  const at = deps.clock.now().toISOString();
  const slug = await freeSlug(trx, input.slug ?? input.name);
  const userId = await store.insertUser(trx, {
    name: input.name,
    slug,
    city: input.city ?? '',
    avatar_url: input.avatar_url ?? null,
    cover_image_url: input.cover_image_url ?? null,
    visible: input.visible ?? true,
    onboarding_status: 'complete',
    created_at: at,
  });
  const fundId = await store.insertFund(trx, {
    user_id: userId,
    name: input.fund_name ?? `${input.name}'s Fund`,
    summary: input.fund_summary ?? '',
    created_at: at,
  });
  await createFundAccounts(trx, fundId);
  await store.setFundCauses(trx, fundId, input.cause_ids ?? []);
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
export async function visibleUser(deps: Deps, viewerId: number, userId: number): Promise<store.User> {
  const user = await store.findUserById(deps.db, userId);
  if (user === undefined || (!user.visible && user.id !== viewerId)) throw notFound('user_not_found', `no user ${userId}`);
  return user;
}

/** `ref` is "me", an all-digit id, or a slug (any case). Throws user_not_found. */
export async function getProfile(deps: Deps, caller: Caller, ref: string) {
  let user: store.User | undefined;
  if (ref === 'me') user = await store.findUserById(deps.db, caller.user_id);
  else if (/^\d{1,15}$/.test(ref)) user = await store.findUserById(deps.db, Number(ref));
  else user = await store.findUserBySlug(deps.db, ref);
  if (user === undefined || (!user.visible && user.id !== caller.user_id)) throw notFound('user_not_found', `no user ${ref}`);
  const own = user.id === caller.user_id;
  const fund = await store.currentFund(deps.db, user.id);
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
      users: [{ id: user.id, name: user.name, avatar: avatarUrl(deps, user), slug: user.slug }],
    },
    follows_user: own ? false : await store.follows(deps.db, caller.user_id, user.id),
    follows_viewer: own ? false : await store.follows(deps.db, user.id, caller.user_id),
    onboarding_status: user.onboarding_status,
  };
}

async function userCauses(deps: Deps, fundId: number) {
  const ids = await store.fundCauseIds(deps.db, fundId);
  return ids.flatMap((id) => {
    const cause = causeById(id);
    return cause === undefined ? [] : [causeJson(deps.config.publicUrl, cause)];
  });
}

/** The causes of a visible user's fund. Throws user_not_found. */
export async function listUserCauses(deps: Deps, caller: Caller, userId: number) {
  const user = await visibleUser(deps, caller.user_id, userId);
  const fund = await store.currentFund(deps.db, user.id);
  assert(fund !== undefined, 'every user has a current fund');
  return userCauses(deps, fund.id);
}

/** The caller's own balance, read from the journal's accounts (DECISIONS 6). */
export async function getBalance(deps: Deps, caller: Caller) {
  const accounts = await readFundAccounts(deps.db, caller.fund_id);
  return balanceView(accounts.balances);
}
