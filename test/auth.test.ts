// The authorization matrix: every endpoint with no key, a malformed key, an
// unknown key, a revoked key, a suspended user's live and sandbox keys,
// another user's key, and the keys of the other book (rules §14) both ways;
// and the same with apps' tokens (ADR 16): another user's app, the sandbox apps
// of the owner and of someone else, a suspended user's app, a read-only token,
// a disconnected app's token and an unknown one.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../src/app.ts';
import {
  engines,
  openEnv,
  makeUser,
  accountOf,
  fund,
  fundSandbox,
  makeNonProfit,
  call,
  fingerprint,
  assertLedgerBalanced,
  confirmAddressOf,
  type TestEnv,
  type TestUser,
} from './harness.ts';
import { createKeyForOwner, setUserStatus } from '../src/modules/users/index.ts';
import { connectedApps, disconnectApp } from '../src/modules/apps/index.ts';
import { connectApp, type AppTokens } from './app-tokens.ts';
import { acceptInvitation } from '../src/modules/members/api.ts';
import { WebClient } from './web-client.ts';
import { POLICY, roleAllows, routeAction, type Action } from '../src/shared/policy.ts';
import { redactLine } from '../src/log.ts';

type Expect = [number, string | null];

/** One user's objects in one book, made fresh for each endpoint's test. */
interface Objects {
  user_id: number;
  slug: string;
  donation_id: number;
  private_donation_id: number;
  gift_code: string;
  key_id: number;
  schedule_id: number;
  contribution_id: number;
  webhook_endpoint_id: number;
  /** One of the owner's events (its donation's). */
  event_id: number;
  /** The fund acted on, and a waiting invitation into it (rules §20). */
  fund_id: number;
  member_id: number;
  /** A fundraiser of the owner's (rules §22): anyone of its book reads it, only its owner changes it. */
  fundraiser_id: number;
  /** A match of the owner's, on their fundraiser: only its matcher reads or ends it. */
  match_id: number;
}

/** Objects with no ids: a row's route as a pattern, in its test's name. */
const BLANK: Objects = {
  user_id: 0,
  slug: ':slug',
  donation_id: 0,
  private_donation_id: 0,
  gift_code: ':code',
  key_id: 0,
  schedule_id: 0,
  contribution_id: 0,
  webhook_endpoint_id: 0,
  event_id: 0,
  fund_id: 0,
  member_id: 0,
  fundraiser_id: 0,
  match_id: 0,
};

interface Endpoint {
  method: string;
  url: (o: Objects) => string;
  body?: unknown;
  /** Another live user's key on the owner's live objects. */
  other: Expect;
  /** A sandbox key (the owner's or another's) on the owner's live objects: the other book's are not there (rules §14). */
  testOnLive: Expect;
  /** A live key (the owner's or another's) on the owner's sandbox objects. */
  liveOnTest: Expect;
  /** It moves money out of the caller's fund: the owner's app past its monthly limit is refused (ADR 16). */
  moves?: true;
  /** What a family member of the owner's fund gets on the owner's objects, where it is not the role rule's (rules §20). */
  family?: Expect;
  /** The same for an advisor. */
  advisor?: Expect;
}

const ok = (status: number): Expect => [status, null];
const missing = (code: string): Expect => [404, code];
const forbidden: Expect = [403, 'forbidden'];
const sameEverywhere = (e: Expect) => ({ other: e, testOnLive: e, liveOnTest: e });
const EIN = '261544963';

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', url: () => '/v1/donations', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: (o) => `/v1/donations/${o.donation_id}`, ...sameEverywhere(missing('donation_not_found')) },
  { method: 'PATCH', url: (o) => `/v1/donations/${o.donation_id}`, body: { metadata: { ref: 'matrix' } }, ...sameEverywhere(missing('donation_not_found')) },
  { method: 'POST', url: () => '/v1/donations', body: { amount: 10, ein: EIN }, ...sameEverywhere(ok(201)), moves: true },
  // A family member withdraws only their own requests.
  { method: 'DELETE', url: (o) => `/v1/donations/${o.donation_id}`, ...sameEverywhere(missing('donation_not_found')), family: [403, 'role_forbidden'] },
  { method: 'GET', url: (o) => `/v1/users/${o.user_id}/donations`, other: ok(200), testOnLive: missing('user_not_found'), liveOnTest: missing('user_not_found') },
  { method: 'GET', url: (o) => `/v1/users/${o.user_id}/donations/${o.donation_id}`, other: ok(200), testOnLive: missing('user_not_found'), liveOnTest: missing('user_not_found') },
  {
    method: 'GET',
    url: (o) => `/v1/users/${o.user_id}/donations/${o.private_donation_id}`,
    other: missing('donation_not_found'),
    testOnLive: missing('user_not_found'),
    liveOnTest: missing('user_not_found'),
  },
  {
    method: 'POST',
    url: (o) => `/v1/users/${o.user_id}/donations`,
    body: { amount: 10, ein: EIN },
    other: forbidden,
    testOnLive: missing('user_not_found'),
    liveOnTest: missing('user_not_found'),
    moves: true,
  },
  // The ledger's proofs (rules §26): a donation's only to its owner; the log's key and checkpoints to anyone, of their book.
  { method: 'GET', url: (o) => `/v1/donations/${o.donation_id}/proof`, ...sameEverywhere(missing('donation_not_found')) },
  { method: 'GET', url: () => '/v1/ledger/key', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/ledger/checkpoints', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/ledger/checkpoints/latest', ...sameEverywhere(missing('checkpoint_not_found')) },
  { method: 'GET', url: () => '/v1/ledger/checkpoints/1', ...sameEverywhere(missing('checkpoint_not_found')) },
  { method: 'GET', url: () => '/v1/ledger/consistency?first=0&second=1', ...sameEverywhere(missing('checkpoint_not_found')) },
  { method: 'GET', url: () => '/v1/gifts', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: (o) => `/v1/gifts/${o.gift_code}`, ...sameEverywhere(missing('gift_not_found')) },
  { method: 'PATCH', url: (o) => `/v1/gifts/${o.gift_code}`, body: { metadata: { ref: 'matrix' } }, ...sameEverywhere(missing('gift_not_found')) },
  { method: 'POST', url: () => '/v1/gifts', body: { name: 'X', amount: 18 }, ...sameEverywhere(ok(201)), moves: true },
  { method: 'POST', url: (o) => `/v1/gifts/${o.gift_code}/accept`, other: ok(200), testOnLive: missing('gift_not_found'), liveOnTest: missing('gift_not_found') },
  {
    method: 'POST',
    url: (o) => `/v1/gifts/${o.gift_code}/claim`,
    body: { ein: EIN },
    other: ok(200),
    testOnLive: missing('gift_not_found'),
    liveOnTest: missing('gift_not_found'),
    moves: true,
  },
  { method: 'POST', url: (o) => `/v1/gifts/${o.gift_code}/deny`, other: ok(200), testOnLive: missing('gift_not_found'), liveOnTest: missing('gift_not_found') },
  { method: 'GET', url: () => `/v1/non_profits/${EIN}`, ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/non_profits?query=food', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/users/me', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/portfolios', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/users/me/allocation', ...sameEverywhere(ok(200)) },
  { method: 'PUT', url: () => '/v1/users/me/allocation', body: { portfolio_id: null, invest_share: 10 }, ...sameEverywhere(ok(200)) },
  { method: 'DELETE', url: () => '/v1/users/me/allocation/exchange', ...sameEverywhere(missing('exchange_not_found')) },
  { method: 'POST', url: () => '/v1/users/me/allocation/investments', body: { amount: 5 }, ...sameEverywhere([409, 'portfolio_not_chosen']) },
  { method: 'GET', url: (o) => `/v1/users/${o.slug}`, other: ok(200), testOnLive: missing('user_not_found'), liveOnTest: missing('user_not_found') },
  { method: 'GET', url: (o) => `/v1/users/${o.user_id}/causes`, other: ok(200), testOnLive: missing('user_not_found'), liveOnTest: missing('user_not_found') },
  { method: 'GET', url: () => '/v1/users/me/balance', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/contributions', ...sameEverywhere(ok(200)) },
  { method: 'POST', url: () => '/v1/contributions', body: { type: 'wire_payment', amount: 100 }, ...sameEverywhere(ok(201)) },
  { method: 'GET', url: (o) => `/v1/contributions/${o.contribution_id}`, ...sameEverywhere(missing('contribution_not_found')) },
  { method: 'DELETE', url: (o) => `/v1/contributions/${o.contribution_id}`, ...sameEverywhere(missing('contribution_not_found')) },
  { method: 'PATCH', url: (o) => `/v1/contributions/${o.contribution_id}`, body: { metadata: { ref: 'matrix' } }, ...sameEverywhere(missing('contribution_not_found')) },
  { method: 'GET', url: (o) => `/v1/contributions/${o.contribution_id}/receipt`, ...sameEverywhere(missing('contribution_not_found')) },
  { method: 'GET', url: () => '/v1/tax_statements/2026', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/tax_statements?from=2026-01-01&to=2026-06-30', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/webhook_endpoints', ...sameEverywhere(ok(200)) },
  { method: 'POST', url: () => '/v1/webhook_endpoints', body: { url: 'https://hooks.example.org/almoner' }, ...sameEverywhere(ok(201)) },
  { method: 'GET', url: (o) => `/v1/webhook_endpoints/${o.webhook_endpoint_id}`, ...sameEverywhere(missing('webhook_endpoint_not_found')) },
  { method: 'PATCH', url: (o) => `/v1/webhook_endpoints/${o.webhook_endpoint_id}`, body: { description: 'x' }, ...sameEverywhere(missing('webhook_endpoint_not_found')) },
  { method: 'DELETE', url: (o) => `/v1/webhook_endpoints/${o.webhook_endpoint_id}`, ...sameEverywhere(missing('webhook_endpoint_not_found')) },
  { method: 'POST', url: (o) => `/v1/webhook_endpoints/${o.webhook_endpoint_id}/rotate_secret`, ...sameEverywhere(missing('webhook_endpoint_not_found')) },
  { method: 'POST', url: (o) => `/v1/webhook_endpoints/${o.webhook_endpoint_id}/test`, ...sameEverywhere(missing('webhook_endpoint_not_found')) },
  { method: 'GET', url: (o) => `/v1/webhook_endpoints/${o.webhook_endpoint_id}/attempts`, ...sameEverywhere(missing('webhook_endpoint_not_found')) },
  { method: 'GET', url: () => '/v1/api_keys', ...sameEverywhere(ok(200)) },
  { method: 'POST', url: () => '/v1/api_keys', body: { name: 'x' }, ...sameEverywhere(ok(201)) },
  { method: 'DELETE', url: (o) => `/v1/api_keys/${o.key_id}`, ...sameEverywhere(missing('api_key_not_found')) },
  { method: 'GET', url: () => '/v1/scheduled_donations', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: (o) => `/v1/scheduled_donations/${o.schedule_id}`, ...sameEverywhere(missing('scheduled_donation_not_found')) },
  { method: 'DELETE', url: (o) => `/v1/scheduled_donations/${o.schedule_id}`, ...sameEverywhere(missing('scheduled_donation_not_found')) },
  { method: 'PATCH', url: (o) => `/v1/scheduled_donations/${o.schedule_id}`, body: { metadata: { ref: 'matrix' } }, ...sameEverywhere(missing('scheduled_donation_not_found')) },
  { method: 'POST', url: () => '/v1/scheduled_donations', body: { amount: 10, ein: EIN, frequency: 'Monthly' }, ...sameEverywhere(ok(201)) },
  { method: 'GET', url: () => '/v1/events', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: (o) => `/v1/events/${o.event_id}/delivery`, ...sameEverywhere(missing('event_not_found')) },
  { method: 'POST', url: () => '/v1/sandbox/deposits', body: { amount: 100 }, other: forbidden, testOnLive: ok(201), liveOnTest: forbidden },
  { method: 'POST', url: (o) => `/v1/sandbox/advance#donation:${o.donation_id}`, other: forbidden, testOnLive: missing('donation_not_found'), liveOnTest: forbidden },
  { method: 'POST', url: (o) => `/v1/sandbox/advance#gift:${o.gift_code}`, other: forbidden, testOnLive: missing('gift_not_found'), liveOnTest: forbidden },
  // Shared funds (rules §20): each caller acts on the fund they chose, so another's members and requests are not there.
  { method: 'GET', url: () => '/v1/fund/members', ...sameEverywhere(ok(200)) },
  { method: 'POST', url: () => '/v1/fund/members', body: { email: 'invited@example.org', role: 'family' }, ...sameEverywhere(ok(201)) },
  { method: 'PATCH', url: (o) => `/v1/fund/members/${o.member_id}`, body: { role: 'advisor' }, ...sameEverywhere(missing('member_not_found')) },
  // Anyone leaves; only an organizer removes someone else.
  {
    method: 'DELETE',
    url: (o) => `/v1/fund/members/${o.member_id}`,
    ...sameEverywhere(missing('member_not_found')),
    family: [403, 'role_forbidden'],
    advisor: [403, 'role_forbidden'],
  },
  { method: 'GET', url: () => '/v1/users/me/funds', ...sameEverywhere(ok(200)) },
  { method: 'PATCH', url: (o) => `/v1/users/me#fund:${o.fund_id}`, ...sameEverywhere(missing('fund_not_found')), family: ok(200) },
  { method: 'POST', url: (o) => `/v1/donations/${o.donation_id}/approve`, ...sameEverywhere(missing('donation_not_found')) },
  { method: 'POST', url: (o) => `/v1/donations/${o.donation_id}/decline`, body: { reason: 'no' }, ...sameEverywhere(missing('donation_not_found')) },
  { method: 'GET', url: () => '/v1/fund/successor_plan', ...sameEverywhere(ok(200)) },
  { method: 'PUT', url: () => '/v1/fund/successor_plan', body: { successors: [] }, ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/fundraisers', ...sameEverywhere(ok(200)) },
  { method: 'POST', url: () => '/v1/fundraisers', body: { ein: EIN, title: 'Matrix run', goal: 100 }, ...sameEverywhere(ok(201)) },
  // Anyone of its book reads a fundraiser; the other book's are not there.
  { method: 'GET', url: (o) => `/v1/fundraisers/${o.fundraiser_id}`, other: ok(200), testOnLive: missing('fundraiser_not_found'), liveOnTest: missing('fundraiser_not_found') },
  { method: 'PATCH', url: (o) => `/v1/fundraisers/${o.fundraiser_id}`, body: { metadata: { ref: 'matrix' } }, ...sameEverywhere(missing('fundraiser_not_found')) },
  { method: 'POST', url: (o) => `/v1/fundraisers/${o.fundraiser_id}/end`, ...sameEverywhere(missing('fundraiser_not_found')) },
  // Anyone of its book may match a fundraiser (its cap held from their own fund).
  {
    method: 'POST',
    url: (o) => `/v1/fundraisers/${o.fundraiser_id}/matches`,
    body: { ratio: 1, cap: 1 },
    other: ok(201),
    testOnLive: missing('fundraiser_not_found'),
    liveOnTest: missing('fundraiser_not_found'),
    moves: true,
  },
  { method: 'GET', url: () => '/v1/matches', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: (o) => `/v1/matches/${o.match_id}`, ...sameEverywhere(missing('match_not_found')) },
  { method: 'POST', url: (o) => `/v1/matches/${o.match_id}/end`, ...sameEverywhere(missing('match_not_found')) },
  // A checkout (rules §24): who is giving and their funds, anyone's own; a grant names the fund it comes from.
  { method: 'GET', url: () => '/v1/dafpay/donor', ...sameEverywhere(ok(200)) },
  { method: 'GET', url: () => '/v1/dafpay/funds', ...sameEverywhere(ok(200)) },
  { method: 'POST', url: (o) => `/v1/dafpay/grants#grant:${o.fund_id}`, ...sameEverywhere(missing('fund_not_found')), moves: true },
  { method: 'GET', url: (o) => `/v1/dafpay/grants/${o.donation_id}`, ...sameEverywhere(missing('grant_not_found')) },
];

/**
 * The least role of a shared fund each route needs (rules §20), written here as the rule rather
 * than read from the code: reads are everyone's; asking to give, withdrawing one's request, leaving,
 * choosing one's fund, one's own keys and a gift's answer are a family member's too; giving, gifts,
 * money in, investing, webhooks and the sandbox's controls need an advisor; the rest an organizer.
 */
function neededRole(method: string, url: string): 'family' | 'advisor' | 'organizer' {
  const path = url.split(/[?#]/)[0] as string;
  if (method === 'GET') return 'family';
  // A grant at a checkout gives, as an advisor does, from the fund it names.
  if (path === '/v1/dafpay/grants') return 'advisor';
  if (/^\/v1\/(donations|users\/[^/]+\/donations)$/.test(path) && method === 'POST') return 'family';
  if (/^\/v1\/donations\/[^/]+$/.test(path) && (method === 'DELETE' || method === 'PATCH')) return 'family';
  if (/^\/v1\/gifts\/[^/]+\/(accept|claim|deny)$/.test(path)) return 'family';
  if (
    /^\/v1\/(users\/me|api_keys(\/[^/]+)?|fund\/members\/[^/]+)$/.test(path) &&
    ['PATCH', 'POST', 'DELETE'].includes(method) &&
    !(path === '/v1/users/me' && method !== 'PATCH')
  ) {
    return path.startsWith('/v1/fund/members/') && method === 'PATCH' ? 'organizer' : 'family';
  }
  if (
    /^\/v1\/(donations\/[^/]+\/(approve|decline)|fundraisers(\/[^/]+)?(\/end|\/matches)?|matches\/[^/]+\/end|gifts(\/[^/]+)?|contributions(\/[^/]+)?|scheduled_donations(\/[^/]+)?|users\/me\/allocation(\/exchange|\/investments)?|webhook_endpoints(\/.*)?|sandbox\/.*)$/.test(
      path,
    )
  )
    return 'advisor';
  return 'organizer';
}

/**
 * The scope an app's token needs for a route (ADR 16), written here as the rule rather than read
 * from the code: giving needs donate, gifts need gifts, a checkout's routes dafpay, other reads need read, and the routes of
 * an account's own keys, webhooks, contributions and sandbox are for API keys only.
 */
function neededScope(method: string, url: string): 'read' | 'donate' | 'gifts' | 'dafpay' | 'keys' {
  const path = url.split(/[?#]/)[0] as string;
  if (/^\/v1\/dafpay\//.test(path)) return 'dafpay';
  if (/^\/v1\/(api_keys|webhook_endpoints)(\/|$)/.test(path)) return 'keys';
  if (method === 'GET') return 'read';
  if (/^\/v1\/(donations(\/[^/]+)?|users\/[^/]+\/donations|fundraisers(\/[^/]+)?(\/end|\/matches)?|matches\/[^/]+\/end)$/.test(path)) return 'donate';
  if (/^\/v1\/gifts(\/|$)/.test(path)) return 'gifts';
  return 'keys';
}

const ALL_SCOPES = ['read', 'donate', 'gifts'] as const;
const insufficientScope: Expect = [403, 'insufficient_scope'];

let addresses = 0;

/** `/v1/sandbox/advance#donation:ID` carries its body in the fragment, so that each row names the object it acts on. */
function request(endpoint: Endpoint, o: Objects): { url: string; body?: unknown } {
  const url = endpoint.url(o);
  const [path, target] = url.split('#');
  // An invitation goes to a new address each time: the same one twice is refused (invitation_exists).
  if (url === '/v1/fund/members' && endpoint.method === 'POST') return { url, body: { ...(endpoint.body as object), email: `invited-${(addresses += 1)}@example.org` } };
  if (target === undefined) return { url, ...(endpoint.body === undefined ? {} : { body: endpoint.body }) };
  const [object, id] = target.split(':') as [string, string];
  if (object === 'fund') return { url: path as string, body: { current_fund_id: Number(id) } };
  if (object === 'grant') return { url: path as string, body: { fund_id: Number(id), ein: EIN, amount: 10, tracking_id: 'matrix' } };
  return { url: path as string, body: object === 'donation' ? { object, id: Number(id), event: 'approve' } : { object, code: id, action: 'deny' } };
}

for (const { name: engine } of engines()) {
  describe(`authorization on ${engine}`, () => {
    let env: TestEnv;
    let owner: TestUser;
    let other: TestUser;
    let ownerTest: string;
    let otherTest: string;
    let suspended: { live: string; test: string; objects: Objects; sandbox: Objects };
    let revokedKey: string;
    let members: { family: string; advisor: string };
    let removedKey: string;
    let apps: {
      other: AppTokens;
      ownerTest: AppTokens;
      otherTest: AppTokens;
      suspended: AppTokens;
      suspendedTest: AppTokens;
      readOnly: AppTokens;
      donateOnly: AppTokens;
      giftsOnly: AppTokens;
      limited: AppTokens;
      disconnected: AppTokens;
      /** The owner's checkout provider (rules §24): `dafpay` alone, which opens the checkout's routes and no other. */
      checkoutOnly: AppTokens;
    };
    /** The same apps with `dafpay` alone, for the checkout's routes. */
    let checkout: Pick<typeof apps, 'other' | 'ownerTest' | 'otherTest' | 'suspended' | 'suspendedTest' | 'limited' | 'disconnected'>;

    /** A sandbox key for `user`, its twin funded through a cleared sandbox deposit. */
    async function sandboxKey(user: TestUser): Promise<string> {
      const k = await call(env.app, 'POST', '/v1/api_keys', { key: user.key, body: { name: 'sandbox', mode: 'test' } });
      assert.equal(k.status, 201);
      await fundSandbox(env.app, k.body.key, 100_000);
      return k.body.key;
    }

    /**
     * Objects of the user acting with `key`, in that key's book: the same ones again until a call
     * succeeds (a refused call is asserted to change nothing, so what it was given is as it was;
     * a success may consume them), fresh after. Making them is a dozen requests.
     */
    const unchanged = new Map<string, Objects>();
    // The database as the last refused call left it (its fingerprint): the next refused call starts
    // from it unless something that writes ran since (objects made, a call that succeeded). Stale,
    // it could only make a test fail, never pass: a change is still caught, under the next label.
    let lastSeen: Record<string, unknown> | undefined;
    async function objectsOf(key: string): Promise<Objects> {
      const known = unchanged.get(key);
      if (known !== undefined) return known;
      lastSeen = undefined;
      const made = await freshObjectsOf(key);
      unchanged.set(key, made);
      return made;
    }

    /** Fresh objects of the user acting with `key`, in that key's book. */
    async function freshObjectsOf(key: string): Promise<Objects> {
      const me = await call(env.app, 'GET', '/v1/users/me', { key });
      const d = await call(env.app, 'POST', '/v1/donations', { key, body: { amount: 10, ein: EIN } });
      const p = await call(env.app, 'POST', '/v1/donations', { key, body: { amount: 10, ein: EIN, visibility: 'private' } });
      const g = await call(env.app, 'POST', '/v1/gifts', { key, body: { name: 'Y', amount: 18 } });
      const k = await call(env.app, 'POST', '/v1/api_keys', { key, body: { name: 'spare' } });
      const s = await call(env.app, 'POST', '/v1/scheduled_donations', { key, body: { amount: 10, ein: EIN, frequency: 'Monthly' } });
      const c = await call(env.app, 'POST', '/v1/contributions', { key, body: { type: 'check_payment', amount: 50 } });
      const w = await call(env.app, 'POST', '/v1/webhook_endpoints', { key, body: { url: 'https://hooks.example.org/owner' } });
      invitations += 1;
      const m = await call(env.app, 'POST', '/v1/fund/members', { key, body: { email: `objects-${invitations}@example.org`, role: 'family' } });
      const f = await call(env.app, 'POST', '/v1/fundraisers', { key, body: { ein: EIN, title: 'Objects', goal: 100 } });
      const mt = await call(env.app, 'POST', `/v1/fundraisers/${f.body.id}/matches`, { key, body: { ratio: 1, cap: 1 } });
      for (const made of [d, p, g, k, s, c, w, m, f, mt]) assert.equal(made.status, 201, JSON.stringify(made.body));
      const events = await call(env.app, 'GET', '/v1/events?per_page=100', { key });
      const event = (events.body.items as Array<{ id: number; object_id: number }>).find((e) => e.object_id === d.body.id);
      assert.ok(event !== undefined, 'the donation made its event');
      return {
        user_id: me.body.id,
        slug: me.body.slug,
        donation_id: d.body.id,
        private_donation_id: p.body.id,
        gift_code: g.body.code,
        key_id: k.body.id,
        schedule_id: s.body.id,
        contribution_id: c.body.id,
        webhook_endpoint_id: w.body.id,
        event_id: event.id,
        fund_id: me.body.current_fund.id,
        member_id: m.body.id,
        fundraiser_id: f.body.id,
        match_id: mt.body.id,
      };
    }
    let invitations = 0;

    /** A member of `holder`'s fund with `role`, acting on it with a live key (rules §20). */
    async function memberOf(holder: TestUser, role: 'family' | 'advisor', funded = 0): Promise<string> {
      const person = await makeUser(env.deps);
      if (funded > 0) await fund(env.deps, person, funded);
      const email = `${role}-${person.user_id}@example.org`;
      await env.deps.db
        .insertInto('accounts')
        .values({ user_id: person.user_id, email, password_hash: 'x', created_at: new Date().toISOString(), email_confirmed_at: new Date().toISOString() })
        .execute();
      const invited = await call(env.app, 'POST', '/v1/fund/members', { key: holder.key, body: { email, role } });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      const token = /\/join\/(.+)$/.exec(
        String((await env.deps.db.selectFrom('mail_outbox').select('text').where('recipient', '=', email).executeTakeFirstOrThrow()).text)
          .split('\n')
          .find((l) => l.includes('/join/')) ?? '',
      )?.[1];
      assert.ok(token !== undefined);
      await acceptInvitation(env.deps, person.user_id, token);
      return person.key;
    }

    before(async () => {
      // objectsOf makes a webhook endpoint and an invitation every time it is called: far more than the caps.
      env = await openEnv(engine, { webhookEndpointsPerUser: 5000, membersPerFund: 5000 });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      owner = await makeUser(env.deps);
      other = await makeUser(env.deps);
      const held = await makeUser(env.deps);
      for (const u of [owner, other, held]) await fund(env.deps, u, 10_000_000);
      members = { family: await memberOf(owner, 'family'), advisor: await memberOf(owner, 'advisor') };
      // A member removed since: their key acts on their own (funded) fund, as anyone else's would.
      removedKey = await memberOf(owner, 'advisor', 10_000_000);
      const removedId = ((await call(env.app, 'GET', '/v1/fund/members', { key: owner.key })).body.items as Array<{ id: number; role: string; status: string }>).filter(
        (m) => m.role === 'advisor' && m.status === 'active',
      );
      const removing = await call(env.app, 'DELETE', `/v1/fund/members/${removedId.at(-1)?.id}`, { key: owner.key });
      assert.equal(removing.status, 200, JSON.stringify(removing.body));
      ownerTest = await sandboxKey(owner);
      otherTest = await sandboxKey(other);
      const heldTest = await sandboxKey(held);
      suspended = { live: held.key, test: heldTest, objects: await objectsOf(held.key), sandbox: await objectsOf(heldTest) };
      apps = {
        other: await connectApp(env.deps, other.user_id, { scopes: ALL_SCOPES }),
        ownerTest: await connectApp(env.deps, owner.user_id, { scopes: ALL_SCOPES, book: 'test' }),
        otherTest: await connectApp(env.deps, other.user_id, { scopes: ALL_SCOPES, book: 'test' }),
        suspended: await connectApp(env.deps, held.user_id, { scopes: ALL_SCOPES }),
        suspendedTest: await connectApp(env.deps, held.user_id, { scopes: ALL_SCOPES, book: 'test' }),
        readOnly: await connectApp(env.deps, owner.user_id, { scopes: ['read'] }),
        donateOnly: await connectApp(env.deps, owner.user_id, { scopes: ['read', 'donate'] }),
        giftsOnly: await connectApp(env.deps, owner.user_id, { scopes: ['read', 'gifts'] }),
        // Every scope, and a limit of one cent a month: nothing that moves money fits.
        limited: await connectApp(env.deps, owner.user_id, { scopes: ALL_SCOPES, monthlyLimitCents: 1 }),
        disconnected: await connectApp(env.deps, owner.user_id, { scopes: ALL_SCOPES }),
        checkoutOnly: await connectApp(env.deps, owner.user_id, { scopes: ['dafpay'] }),
      };
      const grants = ['dafpay'];
      checkout = {
        other: await connectApp(env.deps, other.user_id, { scopes: grants }),
        ownerTest: await connectApp(env.deps, owner.user_id, { scopes: grants, book: 'test' }),
        otherTest: await connectApp(env.deps, other.user_id, { scopes: grants, book: 'test' }),
        suspended: await connectApp(env.deps, held.user_id, { scopes: grants }),
        suspendedTest: await connectApp(env.deps, held.user_id, { scopes: grants, book: 'test' }),
        limited: await connectApp(env.deps, owner.user_id, { scopes: grants, monthlyLimitCents: 1 }),
        disconnected: await connectApp(env.deps, owner.user_id, { scopes: grants }),
      };
      for (const gone of [apps.disconnected, checkout.disconnected]) {
        const connection = (await connectedApps(env.deps, owner.user_id)).find((c) => c.client_id === gone.clientId);
        assert.ok(connection !== undefined);
        await disconnectApp(env.deps, owner.user_id, connection.id);
      }
      await setUserStatus(env.deps, held.user_id, 'suspended', 'test');
      const r = await call(env.app, 'POST', '/v1/api_keys', { key: owner.key, body: { name: 'to revoke' } });
      await call(env.app, 'DELETE', `/v1/api_keys/${r.body.id}`, { key: owner.key });
      revokedKey = r.body.key;
    });
    after(async () => env.close());

    const unknownKey = `alm_live_${'A'.repeat(40)}`;
    const badKeys: Array<[string, Record<string, string>, string]> = [
      ['no key', {}, 'unauthenticated'],
      ['an empty X-Api-Key', { 'x-api-key': '' }, 'unauthenticated'],
      ['a malformed key', { 'x-api-key': 'hello' }, 'invalid_api_key'],
      ['an unknown key', { 'x-api-key': unknownKey }, 'invalid_api_key'],
      ['an unknown Bearer key', { authorization: `Bearer ${unknownKey}` }, 'invalid_api_key'],
      ['an unknown sandbox key', { 'x-api-key': `alm_test_${'B'.repeat(40)}` }, 'invalid_api_key'],
    ];

    /** Calls as `key` (an API key, or an app's Authorization header) and checks the expectation; a refused call must change nothing. */
    async function expectCall(label: string, endpoint: Endpoint, o: Objects, key: string | { authorization: string }, [status, code]: Expect): Promise<void> {
      const { url, body } = request(endpoint, o);
      const before = status >= 400 ? (lastSeen ?? (await fingerprint(env.deps))) : undefined;
      const credential = typeof key === 'string' ? { key } : { headers: key };
      const res = await call(env.app, endpoint.method, url, { ...credential, ...(body === undefined ? {} : { body }) });
      lastSeen = undefined;
      if (res.status < 400) unchanged.clear();
      assert.equal(res.status, status, `${label}: ${JSON.stringify(res.body)}`);
      if (code !== null) assert.equal(res.body.code, code, label);
      if (status >= 400) {
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/, label);
        const after = await fingerprint(env.deps);
        assert.deepEqual(after, before, `${label}: a refused request changes nothing`);
        lastSeen = after;
      }
    }

    for (const endpoint of ENDPOINTS) {
      const blank = BLANK;
      test(`${endpoint.method} ${request(endpoint, blank).url}${endpoint.url(blank).includes('#') ? ` (${endpoint.url(blank).split('#')[1]?.split(':')[0]})` : ''}`, async () => {
        lastSeen = undefined;
        const live = await objectsOf(owner.key);
        const { url, body } = request(endpoint, live);
        const before = await fingerprint(env.deps);
        for (const [label, headers, code] of [...badKeys, ['a revoked key', { 'x-api-key': revokedKey }, 'invalid_api_key'] as [string, Record<string, string>, string]]) {
          const res = await call(env.app, endpoint.method, url, { headers, ...(body === undefined ? {} : { body }) });
          assert.equal(res.status, 401, `${label}: status`);
          assert.equal(res.body.code, code, `${label}: code`);
          assert.equal(res.headers['www-authenticate'], 'ApiKey', `${label}: challenge`);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        }
        lastSeen = await fingerprint(env.deps);
        assert.deepEqual(lastSeen, before, 'a refused request changes nothing');
        for (const [label, key, objects] of [
          ["a suspended user's live key", suspended.live, suspended.objects],
          ["a suspended user's sandbox key", suspended.test, suspended.sandbox],
        ] as const) {
          await expectCall(label, endpoint, objects, key, forbidden);
        }
        // The other book, both ways, for the owner and for someone else (each on fresh objects: a success consumes them).
        await expectCall("the owner's sandbox key on live objects", endpoint, live, ownerTest, endpoint.testOnLive);
        await expectCall("another user's sandbox key on live objects", endpoint, await objectsOf(owner.key), otherTest, endpoint.testOnLive);
        await expectCall("the owner's live key on sandbox objects", endpoint, await objectsOf(ownerTest), owner.key, endpoint.liveOnTest);
        await expectCall("another user's live key on sandbox objects", endpoint, await objectsOf(ownerTest), other.key, endpoint.liveOnTest);
        await expectCall("another user's live key", endpoint, await objectsOf(owner.key), other.key, endpoint.other);
        await expectCall("a removed member's key", endpoint, await objectsOf(owner.key), removedKey, endpoint.other);
        // The members of the owner's fund, each with their role (rules §20): below the route's, refused and nothing changes.
        const needed = neededRole(endpoint.method, request(endpoint, blank).url);
        for (const role of ['family', 'advisor'] as const) {
          const below = needed === 'organizer' || (needed === 'advisor' && role === 'family');
          const objects = await objectsOf(owner.key);
          const expected = endpoint[role] ?? (below ? ([403, 'role_forbidden'] as Expect) : undefined);
          if (expected !== undefined) await expectCall(`the owner's ${role} member`, endpoint, objects, members[role], expected);
          else {
            const { url: memberUrl, body: memberBody } = request(endpoint, objects);
            const res = await call(env.app, endpoint.method, memberUrl, { key: members[role], ...(memberBody === undefined ? {} : { body: memberBody }) });
            unchanged.clear();
            lastSeen = undefined;
            assert.ok(res.status < 500 && res.body?.code !== 'role_forbidden' && res.status !== 401, `the owner's ${role} member: ${res.status} ${JSON.stringify(res.body)}`);
          }
        }

        // Apps' tokens: what a key of the same user and book gets, where the token has the route's scope.
        const scope = neededScope(endpoint.method, request(endpoint, blank).url);
        const scoped = (e: Expect): Expect => (scope === 'keys' ? insufficientScope : e);
        // The checkout's routes are asked with tokens of `dafpay` alone; every other route with the other scopes.
        const a = scope === 'dafpay' ? checkout : apps;
        const bearer = (t: AppTokens) => ({ authorization: `Bearer ${t.accessToken}` });
        const compatible = (t: AppTokens) => ({ authorization: `${t.clientId} ${t.idToken}` });
        for (const [label, token, objects] of [
          ["a suspended user's app token", bearer(a.suspended), suspended.objects],
          ["a suspended user's app id token", compatible(a.suspended), suspended.objects],
          ["a suspended user's sandbox app token", bearer(a.suspendedTest), suspended.sandbox],
        ] as const) {
          await expectCall(label, endpoint, objects, token, forbidden);
        }
        await expectCall("another user's app token", endpoint, await objectsOf(owner.key), bearer(a.other), scoped(endpoint.other));
        await expectCall("another user's app id token", endpoint, await objectsOf(owner.key), compatible(a.other), scoped(endpoint.other));
        await expectCall("the owner's sandbox app token on live objects", endpoint, await objectsOf(owner.key), bearer(a.ownerTest), scoped(endpoint.testOnLive));
        await expectCall("another user's sandbox app token on live objects", endpoint, await objectsOf(owner.key), bearer(a.otherTest), scoped(endpoint.testOnLive));
        await expectCall("the owner's sandbox app id token on live objects", endpoint, await objectsOf(owner.key), compatible(a.ownerTest), scoped(endpoint.testOnLive));
        if (scope !== 'read') await expectCall("the owner's read-only app token", endpoint, await objectsOf(owner.key), bearer(apps.readOnly), insufficientScope);
        // Each scope opens only its own routes, with either header form.
        for (const [label, token, has] of [
          ["the owner's donate-only app", apps.donateOnly, 'donate'],
          ["the owner's gifts-only app", apps.giftsOnly, 'gifts'],
          // A checkout's token grants and does nothing else, reads included (rules §24).
          ["the owner's checkout app", apps.checkoutOnly, 'dafpay'],
        ] as const) {
          if (scope === has || (scope === 'read' && has !== 'dafpay')) continue;
          await expectCall(`${label} token`, endpoint, await objectsOf(owner.key), bearer(token), insufficientScope);
          await expectCall(`${label} id token`, endpoint, await objectsOf(owner.key), compatible(token), insufficientScope);
        }
        if (endpoint.moves === true) {
          const limitExceeded: Expect = [403, 'app_limit_exceeded'];
          await expectCall("the owner's app past its monthly limit", endpoint, await objectsOf(owner.key), bearer(a.limited), limitExceeded);
          await expectCall("the owner's app past its monthly limit, by id token", endpoint, await objectsOf(owner.key), compatible(a.limited), limitExceeded);
        }
        // HEAD is its GET's, held to the same scope; it answers no body.
        if (endpoint.method === 'GET') {
          const head = await call(env.app, 'HEAD', request(endpoint, await objectsOf(owner.key)).url, { headers: bearer(apps.readOnly) });
          if (scope === 'keys' || scope === 'dafpay') {
            assert.equal(head.status, 403, `HEAD of a ${scope} route with a read-only token`);
            assert.equal(
              head.headers['www-authenticate'],
              `Bearer error="insufficient_scope"${scope === 'dafpay' ? ', scope="dafpay"' : ''}`,
              'HEAD: the challenge names the refusal',
            );
          } else {
            assert.ok(head.status !== 401 && head.status !== 403, `HEAD of a read route with a read token: ${head.status}`);
          }
          const disconnectedHead = await call(env.app, 'HEAD', request(endpoint, await objectsOf(owner.key)).url, { headers: bearer(a.disconnected) });
          lastSeen = undefined;
          assert.equal(disconnectedHead.status, 401, "HEAD with a disconnected app's token");
        }
        const fresh = await objectsOf(owner.key);
        const before2 = await fingerprint(env.deps);
        for (const [label, headers] of [
          ["a disconnected app's token", bearer(a.disconnected)],
          ["a disconnected app's id token", compatible(a.disconnected)],
          ['an unknown app token', { authorization: `Bearer ${'t'.repeat(43)}` }],
          ["an id token sent with another app's client id", { authorization: `${a.otherTest.clientId} ${a.other.idToken}` }],
        ] as const) {
          const { url: freshUrl, body: freshBody } = request(endpoint, fresh);
          const res = await call(env.app, endpoint.method, freshUrl, { headers, ...(freshBody === undefined ? {} : { body: freshBody }) });
          assert.equal(res.status, 401, `${label}: status`);
          assert.equal(res.body.code, 'invalid_token', `${label}: code`);
          assert.equal(res.headers['www-authenticate'], 'Bearer error="invalid_token"', `${label}: challenge`);
        }
        assert.deepEqual(await fingerprint(env.deps), before2, 'a refused token changes nothing');
        await assertLedgerBalanced(env.deps);
      });
    }

    test('the three header forms identify the caller; X-Api-Key wins', async () => {
      for (const headers of [
        { 'x-api-key': owner.key } as Record<string, string>,
        { authorization: `Bearer ${owner.key}` },
        { authorization: `bearer  ${owner.key}` },
        { authorization: owner.key },
        { 'x-api-key': owner.key, authorization: `Bearer ${other.key}` },
      ]) {
        const res = await call(env.app, 'GET', '/v1/users/me', { headers });
        assert.equal(res.status, 200, JSON.stringify(Object.keys(headers)));
        assert.equal(res.body.id, owner.user_id);
      }
    });

    test('a key revoked through one node fails on the next request to another node', async () => {
      const second = await buildApp(env.deps); // its own in-memory key cache, as another process has
      try {
        const created = await call(env.app, 'POST', '/v1/api_keys', { key: owner.key, body: { name: 'two nodes' } });
        assert.equal((await call(second, 'GET', '/v1/users/me', { key: created.body.key })).status, 200);
        assert.equal((await call(env.app, 'GET', '/v1/users/me', { key: created.body.key })).status, 200);
        assert.equal((await call(env.app, 'DELETE', `/v1/api_keys/${created.body.id}`, { key: owner.key })).status, 200);
        const onSecond = await call(second, 'GET', '/v1/users/me', { key: created.body.key });
        assert.equal(onSecond.status, 401);
        assert.equal(onSecond.body.code, 'invalid_api_key');
        assert.equal((await call(second, 'GET', '/v1/users/me', { key: owner.key })).status, 200, 'other keys still work');
      } finally {
        await second.close();
      }
    });

    test('operational endpoints need no key; /metrics beside the public needs an operator token', async () => {
      for (const url of ['/healthz', '/readyz', '/openapi.json']) {
        assert.equal((await call(env.app, 'GET', url)).status, 200, url);
      }
      assert.equal((await call(env.app, 'GET', '/metrics')).status, 401);
      assert.equal((await call(env.app, 'GET', '/metrics', { key: owner.key })).status, 401);
    });
  });
}

/** A web form of the dashboard, settings or a gift's page, acting on the owner's objects `o` (or on none). */
interface WebForm {
  path: (o: WebObjects) => string;
  fields: Record<string, string>;
  /** What another signed-in user gets on the owner's live objects: success (303) or not found. */
  other: 303 | 404;
  /** What a signed-in user (the owner or another) gets on the owner's sandbox objects. */
  sandbox: 303 | 404;
}

interface WebObjects {
  donation_id: number;
  gift_code: string;
  key_id: number;
  schedule_id: number;
}

const WEB_FORMS: WebForm[] = [
  { path: () => '/dashboard/donations', fields: { ein: '261544963', amount: '10' }, other: 303, sandbox: 303 },
  { path: (o) => `/dashboard/donations/${o.donation_id}/cancel`, fields: {}, other: 404, sandbox: 404 },
  { path: () => '/dashboard/gifts', fields: { name: 'X', amount: '18' }, other: 303, sandbox: 303 },
  { path: () => '/dashboard/scheduled', fields: { ein: '261544963', amount: '10', frequency: 'Monthly' }, other: 303, sandbox: 303 },
  { path: (o) => `/dashboard/scheduled/${o.schedule_id}/cancel`, fields: {}, other: 404, sandbox: 404 },
  { path: () => '/settings/keys', fields: { name: 'k', mode: 'test' }, other: 303, sandbox: 303 },
  { path: (o) => `/settings/keys/${o.key_id}/revoke`, fields: {}, other: 404, sandbox: 404 },
  { path: (o) => `/gifts/${o.gift_code}/accept`, fields: {}, other: 303, sandbox: 404 },
  { path: (o) => `/gifts/${o.gift_code}/claim`, fields: { ein: '261544963' }, other: 303, sandbox: 404 },
  { path: (o) => `/gifts/${o.gift_code}/deny`, fields: {}, other: 303, sandbox: 404 },
];

for (const { name: engine } of engines()) {
  describe(`web authorization on ${engine}`, () => {
    let env: TestEnv;
    let ownerKey: string;
    let ownerTestKey: string;
    let other: WebClient;
    let suspended: WebClient;
    let seq = 0;

    async function signedUp(name: string): Promise<{ browser: WebClient; user_id: number; fund_id: number }> {
      const browser = new WebClient(env.app);
      const address = `web-${++seq}-${engine}@example.org`;
      await browser.signUp(name, address);
      await browser.get('/dashboard');
      const row = await accountOf(env.deps, address);
      await fund(env.deps, row, 10_000_000);
      return { browser, ...row };
    }

    async function objectsOf(key: string): Promise<WebObjects> {
      const d = await call(env.app, 'POST', '/v1/donations', { key, body: { amount: 10, ein: '261544963' } });
      const g = await call(env.app, 'POST', '/v1/gifts', { key, body: { name: 'Y', amount: 18 } });
      const k = await call(env.app, 'POST', '/v1/api_keys', { key, body: { name: 'spare' } });
      const s = await call(env.app, 'POST', '/v1/scheduled_donations', { key, body: { amount: 10, ein: '261544963', frequency: 'Monthly' } });
      for (const made of [d, g, k, s]) assert.equal(made.status, 201, JSON.stringify(made.body));
      return { donation_id: d.body.id, gift_code: g.body.code, key_id: k.body.id, schedule_id: s.body.id };
    }

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      const owner = await signedUp('Web Owner');
      ownerKey = (await createKeyForOwner(env.deps, owner.user_id, 'api', 'live')).key;
      ownerTestKey = (await createKeyForOwner(env.deps, owner.user_id, 'sandbox', 'test')).key;
      await fundSandbox(env.app, ownerTestKey, 100_000);
      other = (await signedUp('Web Other')).browser;
      const held = await signedUp('Web Suspended');
      suspended = held.browser;
      await setUserStatus(env.deps, held.user_id, 'suspended', 'test');
    });
    after(async () => env.close());

    for (const form of WEB_FORMS) {
      test(`POST ${form.path({ donation_id: 0, gift_code: ':code', key_id: 0, schedule_id: 0 })}`, async () => {
        const live = await objectsOf(ownerKey);
        const before = await fingerprint(env.deps);
        // No session, or a suspended user's: nothing happens, and the visitor is sent to sign in or refused.
        for (const [label, browser] of [
          ['anonymous', new WebClient(env.app)],
          ['a suspended user', suspended],
        ] as const) {
          await browser.get('/signin');
          const res = await browser.post(form.path(live), form.fields);
          assert.ok(res.status === 403 || (res.status === 303 && res.location?.startsWith('/signin')), `${label}: ${res.status} ${res.location}`);
          assert.deepEqual(await fingerprint(env.deps), before, `${label}: nothing changed`);
        }
        // The owner's sandbox objects are not there on the web, for anyone (the owner's twin's key is the owner's to revoke).
        const sandbox = await objectsOf(ownerTestKey);
        await other.get('/dashboard');
        const beforeSandbox = await fingerprint(env.deps);
        const res = await other.post(form.path(sandbox), form.fields);
        assert.equal(res.status, form.sandbox, `another user on sandbox objects: ${res.status}`);
        if (form.sandbox === 404) assert.deepEqual(await fingerprint(env.deps), beforeSandbox);
        await other.get('/dashboard');
        const mine = await other.post(form.path(live), form.fields);
        assert.equal(mine.status, form.other, `another user on live objects: ${mine.status}`);
        await assertLedgerBalanced(env.deps);
      });
    }

    test("a gift's page: a live gift is there for everyone, a sandbox gift for no one", async () => {
      const live = await objectsOf(ownerKey);
      const sandbox = await objectsOf(ownerTestKey);
      for (const browser of [new WebClient(env.app), other, suspended]) {
        assert.equal((await browser.get(`/gifts/${live.gift_code}`)).status, 200);
        assert.equal((await browser.get(`/gifts/${sandbox.gift_code}`)).status, 404);
      }
    });
  });
}

/**
 * The web's forms that act on the fund one acts on, each with the action it asks of the policy
 * (ADR 23): a family member or advisor below the action's role is refused with the API's code.
 */
interface FundForm {
  path: (o: FundObjects) => string;
  fields: Record<string, string>;
  action: Action;
  /** Where the rule depends on the object: the code a family member gets though the action is theirs. */
  family?: string;
}

interface FundObjects {
  donation_id: number;
  request_id: number;
  schedule_id: number;
  contribution_id: number;
  endpoint_id: number;
  member_id: number;
  gift_code: string;
}

const FUND_BLANK: FundObjects = { donation_id: 1, request_id: 1, schedule_id: 1, contribution_id: 1, endpoint_id: 1, member_id: 1, gift_code: 'code' };

const FUND_FORMS: FundForm[] = [
  { path: () => '/dashboard/donations', fields: { ein: EIN, amount: '10' }, action: 'donate' },
  // A family member withdraws only their own requests: the organizer's donation is not theirs to cancel.
  { path: (o) => `/dashboard/donations/${o.donation_id}/cancel`, fields: {}, action: 'cancel_donation', family: 'role_forbidden' },
  { path: () => '/dashboard/gifts', fields: { name: 'X', amount: '18' }, action: 'give_gift' },
  { path: () => '/dashboard/scheduled', fields: { ein: EIN, amount: '10', frequency: 'Monthly' }, action: 'schedule' },
  { path: (o) => `/dashboard/scheduled/${o.schedule_id}/cancel`, fields: {}, action: 'schedule' },
  { path: () => '/fund/members', fields: { email: 'someone@example.org', role: 'family' }, action: 'members' },
  { path: (o) => `/fund/members/${o.member_id}/role`, fields: { role: 'advisor' }, action: 'members' },
  { path: (o) => `/fund/members/${o.member_id}/remove`, fields: {}, action: 'members' },
  { path: () => '/fund/current', fields: { fund_id: '0' }, action: 'own_account' },
  { path: (o) => `/fund/requests/${o.request_id}/approve`, fields: {}, action: 'decide_request' },
  { path: (o) => `/fund/requests/${o.request_id}/decline`, fields: { reason: 'no' }, action: 'decide_request' },
  { path: (o) => `/gifts/${o.gift_code}/accept`, fields: {}, action: 'answer_gift' },
  { path: (o) => `/gifts/${o.gift_code}/claim`, fields: { ein: EIN }, action: 'answer_gift' },
  { path: (o) => `/gifts/${o.gift_code}/deny`, fields: {}, action: 'answer_gift' },
  { path: () => '/fundraisers', fields: { ein: EIN, title: 'Matrix run', goal: '100' }, action: 'fundraise' },
  { path: () => '/invest', fields: { portfolio_id: 'cash', invest_share: '10' }, action: 'invest' },
  { path: () => '/invest/exchange/cancel', fields: {}, action: 'invest' },
  { path: () => '/invest/now', fields: { amount: '5' }, action: 'invest' },
  { path: () => '/money', fields: { type: 'wire_payment', amount: '100' }, action: 'add_money' },
  { path: (o) => `/money/${o.contribution_id}/cancel`, fields: {}, action: 'add_money' },
  { path: () => '/settings/webhooks', fields: { url: 'https://hooks.example.org/form' }, action: 'webhooks' },
  { path: (o) => `/settings/webhooks/${o.endpoint_id}/test`, fields: {}, action: 'webhooks' },
  { path: (o) => `/settings/webhooks/${o.endpoint_id}/rotate`, fields: {}, action: 'webhooks' },
  { path: (o) => `/settings/webhooks/${o.endpoint_id}/disable`, fields: {}, action: 'webhooks' },
  { path: (o) => `/settings/webhooks/${o.endpoint_id}/enable`, fields: {}, action: 'webhooks' },
  { path: (o) => `/settings/webhooks/${o.endpoint_id}/delete`, fields: {}, action: 'webhooks' },
];

/** The web's POSTs that act on no shared fund, each with why (a person's own account, apps, a charity's people, signing in). */
const WEB_POSTS_OF_A_PERSON: Readonly<Record<string, string>> = {
  'POST /signup': 'opens an account',
  'POST /signin': 'signs in',
  'POST /signout': 'signs out',
  'POST /forgot': 'asks for a reset link',
  'POST /reset/:token': 'sets a password from a link',
  'POST /invite/:token': "an operator's invitation to sign in",
  'POST /join/:token': 'accepts an invitation addressed to the person',
  'POST /oauth/interaction/:uid': "the person's consent to an app",
  'POST /settings/apps': "the person's own apps, as a developer",
  'POST /settings/apps/:client_id/secret': "the person's own apps, as a developer",
  'POST /settings/apps/:client_id/delete': "the person's own apps, as a developer",
  'POST /settings/apps/connections/:id/disconnect': "the person's own app connections",
  'POST /settings/keys': "the person's own keys (WEB_FORMS above)",
  'POST /settings/keys/:id/revoke': "the person's own keys (WEB_FORMS above)",
  'POST /settings/profile': "the person's own profile and fund name",
  'POST /settings/address': "the person's own address (rules §15)",
  'POST /account/confirm': 'sends the person a link to confirm their own address',
  'POST /account/confirm/:token': "confirms the person's own address",
  'POST /charities/:ein/claim': "a charity's people (rules §18, test/charities.test.ts)",
  'POST /charities/claims/confirm/:token': "a charity's people (rules §18, test/charities.test.ts)",
  'POST /charities/:ein/bank-details': "a charity's people (rules §18, test/charities.test.ts)",
  // Login with Almoner's own endpoints: the provider authenticates its clients itself (ADR 16).
  'POST /oidc/*': "the OpenID provider's endpoints (ADR 16)",
  'OPTIONS /oidc/*': "the OpenID provider's endpoints (ADR 16)",
  'OPTIONS /.well-known/openid-configuration': 'the discovery document',
};

/** A route pattern (`/v1/donations/:donation_id`) as a regular expression over a path. */
const patternOf = (url: string) => new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '*' ? '.*' : `\\${c}`)).replace(/\\\*|:\w+/g, '[^/]+')}$`);

for (const { name: engine } of engines()) {
  describe(`every route is held to a rule on ${engine}`, () => {
    let env: TestEnv;
    let owner: TestUser;
    const browsers: Partial<Record<'family' | 'advisor', WebClient>> = {};
    const keys: Partial<Record<'family' | 'advisor', string>> = {};
    let invited = 0;

    before(async () => {
      env = await openEnv(engine, { webhookEndpointsPerUser: 5000, membersPerFund: 5000 });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      owner = await makeUser(env.deps);
      await fund(env.deps, owner, 10_000_000);
      for (const role of ['family', 'advisor'] as const) {
        const browser = new WebClient(env.app);
        const email = `route-${role}-${engine}@example.org`;
        await browser.signUp(`Route ${role}`, email);
        const { user_id } = await accountOf(env.deps, email);
        await confirmAddressOf(env.deps, user_id, email);
        const made = await call(env.app, 'POST', '/v1/fund/members', { key: owner.key, body: { email, role } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const text = String(
          (await env.deps.db.selectFrom('mail_outbox').select('text').where('recipient', '=', email).where('kind', '=', 'fund_invitation').executeTakeFirstOrThrow()).text,
        );
        await acceptInvitation(env.deps, user_id, /\/join\/([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '');
        browsers[role] = browser;
        keys[role] = (await createKeyForOwner(env.deps, user_id, 'routes', 'live')).key;
      }
    });
    after(async () => env.close());

    async function objects(): Promise<FundObjects> {
      const key = owner.key;
      const d = await call(env.app, 'POST', '/v1/donations', { key, body: { amount: 10, ein: EIN } });
      const r = await call(env.app, 'POST', '/v1/donations', { key: keys.family as string, body: { amount: 10, ein: EIN } });
      const s = await call(env.app, 'POST', '/v1/scheduled_donations', { key, body: { amount: 10, ein: EIN, frequency: 'Monthly' } });
      const c = await call(env.app, 'POST', '/v1/contributions', { key, body: { type: 'check_payment', amount: 50 } });
      const w = await call(env.app, 'POST', '/v1/webhook_endpoints', { key, body: { url: 'https://hooks.example.org/owner' } });
      const m = await call(env.app, 'POST', '/v1/fund/members', { key, body: { email: `routes-${(invited += 1)}-${engine}@example.org`, role: 'family' } });
      // A gift to the member: its answer is theirs, whatever their role.
      const giver = await makeUser(env.deps);
      await fund(env.deps, giver, 10_000);
      const g = await call(env.app, 'POST', '/v1/gifts', { key: giver.key, body: { name: 'Member', amount: 18 } });
      for (const made of [d, r, s, c, w, m, g]) assert.equal(made.status, 201, JSON.stringify(made.body));
      return {
        donation_id: d.body.id,
        request_id: r.body.id,
        schedule_id: s.body.id,
        contribution_id: c.body.id,
        endpoint_id: w.body.id,
        member_id: m.body.id,
        gift_code: g.body.code,
      };
    }

    test('the router has no route without a rule: the API table, the forms, the operator routes', () => {
      const routes = env.app.routeTable;
      const api = routes.filter((r) => r.url.startsWith('/v1/'));
      const admin = routes.filter((r) => r.url.startsWith('/admin/'));
      const webPosts = routes.filter((r) => !r.url.startsWith('/v1/') && !r.url.startsWith('/admin/') && r.method !== 'GET');
      // Every /v1 route: a row of the matrix above, and every one that is not a read named in the policy's table.
      for (const r of api) {
        const path = r.url.slice('/v1'.length);
        assert.ok(
          ENDPOINTS.some((e) => e.method === r.method && patternOf(r.url).test(request(e, BLANK).url.split('?')[0] as string)),
          `${r.method} ${r.url} has no row in the authorization matrix (ENDPOINTS)`,
        );
        if (r.method !== 'GET') assert.ok(routeAction(r.method, path) !== undefined, `${r.method} ${r.url} is not named in API_ROUTE_ACTIONS (shared/policy.ts)`);
      }
      // Every web POST: a fund form with its action, or a form of a person's own with why.
      for (const r of webPosts) {
        const name = `${r.method} ${r.url}`;
        const covered = FUND_FORMS.some((f) => r.method === 'POST' && patternOf(r.url).test(f.path(FUND_BLANK))) || WEB_POSTS_OF_A_PERSON[name] !== undefined;
        assert.ok(covered, `${name} is neither a fund form (FUND_FORMS) nor a form of a person's own (WEB_POSTS_OF_A_PERSON)`);
      }
      process.stdout.write(`# doors held to a rule: ${api.length} API routes, ${webPosts.length} web forms, ${admin.length} operator routes\n`);
      assert.ok(api.length > 50 && webPosts.length > 40 && admin.length > 50, 'the router was read whole');
    });

    test('every path parameter that is a credential (a token, code, uid or secret) never reaches a log line', () => {
      // `/errors/:code` names a problem code, public; the provider's wildcard is below.
      const carrying = env.app.routeTable.filter((r) => /:(token|code|uid|secret)\b/.test(r.url) && r.url !== '/errors/:code');
      const credential = 'Cr3dential_Cr3dential-Cr3dential_Cr3dential0';
      for (const r of carrying) {
        const url = r.url.replace(/:(token|code|uid|secret)\b/g, credential).replace(/:\w+/g, '7');
        for (const line of [JSON.stringify({ req: { method: r.method, url } }), JSON.stringify({ msg: `redirect to /signin?next=${encodeURIComponent(url)}` })]) {
          assert.ok(!redactLine(line).includes('Cr3dential'), `${r.method} ${r.url}: the credential in ${url} is redacted`);
        }
      }
      // The provider's own paths (/oidc/auth/<uid>, /oidc/interaction/<uid>) carry theirs after a fixed segment.
      for (const url of [`/oidc/auth/${credential}`, `/oidc/interaction/${credential}`]) assert.ok(!redactLine(url).includes('Cr3dential'), url);
      process.stdout.write(`# routes carrying a credential in their path: ${carrying.map((r) => `${r.method} ${r.url}`).join(', ')}\n`);
      assert.ok(
        carrying.some((r) => r.url === '/join/:token'),
        'the router was read: /join/:token carries a token',
      );
    });

    test("every operator route refuses no token, a user's key and a member's session, and changes nothing", async () => {
      const before = await fingerprint(env.deps);
      const admin = env.app.routeTable.filter((r) => r.url.startsWith('/admin/'));
      for (const r of admin) {
        const url = r.url.replace(/:\w+/g, '1');
        for (const [label, headers] of [
          ['no token', {}],
          ["a user's key", { authorization: `Bearer ${owner.key}` }],
          ["a user's key as X-Api-Key", { 'x-api-key': owner.key }],
          ["a member's web session", { cookie: (browsers.advisor as WebClient).cookieHeader() }],
        ] as const) {
          const res = await call(env.app, r.method, url, { headers: { ...headers }, ...(r.method === 'GET' ? {} : { body: {} }) });
          assert.equal(res.status, 401, `${r.method} ${r.url} with ${label}: ${res.status}`);
        }
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
    });

    for (const form of FUND_FORMS) {
      test(`POST ${form.path(FUND_BLANK)} (${form.action}) as the fund's family member and advisor`, async () => {
        for (const role of ['family', 'advisor'] as const) {
          const o = await objects();
          const browser = browsers[role] as WebClient;
          await browser.get('/dashboard');
          const before = await fingerprint(env.deps);
          const page = await browser.post(form.path(o), form.fields);
          const problem = /data-problem="([a-z_]+)"/.exec(page.body)?.[1];
          if (!roleAllows(role, POLICY[form.action].role) || (role === 'family' && form.family !== undefined)) {
            assert.deepEqual([page.status, problem], [403, 'role_forbidden'], `${role}: refused with the API's code`);
            assert.deepEqual(await fingerprint(env.deps), before, `${role}: nothing changed`);
          } else {
            assert.ok(page.status < 500 && problem !== 'role_forbidden', `${role}: not refused for the role (${page.status} ${problem ?? ''})`);
          }
        }
        await assertLedgerBalanced(env.deps);
      });
    }
  });
}
